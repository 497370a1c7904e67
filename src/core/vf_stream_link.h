// SPDX-License-Identifier: BSD-3-Clause
/* An ordering between two contexts' streams: work queued on `to` after a signal waits for the
 * work queued on `from` before it, without the host waiting (a CUDA event recorded on one stream
 * and waited on by the other). Between CPU contexts, whose calls finish before they return,
 * it does nothing. */
#ifndef VF_STREAM_LINK_H
#define VF_STREAM_LINK_H

#include "core/vf_context_internal.h"

typedef struct vf_stream_link {
  const vf_context* from;
  const vf_context* to;
  void* event; /* CUDA */
} vf_stream_link;

vf_status vf_stream_link_init(vf_stream_link* l, const vf_context* from, const vf_context* to);
void vf_stream_link_release(vf_stream_link* l);
/* Marks the work queued on `from` so far. */
vf_status vf_stream_link_record(vf_stream_link* l);
/* Orders the work queued on `to` from now on after the last record's mark. */
vf_status vf_stream_link_wait(vf_stream_link* l);
/* Both at once: `to`'s later work waits for `from`'s work queued so far. */
vf_status vf_stream_link_signal(vf_stream_link* l);

#endif
