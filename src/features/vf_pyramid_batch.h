// SPDX-License-Identifier: BSD-3-Clause
/* Several pyramids built at once (a rig's cameras in a frame, issue 37): on CUDA one launch for
 * all of them instead of one a camera. */
#ifndef VF_PYRAMID_BATCH_H
#define VF_PYRAMID_BATCH_H

#include "core/vf_context_internal.h"
#include "viofront/vf_pyramid.h"

/* The most pyramids one call takes. */
#define VF_PYRAMID_BATCH_MAX 32

/* pyramids[i] built from images[i] for i < n, the same pixels as vf_pyramid_build, queued on
 * ctx's stream (the caller orders that stream after whatever wrote the images and before whatever
 * reads the levels; the pyramids may belong to other contexts of ctx's backend). On CUDA a host
 * image is uploaded into its pyramid's level 0 on that stream, then one launch builds up to 8
 * pyramids of 2 to 6 levels and one block layout. On the CPU each in turn, as vf_pyramid_build.
 * Every job is checked before anything is queued: on an error (message in the thread's last
 * error) nothing is. Exported (VF_API) for the GPU parity tests. */
VF_API vf_status vf_pyramid_build_batch(vf_context* ctx, vf_pyramid* const* pyramids,
                                        const vf_image* const* images, int n);

#endif
