// SPDX-License-Identifier: BSD-3-Clause
/* The page-locked pixels of vf_image_alloc_pinned: a host view carries no mark of how its pixels
 * were allocated, so the allocations are remembered here for vf_image_free. */
#ifndef VF_IMAGE_PINNED_H
#define VF_IMAGE_PINNED_H

#include <stddef.h>

#include "viofront/vf_status.h"

/* How many page-locked images may live at once (a program holds a few: its camera frames). */
#define VF_IMAGE_PINNED_MAX 1024

/* Allocates `bytes` of page-locked host memory into *data and remembers it. VF_ERR_NO_DEVICE
 * without CUDA; VF_ERR_NOMEM when CUDA refuses or VF_IMAGE_PINNED_MAX images live; the message
 * names `fn`. */
vf_status vf_image_pinned_alloc(void** data, size_t bytes, const char* fn);

/* Releases `data` when vf_image_pinned_alloc allocated it and returns 1; returns 0 (and touches
 * nothing) for any other pointer. */
int vf_image_pinned_release(void* data);

#endif
