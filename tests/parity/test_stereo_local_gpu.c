// SPDX-License-Identifier: BSD-3-Clause
/* GPU local stereo methods equal the CPU references bit for bit: disparity maps and the
 * ZNCC and census cost volumes (raw, and after FastDT's third pass, 8-bit and 16-bit codes), for
 * every window side, both window-sum paths, both census types, Cyclops2's weight functions and
 * both kernel variants, the median, odd sizes and disparity counts, host and device inputs with
 * padded strides, host and device outputs; and vf_stereo's 16-bit and float maps for each of
 * these methods. Random-dot pairs and the real images of the shared data. Skips without a
 * device. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo_local_util.h"
#include "vf_test.h"

static vf_context* cpu_ctx;
static vf_context* gpu_ctx;
static int compared;

/* Copies a stage's cost volume to the host (device volumes in chunks of rows). */
static uint8_t* volume_copy(const vf_stereo_local* st, const vf_stereo_local_config* c,
                            vf_memory where, size_t* bytes) {
  const void* vol = NULL;
  size_t cb = 0;
  *bytes = 0;
  if (vf_stereo_local_cost_volume(st, &vol, &cb) != VF_OK) return NULL;
  const int row = c->disparities * (int)cb, rows = c->width * c->height;
  *bytes = (size_t)row * rows;
  uint8_t* out = malloc(*bytes);
  for (int r0 = 0; r0 < rows; r0 += 32768) {
    int n = rows - r0 < 32768 ? rows - r0 : 32768;
    vf_image src =
        vf_image_view((uint8_t*)vol + (size_t)r0 * row, row, n, (size_t)row, where, VF_PIXEL_U8);
    vf_image dst =
        vf_image_view(out + (size_t)r0 * row, row, n, (size_t)row, VF_MEMORY_HOST, VF_PIXEL_U8);
    CHECK_OK(vf_image_copy(&src, &dst));
  }
  return out;
}

static long count_diff(const uint16_t* a, const uint16_t* b, size_t n) {
  long diff = 0;
  for (size_t i = 0; i < n; ++i) diff += a[i] != b[i];
  return diff;
}

/* Runs `c` on both backends and compares everything; returns the GPU map (caller frees). */
static uint16_t* compare(const vf_stereo_local_config* c, const test_pair* p, const char* what) {
  const size_t n = (size_t)p->w * p->h;
  uint16_t* ref = malloc(n * 2);
  uint16_t* got = malloc(n * 2);
  vf_stereo_local *cs = NULL, *gs = NULL;
  CHECK_OK(vf_stereo_local_create(cpu_ctx, c, &cs));
  CHECK_OK(vf_stereo_local_create(gpu_ctx, c, &gs));
  if (cs == NULL || gs == NULL) return got;
  vf_image l = vf_image_view(p->left, p->w, p->h, p->w, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image r = vf_image_view(p->right, p->w, p->h, p->w, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image d_ref = vf_image_view(ref, p->w, p->h, (size_t)p->w * 2, VF_MEMORY_HOST, VF_PIXEL_U16);
  vf_image d_got = vf_image_view(got, p->w, p->h, (size_t)p->w * 2, VF_MEMORY_HOST, VF_PIXEL_U16);
  CHECK_OK(vf_stereo_local_compute(cs, &l, &r, &d_ref));

  /* Host images in, host map out. */
  memset(got, 0xA5, n * 2);
  CHECK_OK(vf_stereo_local_compute(gs, &l, &r, &d_got));
  long diff = count_diff(ref, got, n);
  size_t b_ref = 0, b_got = 0;
  uint8_t* v_ref = volume_copy(cs, c, VF_MEMORY_HOST, &b_ref);
  uint8_t* v_got = volume_copy(gs, c, VF_MEMORY_DEVICE, &b_got);
  long vdiff = 0;
  if (v_ref != NULL && v_got != NULL && b_ref == b_got) {
    for (size_t i = 0; i < b_ref; ++i) vdiff += v_ref[i] != v_got[i];
  }
  CHECK((v_ref == NULL) == (v_got == NULL) && b_ref == b_got);

  /* Device images with padded rows in, device map out, on the same stage (a second frame). */
  vf_image dl, dr, dd;
  CHECK_OK(vf_image_alloc(&dl, p->w, p->h, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_alloc(&dr, p->w, p->h, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_alloc(&dd, p->w, p->h, VF_PIXEL_U16, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_copy(&l, &dl));
  CHECK_OK(vf_image_copy(&r, &dr));
  CHECK_OK(vf_stereo_local_compute(gs, &dl, &dr, &dd));
  CHECK_OK(vf_context_synchronize(gpu_ctx));
  memset(got, 0x5A, n * 2);
  CHECK_OK(vf_image_copy(&dd, &d_got));
  long diff2 = count_diff(ref, got, n);
  if (diff || diff2 || vdiff) {
    fprintf(stderr, "%s: %ld / %ld disparities and %ld cost bytes differ\n", what, diff, diff2,
            vdiff);
  }
  CHECK(diff == 0 && diff2 == 0 && vdiff == 0);
  ++compared;
  vf_image_free(&dl);
  vf_image_free(&dr);
  vf_image_free(&dd);
  free(v_ref);
  free(v_got);
  free(ref);
  vf_stereo_local_destroy(cs);
  vf_stereo_local_destroy(gs);
  return got;
}

static vf_stereo_local_config base_config(const test_pair* p, int nd) {
  vf_stereo_local_config c = vf_stereo_local_config_default();
  c.width = p->w;
  c.height = p->h;
  c.disparities = nd;
  return c;
}

static void compare_zncc(const test_pair* p, int nd, int window, vf_zncc_sums sums, int dt,
                         int pack8) {
  vf_stereo_local_config c = base_config(p, nd);
  c.zncc.window = window;
  c.zncc.sums = sums;
  c.fastdt.enabled = dt;
  c.fastdt.pack8 = pack8;
  char what[128];
  snprintf(what, sizeof what, "%dx%d D%d ZNCC %d sums %d fastdt %d pack8 %d", p->w, p->h, nd,
           window, (int)sums, dt, pack8);
  free(compare(&c, p, what));
}

static void compare_cyclops(const test_pair* p, int nd, vf_cyclops_weight weight,
                            vf_cyclops_memory memory, int median, int block, int step) {
  vf_stereo_local_config c = base_config(p, nd);
  c.method = VF_STEREO_LOCAL_CYCLOPS2;
  c.cyclops.weight = weight;
  c.cyclops.memory = memory;
  c.median = median;
  c.cyclops.mns_width = block;
  c.cyclops.mns_height = block > 3 ? block - 2 : block;
  c.cyclops.kernel_step = step;
  c.cyclops.disparity_step = step < nd ? step : nd;
  c.cyclops.rma_max_log2 = 2 + 2 * step;
  char what[128];
  snprintf(what, sizeof what, "%dx%d D%d Cyclops2 weight %d memory %d median %d block %d step %d",
           p->w, p->h, nd, (int)weight, (int)memory, median, block, step);
  free(compare(&c, p, what));
}

static void compare_census(const test_pair* p, int nd, int full, int dt, int pack8, int median) {
  vf_stereo_local_config c = base_config(p, nd);
  c.method = VF_STEREO_LOCAL_CENSUS;
  c.census_full = full;
  c.fastdt.enabled = dt;
  c.fastdt.pack8 = pack8;
  c.median = median;
  char what[128];
  snprintf(what, sizeof what, "%dx%d D%d census full %d fastdt %d pack8 %d median %d", p->w, p->h,
           nd, full, dt, pack8, median);
  free(compare(&c, p, what));
}

/* vf_stereo with a method of issue 8 on both backends: 16-bit and float maps, from host images
 * to host maps and from device images to device maps. */
static void compare_stereo(const test_pair* p, vf_stereo_method method, int nd) {
  const size_t n = (size_t)p->w * p->h;
  vf_stereo_config c = vf_stereo_config_default_for(method);
  c.width = p->w;
  c.height = p->h;
  c.disparities = nd;
  vf_stereo *cs = NULL, *gs = NULL;
  CHECK_OK(vf_stereo_create(cpu_ctx, &c, &cs));
  CHECK_OK(vf_stereo_create(gpu_ctx, &c, &gs));
  vf_image l = vf_image_view(p->left, p->w, p->h, p->w, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image r = vf_image_view(p->right, p->w, p->h, p->w, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image a16, af, b16, bf, dl, dr, d16, df;
  CHECK_OK(vf_image_alloc(&a16, p->w, p->h, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&af, p->w, p->h, VF_PIXEL_F32, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&b16, p->w, p->h, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&bf, p->w, p->h, VF_PIXEL_F32, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&dl, p->w, p->h, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_alloc(&dr, p->w, p->h, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_alloc(&d16, p->w, p->h, VF_PIXEL_U16, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_alloc(&df, p->w, p->h, VF_PIXEL_F32, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_copy(&l, &dl));
  CHECK_OK(vf_image_copy(&r, &dr));
  CHECK_OK(vf_stereo_compute(cs, &l, &r, &a16, &af));
  long diff = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 0) {
      CHECK_OK(vf_stereo_compute(gs, &l, &r, &b16, &bf));
    } else {
      CHECK_OK(vf_stereo_compute(gs, &dl, &dr, &d16, &df));
      CHECK_OK(vf_context_synchronize(gpu_ctx));
      CHECK_OK(vf_image_copy(&d16, &b16));
      CHECK_OK(vf_image_copy(&df, &bf));
    }
    for (int y = 0; y < p->h; ++y) {
      const uint16_t* x16 = (const uint16_t*)((uint8_t*)a16.data + y * a16.stride_bytes);
      const uint16_t* y16 = (const uint16_t*)((uint8_t*)b16.data + y * b16.stride_bytes);
      const float* xf = (const float*)((uint8_t*)af.data + y * af.stride_bytes);
      const float* yf = (const float*)((uint8_t*)bf.data + y * bf.stride_bytes);
      for (int x = 0; x < p->w; ++x) {
        diff += x16[x] != y16[x] || (isnan(xf[x]) ? !isnan(yf[x]) : xf[x] != yf[x]);
      }
    }
  }
  if (diff) fprintf(stderr, "vf_stereo method %d: %ld pixels differ\n", (int)method, diff);
  CHECK(diff == 0 && n > 0);
  ++compared;
  vf_image* all[] = {&a16, &af, &b16, &bf, &dl, &dr, &d16, &df};
  for (int i = 0; i < 8; ++i) vf_image_free(all[i]);
  vf_stereo_destroy(cs);
  vf_stereo_destroy(gs);
}

static void synthetic(void) {
  static const struct {
    int w, h, nd;
  } sizes[] = {{97, 61, 37}, {160, 120, 64}, {300, 40, 256}, {33, 20, 1}, {64, 48, 100}};
  for (int i = 0; i < 5; ++i) {
    test_pair p;
    CHECK(test_pair_plane(&p, sizes[i].w, sizes[i].h, 3.0f, 0.05f, 0.03f, 0.9f, 10.0f,
                          40u + (unsigned)i));
    const int nd = sizes[i].nd;
    for (int window = 3; window <= 15; window += 2) {
      if (window > p.h) continue;
      compare_zncc(&p, nd, window, VF_ZNCC_SUMS_AUTO, 1, 1);
      compare_zncc(&p, nd, window, window > 7 ? VF_ZNCC_SUMS_DIRECT : VF_ZNCC_SUMS_INTEGRAL,
                   window % 4 == 1, 0);
    }
    compare_zncc(&p, nd, 5, VF_ZNCC_SUMS_AUTO, 0, 1);
    const int cnd = nd < p.w ? nd : p.w;
    for (int wt = VF_CYCLOPS_MD; wt <= VF_CYCLOPS_MNS; ++wt) {
      for (int mem = VF_CYCLOPS_SHARED_ROW; mem <= VF_CYCLOPS_GLOBAL; ++mem) {
        compare_cyclops(&p, cnd, (vf_cyclops_weight)wt, (vf_cyclops_memory)mem, mem == 0, 5, 1);
        compare_cyclops(&p, cnd, (vf_cyclops_weight)wt, (vf_cyclops_memory)mem, mem == 1, 9, 2);
      }
    }
    compare_cyclops(&p, p.w, VF_CYCLOPS_MNS, VF_CYCLOPS_GLOBAL, 0, 3, 1); /* a full scan line */
    compare_census(&p, nd, 0, 1, 1, 0);
    compare_census(&p, nd, 1, 1, 0, 1);
    compare_census(&p, nd, i % 2, 0, 1, 0);
    compare_stereo(&p, VF_STEREO_ZNCC_FASTDT, nd);
    compare_stereo(&p, VF_STEREO_CENSUS_FASTDT, nd);
    compare_stereo(&p, VF_STEREO_CYCLOPS2, cnd);
    test_pair_free(&p);
  }
}

static void real_images(void) {
  test_pair p;
  if (!test_pair_cones(&p)) {
    printf("middlebury/cones absent: real-image parity skipped\n");
    return;
  }
  vf_stereo_local_config c = base_config(&p, 64);
  c.zncc.window = 5;
  uint16_t* d = compare(&c, &p, "Cones ZNCC 5x5 + FastDT");
  test_score_report(&p, d, "GPU Cones ZNCC 5x5 + FastDT");
  free(d);
  c.zncc.window = 9;
  c.fastdt.pack8 = 0;
  d = compare(&c, &p, "Cones ZNCC 9x9 + FastDT 16-bit");
  test_score_report(&p, d, "GPU Cones ZNCC 9x9 + FastDT 16-bit");
  free(d);
  c.zncc.window = 15;
  c.fastdt.enabled = 0;
  free(compare(&c, &p, "Cones ZNCC 15x15"));
  c = base_config(&p, 64);
  c.method = VF_STEREO_LOCAL_CENSUS;
  c.census_full = 1;
  d = compare(&c, &p, "Cones census full 9x7 + FastDT");
  test_score_report(&p, d, "GPU Cones census full 9x7 + FastDT");
  free(d);
  c = base_config(&p, 64);
  c.method = VF_STEREO_LOCAL_CYCLOPS2;
  c.median = 1;
  static const char* names[] = {"MD", "RMA", "MNS"};
  for (int wt = VF_CYCLOPS_MD; wt <= VF_CYCLOPS_MNS; ++wt) {
    c.cyclops.weight = (vf_cyclops_weight)wt;
    c.cyclops.memory = wt == VF_CYCLOPS_RMA ? VF_CYCLOPS_GLOBAL : VF_CYCLOPS_SHARED_ROW;
    char what[64];
    snprintf(what, sizeof what, "GPU Cones Cyclops2 %s + median", names[wt]);
    d = compare(&c, &p, what);
    test_score_report(&p, d, what);
    free(d);
  }
  test_pair_free(&p);

  /* A raw EuRoC pair at camera size, for parity only (not rectified, no truth). */
  char lp[1024], rp[1024];
  if (vf_test_data_path("euroc/V1_01_easy_micro/mav0/cam0/data/1403715273262142976.png", lp,
                        sizeof lp) == NULL ||
      vf_test_data_path("euroc/V1_01_easy_micro/mav0/cam1/data/1403715273262142976.png", rp,
                        sizeof rp) == NULL) {
    return;
  }
  vf_image li, ri;
  CHECK_OK(vf_png_read_gray8(lp, &li));
  CHECK_OK(vf_png_read_gray8(rp, &ri));
  CHECK(test_pair_alloc(&p, li.width, li.height));
  for (int y = 0; y < p.h; ++y) {
    memcpy(p.left + (size_t)y * p.w, (uint8_t*)li.data + y * li.stride_bytes, (size_t)p.w);
    memcpy(p.right + (size_t)y * p.w, (uint8_t*)ri.data + y * ri.stride_bytes, (size_t)p.w);
  }
  c = base_config(&p, 64);
  free(compare(&c, &p, "EuRoC ZNCC 5x5 + FastDT"));
  c.method = VF_STEREO_LOCAL_CYCLOPS2;
  c.median = 1;
  free(compare(&c, &p, "EuRoC Cyclops2 MNS + median"));
  compare_stereo(&p, VF_STEREO_CENSUS_FASTDT, 64);
  vf_image_free(&li);
  vf_image_free(&ri);
  test_pair_free(&p);
}

int main(void) {
  VF_TEST_GPU_CONTEXTS(cpu_ctx, gpu_ctx);
  synthetic();
  real_images();
  printf("%d configurations compared\n", compared);
  vf_context_destroy(gpu_ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_stereo_local_gpu");
}
