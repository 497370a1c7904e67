// SPDX-License-Identifier: BSD-3-Clause
/* EuRoC reader: opening (calibration, CSV files, missing-file check, stereo pairing by
 * timestamp) and accessors. Replay lives in vf_euroc_stream.c, ground truth in vf_euroc_gt.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/vf_fault.h"
#include "core/vf_parallel.h"
#include "io/vf_euroc_internal.h"
#include "vf_euroc_internal.h"
#include "viofront/vf_config.h"

/* Missing files beyond this many are counted but not each warned about. */
#define VF_EUROC_MAX_WARNINGS 10

vf_euroc_config vf_euroc_config_default(void) {
  const int cores = vf_cpu_cores();
  vf_euroc_config c = {1000000, 8, cores > 8 ? 8 : cores, 0};
  return c;
}

static int vf_is_dir(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int vf_is_file(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* `path` may be the folder holding mav0 or mav0 itself. */
static vf_status vf_euroc_find_root(vf_euroc* e, const char* path) {
  if (!vf_is_dir(path)) return vf_fail(NULL, VF_ERR_IO, "vf_euroc_open: %s is not a folder", path);
  if (strlen(path) > 900) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_open: path too long");
  snprintf(e->root, sizeof e->root, "%s/mav0", path);
  if (!vf_is_dir(e->root)) snprintf(e->root, sizeof e->root, "%s", path);
  char probe[2048];
  snprintf(probe, sizeof probe, "%s/cam0", e->root);
  if (!vf_is_dir(probe)) {
    return vf_fail(NULL, VF_ERR_IO, "vf_euroc_open: %s has neither mav0/cam0 nor cam0", path);
  }
  return VF_OK;
}

static vf_status vf_euroc_read_calibration(vf_euroc* e) {
  char path[2048];
  for (int k = 0; k < 2; ++k) {
    snprintf(path, sizeof path, "%s/cam%d/sensor.yaml", e->root, k);
    vf_status s = vf_sensor_yaml_read_camera(path, e->log, &e->cam[k]);
    if (s != VF_OK) return s;
  }
  snprintf(path, sizeof path, "%s/imu0/sensor.yaml", e->root);
  return vf_sensor_yaml_read_imu(path, e->log, &e->imu_calib);
}

/* Drops rows whose image file does not exist, warning about each (up to a limit). */
static void vf_euroc_drop_missing(vf_euroc* e, int cam, vf_euroc_image* rows, int* count) {
  int kept = 0;
  for (int i = 0; i < *count; ++i) {
    char path[2048];
    snprintf(path, sizeof path, "%s/cam%d/data/%s", e->root, cam, rows[i].name);
    if (vf_is_file(path)) {
      rows[kept++] = rows[i];
      continue;
    }
    if (++e->info.cam_missing[cam] <= VF_EUROC_MAX_WARNINGS) {
      vf_log(e->log, VF_LOG_WARN, "EuRoC: cam%d/data.csv names %s, which does not exist (dropped)",
             cam, rows[i].name);
    }
  }
  if (e->info.cam_missing[cam] > VF_EUROC_MAX_WARNINGS) {
    vf_log(e->log, VF_LOG_WARN, "EuRoC: cam%d: %d missing image files in all", cam,
           e->info.cam_missing[cam]);
  }
  *count = kept;
}

/* Two-pointer merge of the sorted lists: |t0 - t1| <= tolerance makes a pair. */
static vf_status vf_euroc_pair_up(vf_euroc* e, const vf_euroc_image* a, int na,
                                  const vf_euroc_image* b, int nb) {
  int cap = na < nb ? na : nb;
  e->pair = vf_malloc(sizeof *e->pair * (size_t)(cap > 0 ? cap : 1));
  if (e->pair == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_euroc_open: %d pairs", cap);
  int i = 0, j = 0, n = 0;
  while (i < na && j < nb) {
    int64_t d = a[i].t_ns - b[j].t_ns;
    if (d >= -e->config.stereo_tolerance_ns && d <= e->config.stereo_tolerance_ns) {
      e->pair[n].t_ns = a[i].t_ns;
      e->pair[n].name[0] = a[i++].name;
      e->pair[n++].name[1] = b[j++].name;
    } else if (d < 0) {
      ++i;
      ++e->info.cam_unpaired[0];
    } else {
      ++j;
      ++e->info.cam_unpaired[1];
    }
  }
  e->info.cam_unpaired[0] += na - i;
  e->info.cam_unpaired[1] += nb - j;
  e->info.stereo_pairs = n;
  if (n == 0) {
    return vf_fail(NULL, VF_ERR_FORMAT,
                   "vf_euroc_open: %s: no stereo pair (cam0 %d, cam1 %d images)", e->root, na, nb);
  }
  if (e->info.cam_unpaired[0] + e->info.cam_unpaired[1] > 0) {
    vf_log(e->log, VF_LOG_WARN, "EuRoC: %d cam0 and %d cam1 images have no partner (dropped)",
           e->info.cam_unpaired[0], e->info.cam_unpaired[1]);
  }
  e->info.t_first_ns = e->pair[0].t_ns;
  e->info.t_last_ns = e->pair[n - 1].t_ns;
  return VF_OK;
}

static vf_status vf_euroc_load(vf_euroc* e, const char* path) {
  vf_status s = vf_euroc_find_root(e, path);
  if (s == VF_OK) s = vf_euroc_read_calibration(e);
  if (s != VF_OK) return s;
  vf_euroc_image* rows[2] = {NULL, NULL};
  int count[2] = {0, 0};
  for (int k = 0; k < 2 && s == VF_OK; ++k) {
    s = vf_euroc_read_camera_csv(e, k, &rows[k], &count[k]);
    if (s == VF_OK) {
      e->info.cam_rows[k] = count[k];
      vf_euroc_drop_missing(e, k, rows[k], &count[k]);
    }
  }
  if (s == VF_OK) s = vf_euroc_pair_up(e, rows[0], count[0], rows[1], count[1]);
  free(rows[0]);
  free(rows[1]);
  if (s == VF_OK) s = vf_euroc_read_imu_csv(e, e->info.t_first_ns, e->info.t_last_ns);
  if (s == VF_OK) s = vf_euroc_read_gt_csv(e);
  return s;
}

vf_status vf_euroc_open(const char* path, const vf_euroc_config* config, const vf_context* log,
                        vf_euroc** out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_open: out is NULL");
  *out = NULL;
  if (path == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_open: path is NULL");
  vf_euroc_config cfg = config != NULL ? *config : vf_euroc_config_default();
  if (cfg.stereo_tolerance_ns < 0 || cfg.stereo_tolerance_ns > 1000000000 || cfg.prefetch < 0 ||
      cfg.prefetch > VF_EUROC_MAX_PREFETCH) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_euroc_open: stereo_tolerance_ns %lld (0..1e9) or prefetch %d (0..%d) out "
                   "of range",
                   (long long)cfg.stereo_tolerance_ns, cfg.prefetch, VF_EUROC_MAX_PREFETCH);
  }
  if (cfg.pinned != 0 && cfg.pinned != 1) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_open: pinned %d is not 0 or 1", cfg.pinned);
  }
  if (cfg.decode_threads < 0 || cfg.decode_threads > VF_EUROC_MAX_THREADS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_open: decode_threads %d is outside 0..%d",
                   cfg.decode_threads, VF_EUROC_MAX_THREADS);
  }
  vf_euroc* e = vf_calloc(1, sizeof *e);
  if (e == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_euroc_open: out of memory");
  e->config = cfg;
  e->log = log;
  e->held_pair = -1;
  vf_status s = vf_euroc_load(e, path);
  if (s == VF_OK) s = vf_euroc_stream_start(e);
  if (s != VF_OK) {
    vf_euroc_close(e);
    return s;
  }
  vf_log(log, VF_LOG_INFO, "EuRoC %s: %d stereo pairs, %d IMU samples replayed, %d skipped",
         e->root, e->info.stereo_pairs, e->info.imu_replayed, e->info.imu_skipped);
  *out = e;
  return VF_OK;
}

void vf_euroc_close(vf_euroc* e) {
  if (e == NULL) return;
  vf_euroc_stream_destroy(e);
  vf_csv_close(&e->cam_csv[0]);
  vf_csv_close(&e->cam_csv[1]);
  free(e->pair);
  free(e->imu);
  free(e->gt);
  free(e);
}

vf_status vf_euroc_get_info(const vf_euroc* e, vf_euroc_info* out) {
  if (e == NULL || out == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_get_info: NULL argument");
  *out = e->info;
  return VF_OK;
}

vf_status vf_euroc_camera(const vf_euroc* e, int which, vf_camera* out) {
  if (e == NULL || out == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_camera: NULL argument");
  if (which != 0 && which != 1) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_camera: camera %d is not 0 or 1", which);
  }
  *out = e->cam[which];
  return VF_OK;
}

vf_status vf_euroc_imu_calib(const vf_euroc* e, vf_imu_calib* out) {
  if (e == NULL || out == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_imu_calib: NULL argument");
  *out = e->imu_calib;
  return VF_OK;
}

vf_status vf_euroc_load_pair(const vf_euroc* e, int pair, int64_t* t_ns, vf_image* left,
                             vf_image* right) {
  if (e == NULL || left == NULL || right == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_load_pair: NULL argument");
  }
  if (pair < 0 || pair >= e->info.stereo_pairs) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_load_pair: pair %d is outside 0..%d", pair,
                   e->info.stereo_pairs - 1);
  }
  vf_euroc_slot slot;
  memset(&slot, 0, sizeof slot);
  vf_euroc_decode(e, pair, &slot);
  if (slot.status != VF_OK) {
    vf_image_free(&slot.image[0]);
    vf_image_free(&slot.image[1]);
    return vf_fail(NULL, slot.status, "%s", slot.message);
  }
  if (t_ns != NULL) *t_ns = e->pair[pair].t_ns;
  *left = slot.image[0];
  *right = slot.image[1];
  return VF_OK;
}

const char* vf_euroc_last_error(const vf_euroc* e) {
  return e != NULL ? e->err.message : "vf_euroc_last_error: reader is NULL";
}
