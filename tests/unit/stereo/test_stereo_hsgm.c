// SPDX-License-Identifier: BSD-3-Clause
/* vf_stereo's hierarchical SGM, SGM with 16 paths and ZNCC + SGM on the CPU: HSGM with one level
 * (and with ranges that the margin widens to the full range) gives SGM's map bit for bit over the
 * flag combinations; known answers for random dots at constant and at two disparities and for a
 * slanted plane (sub-pixel), with the occluded band flagged by the left-right check; bad
 * parameters refused naming the field. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo/kernels/vf_sgm_rules.h"
#include "stereo_fixtures.h"
#include "vf_test.h"

static vf_context* ctx;

static const char* vf_test_method_name(vf_stereo_method m) {
  return m == VF_STEREO_HSGM ? "HSGM" : m == VF_STEREO_ZNCC_SGM ? "ZNCC + SGM" : "SGM";
}

static vf_status run(const vf_stereo_config* c, const vf_image* l, const vf_image* r, vf_image* out,
                     vf_image* outf) {
  return fx_run(ctx, c, l, r, out, outf);
}

static long differ(const vf_image* a, const vf_image* b) {
  long n = 0;
  for (int y = 0; y < a->height; ++y) {
    for (int x = 0; x < a->width; ++x) n += fx_at16(a, x, y) != fx_at16(b, x, y);
  }
  return n;
}

/* One level is SGM; so is any level count when a margin of 64 makes every range full (D 64). */
static void equals_sgm(void) {
  static const int paths[] = {2, 4, 8};
  for (int i = 0; i < 12; ++i) {
    vf_stereo_config c = vf_stereo_config_default();
    c.paths = paths[i % 3];
    c.census = i & 1 ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
    c.disparities = i % 4 == 3 ? 128 : 64;
    c.subpixel = (i >> 1) & 1;
    c.lr_check = i % 5 != 4;
    c.median = (i >> 2) & 1;
    c.adaptive_p2 = i % 3 == 1;
    c.min_disparity = (i % 3) * 4;
    c.uniqueness = i % 4 == 1 ? 1.0f : 0.9f;
    c.lr_max_diff = i % 2;
    c.p1 = 6 + i;
    c.p2 = c.census == VF_CENSUS_FULL_9X7 ? 150 : 180;
    c.width = c.min_disparity + c.disparities + 41 + 3 * i;
    c.height = 21 + 2 * i;
    vf_image l, r, a, b, m;
    fx_random_pair(c.width, c.height, 6 + i, 300u + (unsigned)i, &l, &r);
    CHECK_OK(run(&c, &l, &r, &a, NULL));
    vf_stereo_config h = c;
    h.method = VF_STEREO_HSGM;
    h.hsgm.levels = 1;
    CHECK_OK(run(&h, &l, &r, &b, NULL));
    long d1 = differ(&a, &b), dm = 0;
    if (c.disparities == 64) {
      h.hsgm.levels = 3;
      h.hsgm.margin = 64;
      CHECK_OK(run(&h, &l, &r, &m, NULL));
      dm = differ(&a, &m);
      vf_image_free(&m);
    }
    printf("%dx%d paths %d D%d min %d: HSGM 1 level %ld, 3 levels margin 64 %ld pixels off SGM\n",
           c.width, c.height, c.paths, c.disparities, c.min_disparity, d1, dm);
    CHECK(d1 == 0);
    CHECK(dm == 0);
    vf_image_free(&l);
    vf_image_free(&r);
    vf_image_free(&a);
    vf_image_free(&b);
  }
}

/* Random dots at disparity d (and d + 7 below row h/2 when d2 > 0): every interior pixel exact. */
static void random_dots(vf_stereo_method method, int paths, int levels, int d, int d2) {
  const int w = 168, h = 56;
  vf_image l, r, out;
  if (d2 > 0) {
    fx_random_pair(w, h, d, 41u + (unsigned)levels, &l, &r);
  } else {
    fx_random_dots(w, h, d, 17u + (unsigned)paths, &l, &r);
  }
  vf_stereo_config c = vf_stereo_config_default_for(method);
  c.width = w;
  c.height = h;
  c.paths = paths;
  c.hsgm.levels = levels;
  c.subpixel = 0;
  c.median = 0;
  CHECK_OK(run(&c, &l, &r, &out, NULL));
  const int dmax = d2 > 0 ? d + 7 : d;
  long wrong = 0, invalid = 0, n = 0, occluded = 0;
  for (int y = VF_CENSUS_RY; y < h - VF_CENSUS_RY; ++y) {
    /* Two disparities: the jump's occlusion leaves a hole around row h/2 in SGM's map as well. */
    if (d2 > 0 && y >= h / 2 - 8 && y < h / 2 + 8) continue;
    const int want = d2 > 0 && y >= h / 2 ? d + 7 : d;
    for (int x = 10; x < w - VF_CENSUS_RX; ++x) {
      const uint16_t v = fx_at16(&out, x, y);
      if (x < d) occluded += v == VF_STEREO_INVALID;
      if (x < dmax + 10) continue;
      ++n;
      invalid += v == VF_STEREO_INVALID;
      wrong += v != VF_STEREO_INVALID && v != want;
    }
  }
  printf(
      "%s paths %d levels %d, dots at %d%s: %ld wrong, %ld invalid of %ld; %ld of %d occluded "
      "invalid\n",
      vf_test_method_name(method), paths, levels, d, d2 > 0 ? " and (lower half) d+7" : "", wrong,
      invalid, n, occluded, (d - 10) * (h - 2 * VF_CENSUS_RY));
  CHECK(wrong == 0);
  /* Two disparities: a few pixels by the jump's occluded columns fail the left-right check. */
  CHECK(invalid <= (d2 > 0 ? n / 200 : 0));
  if (d2 == 0) CHECK(occluded >= (long)(0.9 * (d - 10) * (h - 2 * VF_CENSUS_RY)));
  vf_image_free(&l);
  vf_image_free(&r);
  vf_image_free(&out);
}

static void slanted_plane(vf_stereo_method method, int paths, int levels) {
  vf_stereo_config c = vf_stereo_config_default_for(method);
  c.paths = paths;
  c.hsgm.levels = levels;
  char label[48];
  snprintf(label, sizeof label, "%s paths %d levels %d", vf_test_method_name(method), paths,
           levels);
  fx_check_plane(ctx, c, label);
}

static void bad_config(void) {
  vf_stereo* s = NULL;
#define BAD(field, value, status, name)                                \
  do {                                                                 \
    vf_stereo_config b = vf_stereo_config_default_for(VF_STEREO_HSGM); \
    b.field = value;                                                   \
    CHECK_FAILS(vf_stereo_create(ctx, &b, &s), status);                \
    CHECK(s == NULL);                                                  \
    CHECK(strstr(vf_last_error_message(), name) != NULL);              \
  } while (0)
  BAD(hsgm.levels, 0, VF_ERR_INVALID_ARG, "hsgm.levels");
  BAD(hsgm.levels, 5, VF_ERR_INVALID_ARG, "hsgm.levels");
  BAD(hsgm.window, 4, VF_ERR_INVALID_ARG, "hsgm.window");
  BAD(hsgm.window, 17, VF_ERR_INVALID_ARG, "hsgm.window");
  BAD(hsgm.margin, -1, VF_ERR_INVALID_ARG, "hsgm.margin");
  BAD(hsgm.margin, 65, VF_ERR_INVALID_ARG, "hsgm.margin");
  BAD(min_disparity, 6, VF_ERR_UNSUPPORTED, "min_disparity"); /* not a multiple of 4 */
  BAD(height, 3, VF_ERR_INVALID_ARG, "height");               /* below 4 rows */
  BAD(paths, 12, VF_ERR_INVALID_ARG, "paths");
  BAD(disparities, 32, VF_ERR_INVALID_ARG, "disparities");
  BAD(p2, 240, VF_ERR_INVALID_ARG, "p2");
  BAD(uniqueness, 0.0f, VF_ERR_INVALID_ARG, "uniqueness");
#undef BAD
  /* ZNCC + SGM: its window, its cost range (P2 <= 192), disparities from 0. */
  vf_stereo_config z = vf_stereo_config_default_for(VF_STEREO_ZNCC_SGM);
  CHECK(z.method == VF_STEREO_ZNCC_SGM && z.zncc.window == 3 && z.subpixel == 1);
  z.zncc.window = 4;
  CHECK_FAILS(vf_stereo_create(ctx, &z, &s), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "zncc.window") != NULL);
  z = vf_stereo_config_default_for(VF_STEREO_ZNCC_SGM);
  z.p2 = 200;
  CHECK_FAILS(vf_stereo_create(ctx, &z, &s), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "p2") != NULL);
  z.p2 = 192;
  z.min_disparity = 4;
  CHECK_FAILS(vf_stereo_create(ctx, &z, &s), VF_ERR_UNSUPPORTED);
  CHECK(strstr(vf_last_error_message(), "min_disparity") != NULL);
  z.min_disparity = 0;
  z.zncc.sums = (vf_zncc_sums)7;
  CHECK_FAILS(vf_stereo_create(ctx, &z, &s), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "zncc.sums") != NULL);
  vf_stereo_config c = vf_stereo_config_default_for(VF_STEREO_HSGM);
  CHECK(c.method == VF_STEREO_HSGM && c.paths == 8 && c.hsgm.levels == 3);
  c.min_disparity = 8;
  c.paths = 16;
  CHECK_OK(vf_stereo_create(ctx, &c, &s));
  vf_stereo_destroy(s);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  bad_config();
  equals_sgm();
  random_dots(VF_STEREO_SGM, 16, 1, 23, 0);
  random_dots(VF_STEREO_HSGM, 8, 2, 23, 0);
  random_dots(VF_STEREO_HSGM, 8, 3, 23, 0);
  random_dots(VF_STEREO_HSGM, 16, 4, 23, 0);
  random_dots(VF_STEREO_HSGM, 8, 3, 12, 1);
  random_dots(VF_STEREO_HSGM, 16, 3, 30, 1);
  slanted_plane(VF_STEREO_SGM, 16, 1);
  slanted_plane(VF_STEREO_HSGM, 8, 3);
  slanted_plane(VF_STEREO_HSGM, 16, 3);
  random_dots(VF_STEREO_ZNCC_SGM, 4, 1, 23, 0);
  random_dots(VF_STEREO_ZNCC_SGM, 16, 1, 12, 1);
  slanted_plane(VF_STEREO_ZNCC_SGM, 4, 1);
  slanted_plane(VF_STEREO_ZNCC_SGM, 8, 1);
  vf_context_destroy(ctx);
  VF_TEST_END("test_stereo_hsgm");
}
