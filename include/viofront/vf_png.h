// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * PNG files through libpng: 8-bit grey in (camera images), 8/16-bit grey and RGB out. */
#ifndef VF_PNG_H
#define VF_PNG_H

#include <viofront/vf_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Reads an 8-bit greyscale PNG into a new host image (free with vf_image_free). Other colour
 * types or bit depths give VF_ERR_FORMAT; a missing file VF_ERR_IO. */
VF_API vf_status vf_png_read_gray8(const char* path, vf_image* out);

/** The same from a PNG file held in memory. */
VF_API vf_status vf_png_decode_gray8(const void* data, size_t size, vf_image* out);

/** Reads an 8- or 16-bit (`bits`) greyscale PNG into `image`, reusing its pixels: `image` is a
 * cleared view ({0}) or a host image it owns (from vf_image_alloc or an earlier read); when that
 * has the file's size and format it is decoded into in place, otherwise it is freed and a new
 * one allocated. On failure `image` still owns whatever buffer it holds (contents undefined):
 * free it with vf_image_free when done. For readers that decode one file after another. */
VF_API vf_status vf_png_read_gray_into(const char* path, int bits, vf_image* image);

/** Writes a host image: U8 (grey 8), U16 (grey 16) or RGB8. */
VF_API vf_status vf_png_write(const char* path, const vf_image* image);

#ifdef __cplusplus
}
#endif
#endif
