// SPDX-License-Identifier: BSD-3-Clause
/* vf_stereo with the methods of issue 8 on the CPU backend: each method's defaults, the same maps
 * as the vf_stereo_local stage it runs through, float output, refusal of what only SGM offers,
 * census + FastDT known answers, and the accuracy of every method on Middlebury Cones. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo_local_util.h"
#include "vf_test.h"

static vf_context* ctx;

/* Runs `c` through vf_stereo on tight host images into `disp` (and `dispf` when not NULL). */
static vf_status run_stereo(const vf_stereo_config* c, const test_pair* p, uint16_t* disp,
                            float* dispf) {
  vf_stereo* st = NULL;
  vf_status s = vf_stereo_create(ctx, c, &st);
  if (s != VF_OK) return s;
  vf_image l = vf_image_view(p->left, p->w, p->h, p->w, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image r = vf_image_view(p->right, p->w, p->h, p->w, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image d = vf_image_view(disp, p->w, p->h, (size_t)p->w * 2, VF_MEMORY_HOST, VF_PIXEL_U16);
  vf_image f = vf_image_view(dispf, p->w, p->h, (size_t)p->w * 4, VF_MEMORY_HOST, VF_PIXEL_F32);
  s = vf_stereo_compute(st, &l, &r, &d, dispf != NULL ? &f : NULL);
  vf_stereo_destroy(st);
  return s;
}

static vf_stereo_config method_config(vf_stereo_method m, const test_pair* p, int nd) {
  vf_stereo_config c = vf_stereo_config_default_for(m);
  c.width = p->w;
  c.height = p->h;
  c.disparities = nd;
  return c;
}

/* vf_stereo gives the stage's map for the same settings, and its float output says the same. */
static void check_wiring(vf_stereo_method m, vf_stereo_local_method am, const test_pair* p) {
  const size_t n = (size_t)p->w * p->h;
  uint16_t* a = malloc(n * 2);
  uint16_t* b = malloc(n * 2);
  float* f = malloc(n * 4);
  vf_stereo_config c = method_config(m, p, 40);
  c.census = VF_CENSUS_FULL_9X7;
  c.zncc.window = 7;
  c.cyclops.weight = VF_CYCLOPS_RMA;
  CHECK_OK(run_stereo(&c, p, a, f));
  vf_stereo_local_config ac = vf_stereo_local_config_default();
  ac.method = am;
  ac.width = p->w;
  ac.height = p->h;
  ac.disparities = 40;
  ac.census_full = 1;
  ac.zncc.window = 7;
  ac.cyclops.weight = VF_CYCLOPS_RMA;
  ac.median = c.median;
  CHECK_OK(test_run(ctx, &ac, p, 0, b));
  CHECK(memcmp(a, b, n * 2) == 0);
  long bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bad += a[i] == VF_STEREO_INVALID ? !isnan(f[i]) : f[i] != (float)a[i];
  }
  CHECK(bad == 0);
  free(a);
  free(b);
  free(f);
}

static void refuses(const vf_stereo_config* c, vf_status want, const char* field) {
  vf_stereo* st = NULL;
  CHECK_FAILS(vf_stereo_create(ctx, c, &st), want);
  CHECK(st == NULL);
  if (strstr(vf_last_error_message(), field) == NULL) {
    fprintf(stderr, "message \"%s\" does not name %s\n", vf_last_error_message(), field);
    CHECK(0);
  }
}

static void check_config(void) {
  static const vf_stereo_method methods[] = {VF_STEREO_ZNCC_FASTDT, VF_STEREO_CENSUS_FASTDT,
                                             VF_STEREO_CYCLOPS2};
  for (int i = 0; i < 3; ++i) {
    const vf_stereo_config base = vf_stereo_config_default_for(methods[i]);
    CHECK(base.method == methods[i] && base.subpixel == 0 && base.lr_check == 0);
    vf_stereo* st = NULL;
    CHECK_OK(vf_stereo_create(ctx, &base, &st));
    vf_stereo_destroy(st);
    vf_stereo_config c = base;
    c.min_disparity = 8;
    refuses(&c, VF_ERR_UNSUPPORTED, "min_disparity");
    c = base;
    c.subpixel = 1;
    refuses(&c, VF_ERR_UNSUPPORTED, "subpixel");
    c = base;
    c.lr_check = 1;
    refuses(&c, VF_ERR_UNSUPPORTED, "lr_check");
    c = base;
    c.uniqueness = 0.9f;
    refuses(&c, VF_ERR_UNSUPPORTED, "uniqueness");
    c = base;
    c.median = 2;
    refuses(&c, VF_ERR_INVALID_ARG, "median");
    c = base;
    c.width = 5000;
    refuses(&c, VF_ERR_INVALID_ARG, "width");
    c = base;
    c.disparities = 0;
    refuses(&c, VF_ERR_INVALID_ARG, "disparities");
  }
  vf_stereo_config c = vf_stereo_config_default_for(VF_STEREO_ZNCC_FASTDT);
  c.zncc.window = 4;
  refuses(&c, VF_ERR_INVALID_ARG, "vf_stereo_create: zncc.window");
  c = vf_stereo_config_default_for(VF_STEREO_CENSUS_FASTDT);
  c.disparities = 257;
  refuses(&c, VF_ERR_INVALID_ARG, "disparities");
  c.disparities = 37; /* any count, unlike SGM */
  vf_stereo* st = NULL;
  CHECK_OK(vf_stereo_create(ctx, &c, &st));
  vf_stereo_destroy(st);
  c.census = (vf_census_type)5;
  refuses(&c, VF_ERR_INVALID_ARG, "census");
  c = vf_stereo_config_default_for(VF_STEREO_CENSUS_FASTDT);
  c.fastdt.sigma_r = 0.0f;
  refuses(&c, VF_ERR_INVALID_ARG, "fastdt.sigma_r");
  c = vf_stereo_config_default_for(VF_STEREO_CYCLOPS2);
  c.cyclops.kernel_step = 3;
  refuses(&c, VF_ERR_INVALID_ARG, "cyclops.kernel_step");
  c.cyclops.kernel_step = 1;
  c.width = 40;
  c.disparities = 41;
  refuses(&c, VF_ERR_INVALID_ARG, "disparities");
  c = vf_stereo_config_default_for((vf_stereo_method)9);
  refuses(&c, VF_ERR_INVALID_ARG, "method");
}

/* Census + FastDT finds random dots at disparity 13 wherever the census and the match fit, but
 * for a dot or two: the full census compares with the centre, and a 2-pixel dot's twin is equal. */
static void check_census_dots(int full) {
  test_pair p;
  CHECK(test_pair_plane(&p, 120, 50, 13.0f, 0.0f, 0.0f, 1.0f, 0.0f, 21u));
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  vf_stereo_config c = method_config(VF_STEREO_CENSUS_FASTDT, &p, 32);
  c.census = full ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
  CHECK_OK(run_stereo(&c, &p, disp, NULL));
  long n = 0, good = 0;
  for (int y = 3; y < p.h - 3; ++y) {
    for (int x = 13 + 4 + 4; x < p.w - 4; ++x, ++n) good += disp[(size_t)y * p.w + x] == 13;
  }
  printf("census %s + FastDT, dots at disparity 13: %.2f%% exact\n", full ? "full" : "CS",
         100.0 * good / n);
  CHECK(good >= 0.995 * n);
  free(disp);
  test_pair_free(&p);
}

static void check_cones(void) {
  test_pair p;
  if (!test_pair_cones(&p)) {
    printf("middlebury/cones absent: accuracy skipped\n");
    return;
  }
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  static const struct {
    const char* name;
    vf_stereo_method method;
    int full;
    double max_bad2;
  } runs[] = {{"SGM 4 paths, whole pixels", VF_STEREO_SGM, 0, 0.14},
              {"ZNCC 5x5 + FastDT", VF_STEREO_ZNCC_FASTDT, 0, 0.06},
              {"census CS 9x7 + FastDT", VF_STEREO_CENSUS_FASTDT, 0, 0.12},
              {"census full 9x7 + FastDT", VF_STEREO_CENSUS_FASTDT, 1, 0.12},
              {"Cyclops2 MNS 5x5 + median", VF_STEREO_CYCLOPS2, 0, 0.08}};
  for (int i = 0; i < 5; ++i) {
    vf_stereo_config c = method_config(runs[i].method, &p, 64);
    c.census = runs[i].full ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
    c.subpixel = 0; /* SGM too: whole pixels, as the others */
    CHECK_OK(run_stereo(&c, &p, disp, NULL));
    char what[64];
    snprintf(what, sizeof what, "vf_stereo Cones %s", runs[i].name);
    test_score s = test_score_report(&p, disp, what);
    CHECK(s.bad[2] <= runs[i].max_bad2);
  }
  free(disp);
  test_pair_free(&p);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  check_config();
  test_pair p;
  CHECK(test_pair_plane(&p, 90, 40, 8.0f, 0.04f, 0.02f, 1.0f, 0.0f, 17u));
  check_wiring(VF_STEREO_ZNCC_FASTDT, VF_STEREO_LOCAL_ZNCC, &p);
  check_wiring(VF_STEREO_CENSUS_FASTDT, VF_STEREO_LOCAL_CENSUS, &p);
  check_wiring(VF_STEREO_CYCLOPS2, VF_STEREO_LOCAL_CYCLOPS2, &p);
  test_pair_free(&p);
  check_census_dots(0);
  check_census_dots(1);
  check_cones();
  vf_context_destroy(ctx);
  VF_TEST_END("test_stereo_methods");
}
