// SPDX-License-Identifier: BSD-3-Clause
/* Detector stage: validation, allocation at create time (per-cell results; response maps on
 * the CPU, the arc table on CUDA), dispatch to the CPU reference or the CUDA kernel, host
 * result list. */
#include <stdlib.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "core/vf_env.h"
#include "core/vf_fault.h"
#include "features/kernels/vf_fast_cpu.h"
#include "features/vf_detector_internal.h"
#include "viofront/vf_detector.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#include "features/kernels/vf_fast_cuda.h"
#endif

#define VF_DETECTOR_MAX_SIDE 32768
#define VF_DETECTOR_MAX_CELL 8192 /* cell offsets take 14 bits in the CUDA sort key */

vf_detector_config vf_detector_config_default(void) {
  vf_detector_config c = {752, 480, 10, 10, VF_FAST_SCORE_SAD_ARC, 8, 0, 2, 32, 32, 1};
  return c;
}

#define VF_DETECTOR_BAD(...) vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_create: " __VA_ARGS__)

static vf_status vf_detector_validate(const vf_detector_config* c) {
  if (c->width < 1 || c->height < 1 || c->width > VF_DETECTOR_MAX_SIDE ||
      c->height > VF_DETECTOR_MAX_SIDE) {
    return VF_DETECTOR_BAD("width x height %dx%d is outside 1..%d", c->width, c->height,
                           VF_DETECTOR_MAX_SIDE);
  }
  if (c->threshold < 1 || c->threshold > 254)
    return VF_DETECTOR_BAD("threshold %d is outside 1..254", c->threshold);
  if (c->arc_length < 9 || c->arc_length > 12)
    return VF_DETECTOR_BAD("arc_length %d is outside 9..12", c->arc_length);
  if (c->score != VF_FAST_SCORE_SAD_CIRCLE && c->score != VF_FAST_SCORE_SAD_ARC &&
      c->score != VF_FAST_SCORE_MAX_THRESHOLD) {
    return VF_DETECTOR_BAD("score %d is not a vf_fast_score", (int)c->score);
  }
  if (c->border < 3 || c->border > VF_DETECTOR_MAX_SIDE)
    return VF_DETECTOR_BAD("border %d is outside 3..%d", c->border, VF_DETECTOR_MAX_SIDE);
  if (c->min_level < 0 || c->max_level >= VF_PYRAMID_MAX_LEVELS || c->min_level > c->max_level) {
    return VF_DETECTOR_BAD("levels %d..%d are not within 0..%d in increasing order", c->min_level,
                           c->max_level, VF_PYRAMID_MAX_LEVELS - 1);
  }
  if ((c->width >> c->max_level) < 1 || (c->height >> c->max_level) < 1) {
    return VF_DETECTOR_BAD("max_level %d does not exist for a %dx%d image", c->max_level, c->width,
                           c->height);
  }
  int unit = 1 << c->max_level;
  if (c->cell_width < 1 || c->cell_width > VF_DETECTOR_MAX_CELL || c->cell_width % 32 != 0 ||
      c->cell_width % unit != 0) {
    return VF_DETECTOR_BAD(
        "cell_width %d must be a multiple of 32 and of 2^max_level = %d, "
        "at most %d",
        c->cell_width, unit, VF_DETECTOR_MAX_CELL);
  }
  if (c->cell_height < 1 || c->cell_height > VF_DETECTOR_MAX_CELL || c->cell_height % unit != 0) {
    return VF_DETECTOR_BAD(
        "cell_height %d must be a positive multiple of 2^max_level = %d, "
        "at most %d",
        c->cell_height, unit, VF_DETECTOR_MAX_CELL);
  }
  if (c->host_results != 0 && c->host_results != 1)
    return VF_DETECTOR_BAD("host_results %d is neither 0 nor 1", c->host_results);
  return VF_OK;
}

static void vf_detector_mark_empty(vf_keypoint* cells, int n) {
  for (int i = 0; i < n; ++i) {
    vf_keypoint e = {0.0f, 0.0f, 0.0f, -1, i};
    cells[i] = e;
  }
}

#ifdef VF_HAVE_CUDA
/* Two cells a block execute a fifth fewer instructions (a chunk's fixed costs are paid half as
 * often: docs/perf/detector.md) but give the GPU half as many blocks. Where the blocks of one
 * cell each would fill fewer than kPairWaves rounds of the multiprocessors (4 resident blocks
 * each), pairing leaves them idle. Measured (H200, 132 multiprocessors): 752x480 (720 blocks)
 * 13% slower paired, 1280x720 (1840) 10% faster, 1920x1080 (4080) 15% faster; on 8 of them
 * (an Orin's size) 752x480 25% faster. */
static int vf_detector_cells_per_block(const vf_detector* d) {
  enum { kPairWaves = 3, kBlocksPerSm = 4 };
  /* VF_DETECTOR_CELLS_PER_BLOCK=1 or 2 fixes the choice (measurements; the tests take both). */
  const int fixed = vf_env_digit("VF_DETECTOR_CELLS_PER_BLOCK", 1, 2);
  if (fixed > 0) return fixed;
  vf_device_info info;
  if (vf_context_device_info(d->ctx, &info) != VF_OK || info.multiprocessors < 1) return 1;
  const long groups =
      (long)d->job.cols * ((d->job.rows + d->job.rows_per_block - 1) / d->job.rows_per_block);
  const long blocks = groups * (d->job.levels > 1 ? 2 : 1);
  return blocks >= (long)kPairWaves * kBlocksPerSm * info.multiprocessors ? 2 : 1;
}

/* Rows of cells a block takes: as many as keep its cells within 32 rows (a chunk's height), at
 * most 4. Low cells one row a block each paid a chunk's fixed costs for a few rows of pixels
 * (the frontend's 32x8 birth bands: 1440 cells at 752x480). VF_DETECTOR_ROWS_PER_BLOCK=1..4
 * lowers it (measurements); never above that bound, which the kernel's row arithmetic needs. */
static int vf_detector_rows_per_block(const vf_detector* d) {
  const int fit = 32 / d->config.cell_height;
  const int rows = fit < 1 ? 1 : fit > 4 ? 4 : fit;
  const int fixed = vf_env_digit("VF_DETECTOR_ROWS_PER_BLOCK", 1, 4);
  return fixed > 0 && fixed < rows ? fixed : rows;
}

/* Device buffers, page-locked staging, and the arc table uploaded once. */
static vf_status vf_detector_create_cuda(vf_detector* d) {
  const char* what = "vf_detector_create";
  size_t cell_bytes = (size_t)d->ncells * sizeof(vf_keypoint);
  /* With host results the kernel writes the cells into mapped host memory: no device array. */
  vf_status s = VF_OK;
  if (!d->config.host_results) s = vf_device_alloc(NULL, (void**)&d->cells, cell_bytes, what);
  if (s == VF_OK) s = vf_device_alloc(NULL, (void**)&d->lut, VF_FAST_LUT_WORDS * 4, what);
  const size_t meet_bytes = (size_t)d->ncells * sizeof *d->job.meet;
  if (s == VF_OK) s = vf_device_alloc(NULL, (void**)&d->job.meet, meet_bytes, what);
  if (s != VF_OK) return s;
  int rc = vf_cuda_host_alloc_mapped((void**)&d->staged, (void**)&d->mapped_cells, cell_bytes);
  if (rc == 0) {
    rc = vf_cuda_host_alloc_mapped((void**)&d->mask_staged, (void**)&d->mapped_mask,
                                   (size_t)d->ncells);
  }
  if (rc == 0) rc = vf_cuda_event_create_untimed(&d->mask_event);
  if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_detector_create: page-locked staging");
  uint32_t lut[VF_FAST_LUT_WORDS];
  vf_fast_lut_build(d->config.arc_length, lut);
  vf_detector_mark_empty(d->staged, d->ncells);
  rc = vf_cuda_copy_async(d->lut, lut, sizeof lut, d->ctx->stream);
  if (rc == 0 && d->cells != NULL)
    rc = vf_cuda_copy_async(d->cells, d->staged, cell_bytes, d->ctx->stream);
  if (rc == 0) rc = vf_cuda_memset_async(d->job.meet, 0, meet_bytes, d->ctx->stream);
  if (rc == 0) rc = vf_cuda_stream_synchronize(d->ctx->stream);
  if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_detector_create: device initialisation");
  d->job.lut = d->lut;
  d->job.rows_per_block = vf_detector_rows_per_block(d);
  d->job.cells_per_block = vf_detector_cells_per_block(d);
  return VF_OK;
}
#endif

/* Host results and the CPU reference's response maps, zeroed: the band outside the computed
 * pixels must read 0 forever. */
static vf_status vf_detector_create_host(vf_detector* d) {
  vf_fast_job* j = &d->job;
  size_t offset[VF_FAST_MAX_LEVELS], total = 0;
  for (int l = 0; l < j->levels; ++l) {
    j->level[l].pitch = j->level[l].width;
    offset[l] = total;
    total += (size_t)j->level[l].pitch * (size_t)j->level[l].height * sizeof(float);
  }
  d->response = vf_calloc(1, total);
  d->cells = vf_malloc((size_t)d->ncells * sizeof(vf_keypoint));
  if (d->response == NULL || d->cells == NULL) {
    return vf_fail(NULL, VF_ERR_NOMEM, "vf_detector_create: %zu bytes of response maps", total);
  }
  for (int l = 0; l < j->levels; ++l) {
    j->level[l].response = (float*)((char*)d->response + offset[l]);
  }
  vf_detector_mark_empty(d->cells, d->ncells);
  return VF_OK;
}

vf_status vf_detector_create(vf_context* ctx, const vf_detector_config* config, vf_detector** out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_create: out is NULL");
  *out = NULL;
  if (ctx == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_create: ctx is NULL");
  if (config == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_create: config is NULL");
  vf_status s = vf_detector_validate(config);
  if (s != VF_OK) return s;

  vf_detector* d = vf_calloc(1, sizeof *d);
  if (d == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_detector_create: out of memory");
  d->ctx = ctx;
  d->config = *config;
  vf_grid g = {config->cell_width, config->cell_height,
               (config->width + config->cell_width - 1) / config->cell_width,
               (config->height + config->cell_height - 1) / config->cell_height};
  d->grid = g;
  d->ncells = g.cols * g.rows;
  vf_fast_job* j = &d->job;
  j->first_level = config->min_level;
  j->levels = config->max_level - config->min_level + 1;
  j->threshold = config->threshold;
  j->arc_length = config->arc_length;
  j->score = (int)config->score;
  j->border = config->border;
  j->cell_width = config->cell_width;
  j->cell_height = config->cell_height;
  j->cols = g.cols;
  j->rows = g.rows;
  for (int l = 0; l < j->levels; ++l) {
    j->level[l].width = config->width >> (config->min_level + l);
    j->level[l].height = config->height >> (config->min_level + l);
  }
  d->list = vf_malloc((size_t)d->ncells * sizeof(vf_keypoint));
  s = d->list != NULL ? VF_OK : vf_fail(NULL, VF_ERR_NOMEM, "vf_detector_create: out of memory");
#ifdef VF_HAVE_CUDA
  if (s == VF_OK && ctx->backend == VF_BACKEND_CUDA) {
    s = vf_detector_create_cuda(d);
  } else
#endif
      if (s == VF_OK) {
    s = vf_detector_create_host(d);
  }
  if (s != VF_OK) {
    vf_detector_destroy(d);
    return s;
  }
  j->cells = d->cells;
  *out = d;
  return VF_OK;
}

void vf_detector_destroy(vf_detector* d) {
  if (d == NULL) return;
  if (d->ctx->backend == VF_BACKEND_CUDA) {
#ifdef VF_HAVE_CUDA
    vf_device_free(d->cells);
    vf_device_free(d->lut);
    vf_device_free(d->job.meet);
    if (d->staged != NULL) vf_cuda_host_free(d->staged);
    if (d->mask_staged != NULL) vf_cuda_host_free(d->mask_staged);
    if (d->mask_event != NULL) vf_cuda_event_destroy(d->mask_event);
#endif
  } else {
    free(d->response);
    free(d->cells);
  }
  free(d->list);
  free(d);
}

/* Points the job at the pyramid's levels after checking it fits the configuration. */
vf_status vf_detector_use_pyramid(vf_detector* d, const char* fn, const vf_pyramid* p) {
  const vf_detector_config* c = &d->config;
  int levels = vf_pyramid_levels(p);
  if (levels <= c->max_level) {
    return vf_fail(&d->err, VF_ERR_INVALID_ARG, "%s: the pyramid has %d levels, max_level is %d",
                   fn, levels, c->max_level);
  }
  vf_memory where = d->ctx->backend == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  for (int l = 0; l < d->job.levels; ++l) {
    vf_image v;
    vf_status s = vf_pyramid_level(p, c->min_level + l, &v);
    if (s != VF_OK) return vf_fail_from_thread(&d->err, s);
    vf_fast_level* lv = &d->job.level[l];
    if (v.width != lv->width || v.height != lv->height || v.format != VF_PIXEL_U8) {
      return vf_fail(&d->err, VF_ERR_INVALID_ARG,
                     "%s: pyramid level %d is %dx%d, the detector expects %dx%d (8-bit)", fn,
                     c->min_level + l, v.width, v.height, lv->width, lv->height);
    }
    if (v.location != where) {
      return vf_fail(&d->err, VF_ERR_INVALID_ARG,
                     "%s: the pyramid lives in %s memory, the detector's backend needs %s memory "
                     "(create both from one context)",
                     fn, v.location == VF_MEMORY_HOST ? "host" : "device",
                     where == VF_MEMORY_HOST ? "host" : "device");
    }
    lv->image = v.data;
    lv->stride = v.stride_bytes;
  }
  return VF_OK;
}

static void vf_detector_compact(vf_detector* d, const vf_keypoint* cells) {
  d->count = 0;
  for (int i = 0; i < d->ncells; ++i) {
    if (cells[i].level >= 0) d->list[d->count++] = cells[i];
  }
  d->listed = 1;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_detector_detect_cuda(vf_detector* d, const char* fn, const uint8_t* occupancy,
                                         vf_memory location) {
  void* stream = d->ctx->stream;
  int rc = 0;
  const int host_mask = occupancy != NULL && location == VF_MEMORY_HOST;
  d->job.occupancy = occupancy;
  if (host_mask) {
    /* The kernel that read the mask last must have finished before it is overwritten. */
    rc = vf_cuda_event_synchronize(d->mask_event);
    if (rc == 0) memcpy(d->mask_staged, occupancy, (size_t)d->ncells);
    d->job.occupancy = d->mapped_mask;
  }
  d->job.cells = d->config.host_results ? d->mapped_cells : d->cells;
  if (rc == 0) rc = vf_cuda_fast_detect(&d->job, stream);
  if (rc == 0 && host_mask) rc = vf_cuda_event_record(d->mask_event, stream);
  if (rc != 0) return vf_cuda_fail(&d->err, rc, fn);
  return VF_OK;
}

/* The host list of a launched detection (host results only). */
static vf_status vf_detector_collect_cuda(vf_detector* d, const char* fn) {
  void* done = d->done_event;
  d->done_event = NULL;
  if (!d->config.host_results) return VF_OK;
  int rc =
      done != NULL ? vf_cuda_event_synchronize(done) : vf_cuda_stream_synchronize(d->ctx->stream);
  if (rc != 0) return vf_cuda_fail(&d->err, rc, fn);
  vf_detector_compact(d, d->staged);
  return VF_OK;
}
#endif

/* The first half of a detection (checks, then the launch or the CPU's work), its errors named
 * after fn, the public call that asked. */
static vf_status vf_detector_queue(vf_detector* d, const char* fn, const vf_pyramid* pyramid,
                                   const uint8_t* occupancy, vf_memory occupancy_location) {
  if (d == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: detector is NULL", fn);
  d->pending = 0;
  d->done_event = NULL;
  if (pyramid == NULL) return vf_fail(&d->err, VF_ERR_INVALID_ARG, "%s: pyramid is NULL", fn);
  if (occupancy_location != VF_MEMORY_HOST && occupancy_location != VF_MEMORY_DEVICE) {
    return vf_fail(&d->err, VF_ERR_INVALID_ARG, "%s: occupancy_location %d is not a vf_memory", fn,
                   (int)occupancy_location);
  }
  vf_status s = vf_detector_use_pyramid(d, fn, pyramid);
  if (s != VF_OK) return s;
  d->listed = 0;
  d->detected = 0;
#ifdef VF_HAVE_CUDA
  if (d->ctx->backend == VF_BACKEND_CUDA) {
    s = vf_detector_detect_cuda(d, fn, occupancy, occupancy_location);
    d->pending = s == VF_OK;
    return s;
  }
#endif
  if (occupancy != NULL && occupancy_location != VF_MEMORY_HOST) {
    return vf_fail(&d->err, VF_ERR_UNSUPPORTED,
                   "%s: the CPU backend takes a host occupancy mask only", fn);
  }
  d->job.occupancy = occupancy;
  vf_cpu_fast_detect(&d->job, d->ctx->pool);
  vf_detector_compact(d, d->cells);
  d->pending = 1;
  return VF_OK;
}

/* The second half: the wait for the results (CUDA) and their host list. */
static vf_status vf_detector_wait(vf_detector* d, const char* fn) {
  if (d == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: detector is NULL", fn);
  if (!d->pending) return vf_fail(&d->err, VF_ERR_STATE, "%s: no detection submitted", fn);
  d->pending = 0;
  vf_status s = VF_OK;
#ifdef VF_HAVE_CUDA
  if (d->ctx->backend == VF_BACKEND_CUDA) s = vf_detector_collect_cuda(d, fn);
#endif
  d->detected = s == VF_OK;
  return s;
}

vf_status vf_detector_submit(vf_detector* d, const vf_pyramid* pyramid, const uint8_t* occupancy,
                             vf_memory occupancy_location) {
  return vf_detector_queue(d, "vf_detector_submit", pyramid, occupancy, occupancy_location);
}

vf_status vf_detector_collect(vf_detector* d) { return vf_detector_wait(d, "vf_detector_collect"); }

vf_status vf_detector_detect(vf_detector* d, const vf_pyramid* pyramid, const uint8_t* occupancy,
                             vf_memory occupancy_location) {
  const char* fn = "vf_detector_detect";
  vf_status s = vf_detector_queue(d, fn, pyramid, occupancy, occupancy_location);
  return s == VF_OK ? vf_detector_wait(d, fn) : s;
}

vf_status vf_detector_keypoints(const vf_detector* d, const vf_keypoint** keypoints, int* count) {
  if (d == NULL || keypoints == NULL || count == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_keypoints: %s is NULL",
                   d == NULL           ? "detector"
                   : keypoints == NULL ? "keypoints"
                                       : "count");
  }
  if (!d->listed) {
    return vf_fail(NULL, VF_ERR_STATE,
                   d->detected ? "vf_detector_keypoints: host_results is 0, the results are in "
                                 "device memory (vf_detector_cells)"
                               : "vf_detector_keypoints: no successful detect yet");
  }
  *keypoints = d->list;
  *count = d->count;
  return VF_OK;
}

vf_status vf_detector_cells(const vf_detector* d, const vf_keypoint** cells) {
  if (d == NULL || cells == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_cells: %s is NULL",
                   d == NULL ? "detector" : "cells");
  }
  if (!d->detected)
    return vf_fail(NULL, VF_ERR_STATE, "vf_detector_cells: no successful detect yet");
  if (d->cells == NULL) {
    return vf_fail(NULL, VF_ERR_STATE,
                   "vf_detector_cells: host_results is 1 on CUDA, the results are in the host "
                   "list (vf_detector_keypoints)");
  }
  *cells = d->cells;
  return VF_OK;
}

vf_status vf_detector_grid(const vf_detector* d, vf_grid* grid) {
  if (d == NULL || grid == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_grid: %s is NULL",
                   d == NULL ? "detector" : "grid");
  }
  *grid = d->grid;
  return VF_OK;
}

const char* vf_detector_last_error(const vf_detector* d) {
  return d != NULL ? d->err.message : "vf_detector_last_error: detector is NULL";
}
