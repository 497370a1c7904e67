// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Disparity files: PFM (float, Middlebury 2014 ground truth and our float output) and 16-bit
 * grey PNG (KITTI ground truth: disparity * 256, 0 = unknown). */
#ifndef VF_DISPARITY_IO_H
#define VF_DISPARITY_IO_H

#include <viofront/vf_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Reads a one-channel PFM ("Pf") into a new F32 host image, top row first (free with
 * vf_image_free). Malformed headers or short files give VF_ERR_FORMAT; a missing file VF_ERR_IO. */
VF_API vf_status vf_pfm_read(const char* path, vf_image* out);

/** Writes an F32 host image as little-endian PFM. */
VF_API vf_status vf_pfm_write(const char* path, const vf_image* image);

/** Reads a 16-bit greyscale PNG into a new U16 host image; other types give VF_ERR_FORMAT. */
VF_API vf_status vf_png_read_gray16(const char* path, vf_image* out);

#ifdef __cplusplus
}
#endif
#endif
