// SPDX-License-Identifier: BSD-3-Clause
/* Several remaps queued at once (a rig's cameras in a frame, issue 37): on CUDA one launch for
 * all of them instead of one a camera. */
#ifndef VF_REMAP_BATCH_H
#define VF_REMAP_BATCH_H

#include "core/vf_context_internal.h"
#include "viofront/vf_rectify.h"

/* The most remaps one call takes. */
#define VF_REMAP_BATCH_MAX 64

/* dst[i] = remaps[i] applied to src[i] for i < n, the same pixels as vf_remap_apply, queued on
 * ctx's stream (the caller orders that stream after whatever wrote the sources and before whatever
 * reads the results; the remaps may belong to other contexts of ctx's backend). On CUDA the host
 * sources are uploaded into their remaps' staging images on that stream (a remap must not serve
 * another stream meanwhile, and a batch names each remap once), then one launch remaps them all;
 * every dst must be a device image. On the CPU each remap in turn, as vf_remap_apply. Every job is
 * checked before anything is queued: on an error (message in the thread's last error) nothing is.
 * Exported (VF_API) for the GPU parity tests. */
VF_API vf_status vf_remap_apply_batch(vf_context* ctx, vf_remap* const* remaps,
                                      const vf_image* const* src, vf_image* const* dst, int n);

#endif
