// SPDX-License-Identifier: BSD-3-Clause
/* Elapsed-time measurement of the work queued on a context: CUDA events on the context's
 * stream on the CUDA backend (GPU time), a monotonic clock on the CPU backend. */
#ifndef VF_TIMER_H
#define VF_TIMER_H

#include <viofront/vf_context.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vf_timer vf_timer;

VF_API vf_status vf_timer_create(vf_context* ctx, vf_timer** out);
VF_API void vf_timer_destroy(vf_timer* timer);
VF_API vf_status vf_timer_start(vf_timer* timer);
/* Marks the end, waits for the work in between, and gives the elapsed milliseconds. */
VF_API vf_status vf_timer_stop(vf_timer* timer, double* elapsed_ms);

#ifdef __cplusplus
}
#endif
#endif
