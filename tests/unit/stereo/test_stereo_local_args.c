// SPDX-License-Identifier: BSD-3-Clause
/* Bad configurations and bad compute arguments of the local stereo methods are refused with
 * VF_ERR_INVALID_ARG (or UNSUPPORTED) and a message that names the field. */
#include <math.h>
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo/vf_stereo_local.h"
#include "vf_test.h"

static vf_context* ctx;

/* Creating with `c` fails and the message mentions `field`. */
static void refuses(const vf_stereo_local_config* c, const char* field) {
  vf_stereo_local* st = NULL;
  CHECK_FAILS(vf_stereo_local_create(ctx, c, &st), VF_ERR_INVALID_ARG);
  CHECK(st == NULL);
  if (strstr(vf_last_error_message(), field) == NULL) {
    fprintf(stderr, "message \"%s\" does not name %s\n", vf_last_error_message(), field);
    CHECK(0);
  }
  vf_stereo_local_destroy(st);
}

static void accepts(const vf_stereo_local_config* c) {
  vf_stereo_local* st = NULL;
  CHECK_OK(vf_stereo_local_create(ctx, c, &st));
  vf_stereo_local_destroy(st);
}

static void check_zncc_config(void) {
  const vf_stereo_local_config base = vf_stereo_local_config_default();
  vf_stereo_local_config c = base;
  accepts(&c);
  static const int bad_windows[] = {1, 2, 4, 16, 17, -3};
  for (int i = 0; i < 6; ++i) {
    c = base;
    c.zncc.window = bad_windows[i];
    refuses(&c, "zncc.window");
  }
  for (c = base, c.zncc.window = 3; c.zncc.window <= 15; c.zncc.window += 2) accepts(&c);
  c = base;
  c.width = 12;
  c.height = 8;
  c.zncc.window = 9;
  refuses(&c, "zncc.window");
  c = base;
  c.zncc.sums = (vf_zncc_sums)3;
  refuses(&c, "zncc.sums");
  c = base;
  c.disparities = VF_STEREO_LOCAL_MAX_DISPARITY + 1;
  refuses(&c, "disparities");
  c.disparities = 0;
  refuses(&c, "disparities");
  static const float bad_sigmas[] = {0.0f, 0.4f, -1.0f, 1001.0f, NAN, INFINITY};
  for (int i = 0; i < 6; ++i) {
    c = base;
    c.fastdt.sigma_s = bad_sigmas[i];
    refuses(&c, "fastdt.sigma_s");
    c = base;
    c.fastdt.sigma_r = bad_sigmas[i];
    refuses(&c, "fastdt.sigma_r");
  }
  c = base;
  c.fastdt.pack8 = 2;
  refuses(&c, "fastdt.pack8");
  c = base;
  c.fastdt.enabled = -1;
  refuses(&c, "fastdt.enabled");
  c = base;
  c.method = (vf_stereo_local_method)7;
  refuses(&c, "method");
  c = base;
  c.width = 0;
  refuses(&c, "size");
  /* Cyclops2 fields do not matter to ZNCC. */
  c = base;
  c.cyclops.mns_width = 4;
  accepts(&c);
}

static void check_cyclops_config(void) {
  vf_stereo_local_config base = vf_stereo_local_config_default();
  base.method = VF_STEREO_LOCAL_CYCLOPS2;
  vf_stereo_local_config c = base;
  accepts(&c);
  c.cyclops.weight = (vf_cyclops_weight)3;
  refuses(&c, "cyclops.weight");
  c = base;
  c.cyclops.memory = (vf_cyclops_memory)2;
  refuses(&c, "cyclops.memory");
  c = base;
  c.cyclops.rma_max_log2 = 9;
  refuses(&c, "cyclops.rma_max_log2");
  c.cyclops.rma_max_log2 = -1;
  refuses(&c, "cyclops.rma_max_log2");
  c = base;
  c.cyclops.mns_width = 4;
  refuses(&c, "mns_width");
  c = base;
  c.cyclops.mns_height = 33;
  refuses(&c, "mns_height");
  c = base;
  c.cyclops.kernel_step = 0;
  refuses(&c, "cyclops.kernel_step");
  c.cyclops.kernel_step = 3; /* does not divide 5 - 1 */
  refuses(&c, "cyclops.kernel_step");
  c.cyclops.kernel_step = 2;
  accepts(&c);
  c = base;
  c.cyclops.disparity_step = 0;
  refuses(&c, "cyclops.disparity_step");
  c.cyclops.disparity_step = c.disparities + 1;
  refuses(&c, "cyclops.disparity_step");
  c = base;
  c.median = 3;
  refuses(&c, "median");
  c = base;
  c.disparities = c.width + 1;
  refuses(&c, "disparities");
  c.disparities = c.width; /* a full scan line */
  accepts(&c);
  /* 31 rows of both 1000-pixel images do not fit 48 KB of shared memory; global memory does. */
  c = base;
  c.width = 1000;
  c.cyclops.mns_height = 31;
  refuses(&c, "SHARED_ROW");
  c.cyclops.memory = VF_CYCLOPS_GLOBAL;
  accepts(&c);
  /* ZNCC fields do not matter to Cyclops2. */
  c = base;
  c.zncc.window = 4;
  accepts(&c);
}

static void check_compute_args(void) {
  vf_stereo_local_config c = vf_stereo_local_config_default();
  c.width = 64;
  c.height = 32;
  c.disparities = 16;
  vf_stereo_local* st = NULL;
  CHECK_FAILS(vf_stereo_local_create(ctx, NULL, &st), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_local_create(NULL, &c, &st), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_local_create(ctx, &c, NULL), VF_ERR_INVALID_ARG);
  CHECK_OK(vf_stereo_local_create(ctx, &c, &st));
  uint8_t* l = calloc(64 * 32, 1);
  uint8_t* r = calloc(64 * 32, 1);
  uint16_t* d = calloc(64 * 32, 2);
  vf_image li = vf_image_view(l, 64, 32, 64, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image ri = vf_image_view(r, 64, 32, 64, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image di = vf_image_view(d, 64, 32, 128, VF_MEMORY_HOST, VF_PIXEL_U16);
  CHECK_OK(vf_stereo_local_compute(st, &li, &ri, &di));
  /* Flat images: no candidate is better than another anywhere. */
  int invalid = 0;
  for (int i = 0; i < 64 * 32; ++i) invalid += d[i] == VF_STEREO_LOCAL_INVALID;
  CHECK(invalid == 64 * 32);
  vf_image bad = ri;
  bad.width = 63;
  CHECK_FAILS(vf_stereo_local_compute(st, &li, &bad, &di), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_stereo_local_last_error(st), "right") != NULL);
  bad = di;
  bad.format = VF_PIXEL_U8;
  CHECK_FAILS(vf_stereo_local_compute(st, &li, &ri, &bad), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_stereo_local_last_error(st), "disparity") != NULL);
  bad = li;
  bad.stride_bytes = 10;
  CHECK_FAILS(vf_stereo_local_compute(st, &bad, &ri, &di), VF_ERR_INVALID_ARG);
  bad = li;
  bad.location = VF_MEMORY_DEVICE;
  if (vf_context_backend(ctx) == VF_BACKEND_CPU) {
    CHECK_FAILS(vf_stereo_local_compute(st, &bad, &ri, &di), VF_ERR_UNSUPPORTED);
  }
  CHECK_FAILS(vf_stereo_local_compute(st, &li, &ri, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_local_compute(NULL, &li, &ri, &di), VF_ERR_INVALID_ARG);
  const void* vol = NULL;
  size_t cb = 0;
  CHECK_OK(vf_stereo_local_cost_volume(st, &vol, &cb));
  CHECK(vol != NULL && cb == 1);
  vf_stereo_local_destroy(st);
  c.method = VF_STEREO_LOCAL_CYCLOPS2;
  CHECK_OK(vf_stereo_local_create(ctx, &c, &st));
  CHECK_FAILS(vf_stereo_local_cost_volume(st, &vol, &cb), VF_ERR_UNSUPPORTED);
  vf_stereo_local_destroy(st);
  vf_stereo_local_destroy(NULL);
  free(l);
  free(r);
  free(d);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  check_zncc_config();
  check_cyclops_config();
  check_compute_args();
  vf_context_destroy(ctx);
  VF_TEST_END("test_stereo_local_args");
}
