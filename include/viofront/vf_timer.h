// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Elapsed-time measurement of the work queued on a context: CUDA events on the context's
 * stream on the CUDA backend (GPU time), a monotonic clock on the CPU backend. */
#ifndef VF_TIMER_H
#define VF_TIMER_H

#include <viofront/vf_context.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A timer of the work queued on one context (opaque). */
typedef struct vf_timer vf_timer;

/** Makes a timer for the context's backend (CUDA events or a monotonic clock). */
VF_API vf_status vf_timer_create(vf_context* ctx, vf_timer** out);
/** Frees the timer; safe on NULL. */
VF_API void vf_timer_destroy(vf_timer* timer);
/** Marks the start (on CUDA: an event queued on the context's stream). */
VF_API vf_status vf_timer_start(vf_timer* timer);
/** Marks the end, waits for the work in between, and gives the elapsed milliseconds. */
VF_API vf_status vf_timer_stop(vf_timer* timer, double* elapsed_ms);

#ifdef __cplusplus
}
#endif
#endif
