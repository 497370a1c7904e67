// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: hierarchical SGM (3 levels, window 7, margin 2; 8 and 16 paths) and SGM with 16
 * paths beside SGM with 8, all with the SGM defaults (CS census, P1 10, P2 120, uniqueness
 * 0.95, LR check, sub-pixel, median), and ZNCC + SGM with its defaults (3x3, 4 paths, P1 7,
 * P2 60), on the real pairs of --data: Middlebury Cones (450x375) and
 * a raw EuRoC pair (752x480), 64 disparities. HSGM's work depends on the scene (its ranges widen
 * at occlusions and where the coarser level found nothing), so the real pairs are the measure;
 * without --data, and for 1280x720 with 128 disparities (GPU only), a textured pair shifted by a
 * quarter of the range stands in (one disparity everywhere: HSGM's best case). */
#include <string.h>

#include "bench.h"

typedef struct hsgm_row {
  const char* name;
  vf_stereo_method method;
  int paths;
} hsgm_row;

static const hsgm_row hsgm_rows[] = {{"sgm8", VF_STEREO_SGM, 8},
                                     {"sgm16", VF_STEREO_SGM, 16},
                                     {"hsgm8", VF_STEREO_HSGM, 8},
                                     {"hsgm16", VF_STEREO_HSGM, 16},
                                     {"zncc3+sgm4", VF_STEREO_ZNCC_SGM, 4}};

/* Reads data/rel_left and data/rel_right (8-bit grey); 0 when absent or unreadable. */
static int read_pair(const bench_options* opt, const char* rel_left, const char* rel_right,
                     vf_image* l, vf_image* r) {
  if (opt->data_dir == NULL) return 0;
  char pl[1024], pr[1024];
  snprintf(pl, sizeof pl, "%s/%s", opt->data_dir, rel_left);
  snprintf(pr, sizeof pr, "%s/%s", opt->data_dir, rel_right);
  if (vf_png_read_gray8(pl, l) != VF_OK) return 0;
  if (vf_png_read_gray8(pr, r) == VF_OK) return 1;
  vf_image_free(l);
  return 0;
}

static int bench_hsgm_row(vf_context* ctx, const bench_options* opt, bench_out* out,
                          const hsgm_row* row, const char* scene, const vf_image* l,
                          const vf_image* r, int w, int h, int disparities) {
  vf_stereo_config c = vf_stereo_config_default_for(row->method);
  c.width = w;
  c.height = h;
  c.disparities = disparities;
  c.paths = row->paths;
  bench_stereo_job job;
  vf_status s = l != NULL ? bench_stereo_job_make(ctx, &c, l, r, &job)
                          : bench_stereo_job_synthetic(ctx, &c, disparities / 4, &job);
  bench_stats st = {0};
  if (s == VF_OK) s = bench_time(ctx, opt, bench_stereo_step, &job, &st);
  if (s == VF_OK) {
    bench_result_begin(out, "stereo", w, h, &st);
    bench_result_str(out, "method", row->name);
    bench_result_str(out, "scene", scene);
    bench_result_int(out, "disparities", disparities);
    bench_result_int(out, "paths", row->paths);
    if (row->method == VF_STEREO_HSGM) bench_result_int(out, "levels", c.hsgm.levels);
    bench_result_end(out);
  } else {
    fprintf(stderr, "stereo %s %s %dx%d: %s: %s\n", row->name, scene, w, h, vf_status_str(s),
            vf_last_error_message());
  }
  bench_stereo_job_free(&job);
  return s == VF_OK ? 0 : 1;
}

int bench_stereo_hsgm(vf_context* ctx, const bench_options* opt, bench_out* out) {
  static const struct {
    const char *scene, *left, *right;
    int w, h, disparities;
  } scenes[] = {{"cones", "middlebury/cones/im2.png", "middlebury/cones/im6.png", 450, 375, 64},
                {"euroc", "euroc/V1_01_easy_micro/mav0/cam0/data/1403715273262142976.png",
                 "euroc/V1_01_easy_micro/mav0/cam1/data/1403715273262142976.png", 752, 480, 64},
                {"synthetic", NULL, NULL, 1280, 720, 128}};
  const int cpu = vf_context_backend(ctx) != VF_BACKEND_CUDA;
  int failed = 0;
  for (int i = 0; i < 3; ++i) {
    vf_image l = {0}, r = {0};
    int w = scenes[i].w, h = scenes[i].h, nd = scenes[i].disparities;
    const int real = opt->width == 0 && scenes[i].left != NULL &&
                     read_pair(opt, scenes[i].left, scenes[i].right, &l, &r);
    if (opt->width > 0) {
      if (i > 0) break; /* --size: one synthetic pair */
      w = opt->width < 64 ? 64 : opt->width;
      h = opt->height;
    } else if (cpu && w * h > 752 * 480) {
      continue;
    }
    for (size_t k = 0; k < sizeof hsgm_rows / sizeof hsgm_rows[0]; ++k) {
      failed |= bench_hsgm_row(ctx, opt, out, &hsgm_rows[k], real ? scenes[i].scene : "synthetic",
                               real ? &l : NULL, real ? &r : NULL, w, h, nd);
    }
    vf_image_free(&l);
    vf_image_free(&r);
  }
  return failed;
}
