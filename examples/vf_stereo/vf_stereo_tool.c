// SPDX-License-Identifier: BSD-3-Clause
/* vf_stereo: disparity of one rectified pair and, with ground truth, its evaluation.
 *
 *   vf_stereo LEFT.png RIGHT.png [--out PREFIX] [--backend auto|cpu|cuda]
 *             [--method sgm|hsgm|zncc|zncc-sgm|census|cyclops] [--min N] [--disparities N]
 * [--no-median] SGM:      [--paths 2|4|8|16] [--census cs|full] [--p1 N] [--p2 N] [--adaptive-p2]
 *                       [--uniqueness F] [--lr-max-diff N] [--no-lr] [--no-subpixel]
 *             hsgm:     the SGM options and [--levels N] [--window N] [--margin N]
 *             zncc, zncc-sgm: [--window N] [--sums auto|direct|integral]
 *             census:   [--census cs|full]
 *             FastDT:   [--sigma-s F] [--sigma-r F] [--fastdt16] [--no-fastdt]
 *             cyclops:  [--weight md|rma|mns] [--block WxH] [--kernel-step N]
 *                       [--disparity-step N] [--rma-max-log2 N] [--global-memory]
 *             [--gt FILE [--gt-right FILE] [--gt-scale S]] [--threads N] [--repeat N] [--quiet]
 *
 * --method picks the method and its defaults (vf_stereo_config_default_for); the other options
 * change them. Writes PREFIX.png (16-bit, as vf_stereo returns it), PREFIX.pfm (float pixels, NaN
 * where invalid) and PREFIX_color.png (jet colour map, invalid black). Ground
 * truth: PFM, KITTI 16-bit PNG (value / 256) or 8-bit PNG (value / --gt-scale, default 4 as
 * Middlebury 2003); --gt-right enables the non-occlusion mask of ../shared/docs/DATA.md.
 * --threads sets the CPU backend's worker threads; --repeat N times N more computations of the
 * 16-bit disparity after the first and prints their times (scripts/bench_opencv_sgm.py). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <viofront/viofront.h>

#include "example_log.h"
#include "stereo_eval.h"

static int usage(void) {
  fprintf(stderr,
          "usage: vf_stereo LEFT RIGHT [--out PREFIX] [--backend auto|cpu|cuda]\n"
          "       [--method sgm|hsgm|zncc|zncc-sgm|census|cyclops] [--min N] [--disparities N]\n"
          "       [--no-median] [--paths 2|4|8|16] [--census cs|full] [--p1 N] [--p2 N]\n"
          "       [--adaptive-p2] [--levels N] [--window N] [--margin N]\n"
          "       [--uniqueness F] [--lr-max-diff N] [--no-lr] [--no-subpixel]\n"
          "       [--window N] [--sums auto|direct|integral] [--sigma-s F] [--sigma-r F]\n"
          "       [--fastdt16] [--no-fastdt] [--weight md|rma|mns] [--block WxH]\n"
          "       [--kernel-step N] [--disparity-step N] [--rma-max-log2 N] [--global-memory]\n"
          "       [--gt FILE [--gt-right FILE] [--gt-scale S]] [--threads N] [--repeat N]\n"
          "       [--quiet]\n");
  return 2;
}

static const char* const method_names[] = {"sgm", "zncc", "cyclops", "hsgm", "census", "zncc-sgm"};

/* Index of `v` in `names` (n of them), or -1. */
static int pick(const char* v, const char* const* names, int n) {
  for (int i = 0; i < n; ++i) {
    if (strcmp(v, names[i]) == 0) return i;
  }
  return -1;
}

/* The method named after --method (SGM when absent); -1 for an unknown name. */
static int find_method(int argc, char** argv) {
  for (int i = 3; i + 1 < argc; ++i) {
    if (strcmp(argv[i], "--method") == 0) return pick(argv[i + 1], method_names, 6);
  }
  return VF_STEREO_SGM;
}

/* The options of the other methods: 1 for a flag, 2 for an option that took `v`, 0 for neither,
 * -1 for a bad value. */
static int parse_method_option(const char* a, const char* v, vf_stereo_config* c) {
  static const char* const sums[] = {"auto", "direct", "integral"};
  static const char* const weights[] = {"md", "rma", "mns"};
  if (strcmp(a, "--fastdt16") == 0) {
    c->fastdt.pack8 = 0;
    return 1;
  }
  if (strcmp(a, "--no-fastdt") == 0) {
    c->fastdt.enabled = 0;
    return 1;
  }
  if (strcmp(a, "--global-memory") == 0) {
    c->cyclops.memory = VF_CYCLOPS_GLOBAL;
    return 1;
  }
  if (v == NULL) return 0;
  int k;
  if (strcmp(a, "--window") == 0) {
    /* The window of the chosen method: ZNCC's matching window or HSGM's range window. */
    c->zncc.window = atoi(v);
    c->hsgm.window = atoi(v);
  } else if (strcmp(a, "--levels") == 0) {
    c->hsgm.levels = atoi(v);
  } else if (strcmp(a, "--margin") == 0) {
    c->hsgm.margin = atoi(v);
  } else if (strcmp(a, "--sums") == 0) {
    if ((k = pick(v, sums, 3)) < 0) return -1;
    c->zncc.sums = (vf_zncc_sums)k;
  } else if (strcmp(a, "--sigma-s") == 0) {
    c->fastdt.sigma_s = (float)atof(v);
  } else if (strcmp(a, "--sigma-r") == 0) {
    c->fastdt.sigma_r = (float)atof(v);
  } else if (strcmp(a, "--weight") == 0) {
    if ((k = pick(v, weights, 3)) < 0) return -1;
    c->cyclops.weight = (vf_cyclops_weight)k;
  } else if (strcmp(a, "--block") == 0) {
    if (sscanf(v, "%dx%d", &c->cyclops.mns_width, &c->cyclops.mns_height) != 2) return -1;
  } else if (strcmp(a, "--kernel-step") == 0) {
    c->cyclops.kernel_step = atoi(v);
  } else if (strcmp(a, "--disparity-step") == 0) {
    c->cyclops.disparity_step = atoi(v);
  } else if (strcmp(a, "--rma-max-log2") == 0) {
    c->cyclops.rma_max_log2 = atoi(v);
  } else {
    return 0;
  }
  return 2;
}

/* Jet colour map of v in [0, 1]. */
static void jet(float v, unsigned char* rgb) {
  float r = 1.5f - fabsf(4.0f * v - 3.0f), g = 1.5f - fabsf(4.0f * v - 2.0f),
        b = 1.5f - fabsf(4.0f * v - 1.0f);
  rgb[0] = (unsigned char)(255.0f * fminf(fmaxf(r, 0.0f), 1.0f));
  rgb[1] = (unsigned char)(255.0f * fminf(fmaxf(g, 0.0f), 1.0f));
  rgb[2] = (unsigned char)(255.0f * fminf(fmaxf(b, 0.0f), 1.0f));
}

static vf_status write_outputs(const char* prefix, const vf_stereo_config* c, const vf_image* d16,
                               const vf_image* df) {
  char path[1024];
  snprintf(path, sizeof path, "%s.png", prefix);
  vf_status s = vf_png_write(path, d16);
  snprintf(path, sizeof path, "%s.pfm", prefix);
  if (s == VF_OK) s = vf_pfm_write(path, df);
  vf_image rgb;
  if (s == VF_OK) s = vf_image_alloc(&rgb, c->width, c->height, VF_PIXEL_RGB8, VF_MEMORY_HOST);
  if (s != VF_OK) return s;
  float lo = (float)c->min_disparity, range = (float)c->disparities;
  for (int y = 0; y < c->height; ++y) {
    const float* in = (const float*)((const unsigned char*)df->data + (size_t)y * df->stride_bytes);
    unsigned char* o = (unsigned char*)rgb.data + (size_t)y * rgb.stride_bytes;
    for (int x = 0; x < c->width; ++x) {
      if (isnan(in[x])) {
        o[3 * x] = o[3 * x + 1] = o[3 * x + 2] = 0;
      } else {
        jet((in[x] - lo) / range, o + 3 * x);
      }
    }
  }
  snprintf(path, sizeof path, "%s_color.png", prefix);
  s = vf_png_write(path, &rgb);
  vf_image_free(&rgb);
  return s;
}

/* Times `runs` computations of the 16-bit disparity alone (the float output is a conversion
 * OpenCV's comparison does not make) and prints the milliseconds of each. */
static vf_status time_runs(vf_context* ctx, vf_stereo* st, const vf_image* l, const vf_image* r,
                           vf_image* d16, int runs) {
  vf_timer* timer = NULL;
  vf_status s = vf_timer_create(ctx, &timer);
  if (s == VF_OK) printf("times_ms:");
  for (int i = 0; s == VF_OK && i < runs; ++i) {
    double ms = 0.0;
    s = vf_timer_start(timer);
    if (s == VF_OK) s = vf_stereo_compute(st, l, r, d16, NULL);
    if (s == VF_OK) s = vf_timer_stop(timer, &ms);
    if (s == VF_OK) printf(" %.3f", ms);
  }
  if (s == VF_OK) printf("\n");
  vf_timer_destroy(timer);
  return s;
}

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const char *out = "disparity", *gt = NULL, *gt_right = NULL;
  float gt_scale = 4.0f;
  int quiet = 0, repeat = 0;
  vf_context_config cc = vf_context_config_default();
  const int method = find_method(argc, argv);
  if (method < 0) return usage();
  vf_stereo_config c = vf_stereo_config_default_for((vf_stereo_method)method);
  for (int i = 3; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    const int used = parse_method_option(a, v, &c);
    if (used < 0) return usage();
    if (used > 0) {
      i += used - 1;
      continue;
    }
    int flag = 1;
    if (strcmp(a, "--adaptive-p2") == 0)
      c.adaptive_p2 = 1;
    else if (strcmp(a, "--no-lr") == 0)
      c.lr_check = 0;
    else if (strcmp(a, "--no-subpixel") == 0)
      c.subpixel = 0;
    else if (strcmp(a, "--no-median") == 0)
      c.median = 0;
    else if (strcmp(a, "--quiet") == 0)
      quiet = 1;
    else
      flag = 0;
    if (flag) continue;
    if (v == NULL) return usage();
    if (strcmp(a, "--out") == 0)
      out = v;
    else if (strcmp(a, "--method") == 0)
      ; /* read by find_method */
    else if (strcmp(a, "--backend") == 0)
      cc.backend = strcmp(v, "cpu") == 0    ? VF_BACKEND_CPU
                   : strcmp(v, "cuda") == 0 ? VF_BACKEND_CUDA
                                            : VF_BACKEND_AUTO;
    else if (strcmp(a, "--min") == 0)
      c.min_disparity = atoi(v);
    else if (strcmp(a, "--disparities") == 0)
      c.disparities = atoi(v);
    else if (strcmp(a, "--paths") == 0)
      c.paths = atoi(v);
    else if (strcmp(a, "--census") == 0)
      c.census = strcmp(v, "full") == 0 ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
    else if (strcmp(a, "--p1") == 0)
      c.p1 = atoi(v);
    else if (strcmp(a, "--p2") == 0)
      c.p2 = atoi(v);
    else if (strcmp(a, "--uniqueness") == 0)
      c.uniqueness = (float)atof(v);
    else if (strcmp(a, "--lr-max-diff") == 0)
      c.lr_max_diff = atoi(v);
    else if (strcmp(a, "--gt") == 0)
      gt = v;
    else if (strcmp(a, "--gt-right") == 0)
      gt_right = v;
    else if (strcmp(a, "--gt-scale") == 0)
      gt_scale = (float)atof(v);
    else if (strcmp(a, "--threads") == 0)
      cc.cpu_threads = atoi(v);
    else if (strcmp(a, "--repeat") == 0)
      repeat = atoi(v);
    else
      return usage();
    ++i;
  }
  vf_image l = {0}, r = {0}, d16 = {0}, df = {0}, g = {0}, gr = {0};
  vf_context* ctx = NULL;
  vf_stereo* st = NULL;
  vf_status s = vf_png_read_gray8(argv[1], &l);
  if (s == VF_OK) s = vf_png_read_gray8(argv[2], &r);
  example_log_install(&cc, "vf_stereo", quiet);
  if (s == VF_OK) s = vf_context_create(&cc, &ctx);
  c.width = l.width;
  c.height = l.height;
  if (s == VF_OK) s = vf_stereo_create(ctx, &c, &st);
  if (s == VF_OK) s = vf_image_alloc(&d16, c.width, c.height, VF_PIXEL_U16, VF_MEMORY_HOST);
  if (s == VF_OK) s = vf_image_alloc(&df, c.width, c.height, VF_PIXEL_F32, VF_MEMORY_HOST);
  if (s == VF_OK) s = vf_stereo_compute(st, &l, &r, &d16, &df);
  if (s == VF_OK) s = write_outputs(out, &c, &d16, &df);
  if (s == VF_OK) {
    printf(
        "vf_stereo: %s backend, %s, %dx%d, disparities %d..%d: wrote %s.png, %s.pfm, "
        "%s_color.png\n",
        vf_backend_name(vf_context_backend(ctx)), method_names[method], c.width, c.height,
        c.min_disparity, c.min_disparity + c.disparities - 1, out, out, out);
  }
  if (s == VF_OK && repeat > 0) s = time_runs(ctx, st, &l, &r, &d16, repeat);
  if (s == VF_OK && gt != NULL) {
    s = stereo_read_truth(gt, gt_scale, &g);
    if (s == VF_OK && gt_right != NULL) s = stereo_read_truth(gt_right, gt_scale, &gr);
    stereo_eval e;
    if (s == VF_OK) s = stereo_evaluate(&df, &g, gt_right != NULL ? &gr : NULL, &e);
    if (s == VF_OK) {
      printf(
          "evaluated %ld pixels: bad-1 %.2f%%  bad-2 %.2f%%  bad-3 %.2f%%  bad-4 %.2f%%  "
          "bad-2 (valid) %.2f%%  density %.1f%%  MAE %.3f px\n",
          e.pixels, e.bad[1], e.bad[2], e.bad[3], e.bad[4], e.bad2_valid, e.density, e.mae);
    }
  }
  if (s != VF_OK) fprintf(stderr, "vf_stereo: %s: %s\n", vf_status_str(s), vf_last_error_message());
  vf_stereo_destroy(st);
  vf_context_destroy(ctx);
  vf_image_free(&l);
  vf_image_free(&r);
  vf_image_free(&d16);
  vf_image_free(&df);
  vf_image_free(&g);
  vf_image_free(&gr);
  return s == VF_OK ? 0 : 1;
}
