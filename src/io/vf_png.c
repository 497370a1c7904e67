// SPDX-License-Identifier: BSD-3-Clause
/* PNG reading (grey camera images at 8 bits, disparity ground truth at 16) and writing (grey
 * 8/16, RGB) through libpng. One reader serves both depths. libpng reports errors by longjmp, so
 * every libpng call sits behind setjmp and a failure frees what was allocated. */
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_error.h"
#include "core/vf_fault.h"
#include "viofront/vf_disparity_io.h"
#include "viofront/vf_png.h"

/* libpng's default handlers print to stderr; the library never prints, so errors only jump
 * back to our setjmp and warnings are dropped. */
static void vf_png_on_error(png_structp png, png_const_charp message) {
  (void)message;
  png_longjmp(png, 1);
}

static void vf_png_on_warning(png_structp png, png_const_charp message) {
  (void)png;
  (void)message;
}

/* Everything libpng touches after setjmp lives in this struct. */
typedef struct vf_png_read_state {
  const char* fn;     /* the public entry point, for messages */
  const char* path;   /* the file, or "(memory)" */
  int depth;          /* the bit depth wanted: 8 or 16 */
  FILE* file;         /* reading a file, or else ... */
  const uint8_t* mem; /* ... a buffer in memory */
  size_t mem_size;
  size_t mem_pos;
  png_structp png;
  png_infop info;
  png_bytep* rows;
  vf_image image;
} vf_png_read_state;

static void vf_png_read_memory(png_structp png, png_bytep out, size_t n) {
  vf_png_read_state* st = png_get_io_ptr(png);
  if (n > st->mem_size - st->mem_pos) png_error(png, "read past the end of the buffer");
  memcpy(out, st->mem + st->mem_pos, n);
  st->mem_pos += n;
}

/* Split from the callers so that no local of theirs is modified after setjmp. */
static vf_status vf_png_read_body(vf_png_read_state* st) {
  if (setjmp(png_jmpbuf(st->png))) {
    return vf_fail(NULL, VF_ERR_FORMAT, "%s: %s: corrupt or truncated PNG", st->fn, st->path);
  }
  if (st->file != NULL) {
    png_init_io(st->png, st->file);
  } else {
    png_set_read_fn(st->png, st, vf_png_read_memory);
  }
  png_read_info(st->png, st->info);
  png_uint_32 w = png_get_image_width(st->png, st->info);
  png_uint_32 h = png_get_image_height(st->png, st->info);
  int depth = png_get_bit_depth(st->png, st->info);
  int type = png_get_color_type(st->png, st->info);
  if (type != PNG_COLOR_TYPE_GRAY || depth != st->depth) {
    return vf_fail(NULL, VF_ERR_FORMAT, "%s: %s: colour type %d, bit depth %d; need %d-bit grey",
                   st->fn, st->path, type, depth, st->depth);
  }
  /* 64 Mpixel at most: a forged header must not make us allocate gigabytes. */
  if (w == 0 || h == 0 || w > 32768 || h > 32768 || (uint64_t)w * h > ((uint64_t)1 << 26)) {
    return vf_fail(NULL, VF_ERR_FORMAT, "%s: %s: size %ux%u out of range", st->fn, st->path,
                   (unsigned)w, (unsigned)h);
  }
  const uint16_t one = 1;
  if (depth == 16 && *(const uint8_t*)&one == 1) png_set_swap(st->png); /* PNG is big-endian */
  if (png_get_interlace_type(st->png, st->info) != PNG_INTERLACE_NONE) {
    png_set_interlace_handling(st->png);
  }
  png_read_update_info(st->png, st->info);
  vf_pixel_format format = depth == 16 ? VF_PIXEL_U16 : VF_PIXEL_U8;
  /* A buffer of the right shape (a reused one) is decoded into as it is. */
  if (st->image.data == NULL || st->image.width != (int)w || st->image.height != (int)h ||
      st->image.format != format) {
    vf_image_free(&st->image);
    vf_status s = vf_image_alloc(&st->image, (int)w, (int)h, format, VF_MEMORY_HOST);
    if (s != VF_OK) return s;
  }
  st->rows = vf_malloc(sizeof(png_bytep) * h);
  if (st->rows == NULL) {
    return vf_fail(NULL, VF_ERR_NOMEM, "%s: row table for %s", st->fn, st->path);
  }
  for (png_uint_32 y = 0; y < h; ++y) {
    st->rows[y] = (png_bytep)st->image.data + (size_t)y * st->image.stride_bytes;
  }
  png_read_image(st->png, st->rows);
  png_read_end(st->png, NULL);
  return VF_OK;
}

/* Creates the libpng structures, reads, and frees everything but the image, which goes to out
 * on success; on failure it is freed, or with `keep` (a caller's reused buffer) handed back. */
static vf_status vf_png_read_run(vf_png_read_state* st, vf_image* out, int keep) {
  st->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, vf_png_on_error, vf_png_on_warning);
  if (st->png != NULL) st->info = png_create_info_struct(st->png);
  vf_status s = st->info != NULL ? vf_png_read_body(st)
                                 : vf_fail(NULL, VF_ERR_NOMEM, "%s: libpng init", st->fn);
  if (st->png != NULL) png_destroy_read_struct(&st->png, st->info != NULL ? &st->info : NULL, NULL);
  if (st->file != NULL) fclose(st->file);
  free(st->rows);
  if (s == VF_OK || keep) {
    *out = st->image;
  } else {
    vf_image_free(&st->image);
  }
  return s;
}

/* Reads a grey PNG file of the given bit depth (8 or 16) for the entry point fn into `out`,
 * which holds a buffer to reuse when `keep` (else it is cleared first). */
static vf_status vf_png_read_file(const char* fn, const char* path, int depth, vf_image* out,
                                  int keep) {
  if (path == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: %s is NULL", fn, path == NULL ? "path" : "out");
  }
  if (!keep) memset(out, 0, sizeof *out);
  vf_png_read_state st;
  memset(&st, 0, sizeof st);
  st.fn = fn;
  st.path = path;
  st.depth = depth;
  st.image = *out;
  st.file = fopen(path, "rb");
  if (st.file == NULL) return vf_fail(NULL, VF_ERR_IO, "%s: cannot open %s", fn, path);
  unsigned char sig[8];
  if (fread(sig, 1, 8, st.file) != 8 || png_sig_cmp(sig, 0, 8) != 0) {
    fclose(st.file);
    return vf_fail(NULL, VF_ERR_FORMAT, "%s: %s is not a PNG file", fn, path);
  }
  rewind(st.file);
  return vf_png_read_run(&st, out, keep);
}

vf_status vf_png_read_gray8(const char* path, vf_image* out) {
  return vf_png_read_file("vf_png_read_gray8", path, 8, out, 0);
}

/* Declared with the disparity files (vf_disparity_io.h): KITTI ground truth is 16-bit grey. */
vf_status vf_png_read_gray16(const char* path, vf_image* out) {
  return vf_png_read_file("vf_png_read_gray16", path, 16, out, 0);
}

vf_status vf_png_read_gray_into(const char* path, int bits, vf_image* image) {
  if (bits != 8 && bits != 16) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_png_read_gray_into: bits %d is not 8 or 16", bits);
  }
  if (image != NULL && image->data != NULL && image->location != VF_MEMORY_HOST) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_png_read_gray_into: image is not in host memory");
  }
  return vf_png_read_file("vf_png_read_gray_into", path, bits, image, 1);
}

vf_status vf_png_decode_gray8(const void* data, size_t size, vf_image* out) {
  if (data == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_png_decode_gray8: %s is NULL",
                   data == NULL ? "data" : "out");
  }
  memset(out, 0, sizeof *out);
  if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
    return vf_fail(NULL, VF_ERR_FORMAT, "vf_png_decode_gray8: buffer is not a PNG");
  }
  vf_png_read_state st;
  memset(&st, 0, sizeof st);
  st.fn = "vf_png_decode_gray8";
  st.path = "(memory)";
  st.depth = 8;
  st.mem = data;
  st.mem_size = size;
  return vf_png_read_run(&st, out, 0);
}

typedef struct vf_png_write_state {
  FILE* file;
  png_structp png;
  png_infop info;
  uint8_t* row16; /* big-endian copy of one 16-bit row */
} vf_png_write_state;

static vf_status vf_png_write_body(const char* path, const vf_image* img, vf_png_write_state* st) {
  if (setjmp(png_jmpbuf(st->png))) {
    return vf_fail(NULL, VF_ERR_IO, "vf_png_write: %s: libpng write failed", path);
  }
  png_init_io(st->png, st->file);
  int type = img->format == VF_PIXEL_RGB8 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY;
  int depth = img->format == VF_PIXEL_U16 ? 16 : 8;
  png_set_IHDR(st->png, st->info, (png_uint_32)img->width, (png_uint_32)img->height, depth, type,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(st->png, st->info);
  for (int y = 0; y < img->height; ++y) {
    const uint8_t* row = (const uint8_t*)img->data + (size_t)y * img->stride_bytes;
    if (depth == 16) {
      const uint16_t* r16 = (const uint16_t*)row;
      for (int x = 0; x < img->width; ++x) {
        st->row16[2 * x] = (uint8_t)(r16[x] >> 8);
        st->row16[2 * x + 1] = (uint8_t)(r16[x] & 0xff);
      }
      row = st->row16;
    }
    png_write_row(st->png, (png_const_bytep)row);
  }
  png_write_end(st->png, NULL);
  return VF_OK;
}

vf_status vf_png_write(const char* path, const vf_image* image) {
  if (path == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_png_write: path is NULL");
  vf_status s = vf_image_check(image, "vf_png_write");
  if (s != VF_OK) return s;
  if (image->location != VF_MEMORY_HOST || image->format == VF_PIXEL_F32) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_png_write: needs a host image of format U8, U16 or RGB8");
  }
  vf_png_write_state st;
  memset(&st, 0, sizeof st);
  if (image->format == VF_PIXEL_U16) {
    st.row16 = vf_malloc((size_t)image->width * 2);
    if (st.row16 == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_png_write: row buffer");
  }
  st.file = fopen(path, "wb");
  if (st.file == NULL) {
    free(st.row16);
    return vf_fail(NULL, VF_ERR_IO, "vf_png_write: cannot create %s", path);
  }
  st.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, vf_png_on_error, vf_png_on_warning);
  if (st.png != NULL) st.info = png_create_info_struct(st.png);
  s = st.info != NULL ? vf_png_write_body(path, image, &st)
                      : vf_fail(NULL, VF_ERR_NOMEM, "vf_png_write: libpng init");
  if (st.png != NULL) png_destroy_write_struct(&st.png, st.info != NULL ? &st.info : NULL);
  if (fclose(st.file) != 0 && s == VF_OK)
    s = vf_fail(NULL, VF_ERR_IO, "vf_png_write: closing %s", path);
  free(st.row16);
  return s;
}
