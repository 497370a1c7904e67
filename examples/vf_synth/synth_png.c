// SPDX-License-Identifier: BSD-3-Clause
/* PNG writing for the generator's ~1000 images per 10 s sequence. vf_png_write uses libpng's
 * default settings (zlib level 6, adaptive filters), 5 to 10 times slower on these images than
 * zlib level 1 with the Sub filter, which makes files about 25% larger; generation speed
 * matters more here (the README's main job generates a sequence, then replays it). */
#include <png.h>
#include <stdio.h>

#include "synth.h"

static void synth_png_error(png_structp png, png_const_charp message) {
  fprintf(stderr, "vf_synth: libpng: %s\n", message);
  png_longjmp(png, 1);
}

static int synth_png_body(png_structp png, png_infop info, FILE* f, const vf_image* img) {
  if (setjmp(png_jmpbuf(png))) return -1;
  png_init_io(png, f);
  png_set_compression_level(png, 1);
  png_set_filter(png, 0, PNG_FILTER_SUB);
  int depth = img->format == VF_PIXEL_U16 ? 16 : 8;
  png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, depth,
               PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (depth == 16) png_set_swap(png); /* PNG is big-endian; the rows are host (little) order */
  for (int y = 0; y < img->height; ++y) {
    png_write_row(png, (png_const_bytep)img->data + (size_t)y * img->stride_bytes);
  }
  png_write_end(png, NULL);
  return 0;
}

int synth_png_write(const char* path, const vf_image* img) {
  FILE* f = fopen(path, "wb");
  if (f == NULL) {
    fprintf(stderr, "vf_synth: cannot create %s\n", path);
    return -1;
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, synth_png_error, NULL);
  png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
  int rc = info != NULL ? synth_png_body(png, info, f, img) : -1;
  if (png != NULL) png_destroy_write_struct(&png, info != NULL ? &info : NULL);
  if (fclose(f) != 0) rc = -1;
  if (rc != 0) fprintf(stderr, "vf_synth: writing %s failed\n", path);
  return rc;
}
