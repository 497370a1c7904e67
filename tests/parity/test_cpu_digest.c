// SPDX-License-Identifier: BSD-3-Clause
/* A digest of the CPU backend's results on inputs made without libm (integer noise, a bilinear
 * shift in IEEE single precision): FAST + grid keypoints (also with an occupancy mask), tracker
 * results (frame to frame, and with reference refinement), SGM disparities, the sparse stereo
 * matches (with and without priors) and a remap, as FNV-1a hashes of their bits. Printed for
 * scripts/ci_aarch64.sh, which compares the line between x86-64 (SSE2) and AArch64 (NEON and
 * plain C) builds: equal lines mean bit-identical results. Checks here: the stages ran. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <viofront/viofront.h>

#include "vf_test.h"

enum { W = 320, H = 240, MAXK = 512 };

static uint64_t fnv(uint64_t h, const void* p, size_t n) {
  const uint8_t* b = p;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* Random bytes smoothed by three 5x5 box filters (integers only). */
static void noise_image(uint8_t* img, unsigned seed) {
  static int a[W * H], b[W * H];
  for (int i = 0; i < W * H; ++i) a[i] = (int)(vf_test_rand(&seed) % 256);
  for (int pass = 0; pass < 3; ++pass) {
    for (int y = 0; y < H; ++y) {
      for (int x = 0; x < W; ++x) {
        int s = 0;
        for (int dy = -2; dy <= 2; ++dy) {
          for (int dx = -2; dx <= 2; ++dx) {
            const int xx = x + dx < 0 ? 0 : x + dx >= W ? W - 1 : x + dx;
            const int yy = y + dy < 0 ? 0 : y + dy >= H ? H - 1 : y + dy;
            s += a[yy * W + xx];
          }
        }
        b[y * W + x] = s / 25;
      }
    }
    memcpy(a, b, sizeof a);
  }
  /* Stretch the contrast the blur took away. */
  for (int i = 0; i < W * H; ++i) {
    const int v = 128 + (a[i] - 128) * 6;
    img[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

/* out(x, y) = gain * in(x - dx, y - dy) + bias, bilinear in float, rounded half up. */
static void shift_image(const uint8_t* in, float dx, float dy, float gain, float bias,
                        uint8_t* out) {
  const int ix = (int)(-dx + 8.0f) - 8, iy = (int)(-dy + 8.0f) - 8;
  const float fx = -dx - (float)ix, fy = -dy - (float)iy;
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) {
      float p[4];
      for (int k = 0; k < 4; ++k) {
        int xx = x + ix + (k & 1), yy = y + iy + (k >> 1);
        xx = xx < 0 ? 0 : xx >= W ? W - 1 : xx;
        yy = yy < 0 ? 0 : yy >= H ? H - 1 : yy;
        p[k] = in[yy * W + xx];
      }
      const float top = p[0] + fx * (p[1] - p[0]), bot = p[2] + fx * (p[3] - p[2]);
      const float v = gain * (top + fy * (bot - top)) + bias + 0.5f;
      out[y * W + x] = (uint8_t)(v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v);
    }
  }
}

static uint64_t track(vf_context* ctx, const vf_pyramid* p0, const vf_pyramid* p1,
                      const vf_keypoint* kp, int n, int refine) {
  vf_tracker_config tc = vf_tracker_config_default();
  tc.max_features = MAXK;
  tc.refine = refine;
  vf_tracker* t = NULL;
  static vf_track_request req[MAXK];
  static vf_track_result res[MAXK];
  uint64_t h = 1469598103934665603ull;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  for (int i = 0; i < n; ++i) req[i] = vf_track_request_make(kp[i].x, kp[i].y, i);
  CHECK_OK(vf_tracker_track(t, p0, p1, req, n, res));
  int converged = 0;
  for (int i = 0; i < n; ++i) {
    h = fnv(h, &res[i].x, sizeof res[i].x);
    h = fnv(h, &res[i].y, sizeof res[i].y);
    h = fnv(h, &res[i].gain, sizeof res[i].gain);
    h = fnv(h, &res[i].bias, sizeof res[i].bias);
    h = fnv(h, &res[i].status, sizeof res[i].status);
    converged += res[i].status == VF_TRACK_CONVERGED;
  }
  CHECK(converged > n / 2);
  vf_tracker_destroy(t);
  return h;
}

int main(void) {
  static uint8_t a[W * H], b[W * H], r[W * H];
  noise_image(a, 5u);
  shift_image(a, 1.3f, -0.7f, 1.1f, 5.0f, b);
  shift_image(a, -9.0f, 0.0f, 1.0f, 0.0f, r); /* right image: disparity 9 */
  vf_image ia = vf_image_view(a, W, H, W, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image ib = vf_image_view(b, W, H, W, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image ir = vf_image_view(r, W, H, W, VF_MEMORY_HOST, VF_PIXEL_U8);

  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  const vf_pyramid_config pc = {W, H, 4};
  vf_pyramid *p0 = NULL, *p1 = NULL;
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p0));
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p1));
  CHECK_OK(vf_pyramid_build(p0, &ia));
  CHECK_OK(vf_pyramid_build(p1, &ib));

  vf_detector_config dc = vf_detector_config_default();
  dc.width = W;
  dc.height = H;
  vf_detector* d = NULL;
  CHECK_OK(vf_detector_create(ctx, &dc, &d));
  CHECK_OK(vf_detector_detect(d, p0, NULL, VF_MEMORY_HOST));
  const vf_keypoint* kp = NULL;
  int n = 0;
  CHECK_OK(vf_detector_keypoints(d, &kp, &n));
  CHECK(n > 20);
  if (n > MAXK) n = MAXK;
  const uint64_t h_det = fnv(1469598103934665603ull, kp, (size_t)n * sizeof *kp);
  const uint64_t h_lk = track(ctx, p0, p1, kp, n, 0);
  const uint64_t h_ref = track(ctx, p0, p1, kp, n, 1);

  vf_stereo_config sc = vf_stereo_config_default();
  sc.width = W;
  sc.height = H;
  vf_stereo* st = NULL;
  vf_image disp = {0};
  CHECK_OK(vf_stereo_create(ctx, &sc, &st));
  CHECK_OK(vf_image_alloc(&disp, W, H, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_stereo_compute(st, &ia, &ir, &disp, NULL));
  uint64_t h_sgm = 1469598103934665603ull;
  for (int y = 0; y < H; ++y)
    h_sgm = fnv(h_sgm, (const uint8_t*)disp.data + (size_t)y * disp.stride_bytes, 2 * W);

  /* Sparse matching at the keypoints, whole range, then from priors a pixel off the truth. */
  vf_sampler* sam = NULL;
  static float xy[2 * MAXK], prior[MAXK];
  static vf_stereo_match sm[MAXK];
  for (int i = 0; i < n; ++i) {
    xy[2 * i] = kp[i].x;
    xy[2 * i + 1] = kp[i].y;
    prior[i] = i % 2 == 0 ? 10.0f : 8.0f;
  }
  const vf_stereo_match_config mc = vf_stereo_match_config_default();
  CHECK_OK(vf_sampler_create(ctx, MAXK, &sam));
  uint64_t h_match = 1469598103934665603ull;
  int matched = 0;
  for (int pass = 0; pass < 2; ++pass) {
    CHECK_OK(vf_sampler_match_stereo(sam, &ia, &ir, xy, pass == 0 ? NULL : prior, n, &mc, sm));
    for (int i = 0; i < n; ++i) {
      h_match = fnv(h_match, &sm[i], sizeof sm[i]);
      matched += sm[i].result == VF_STEREO_MATCH_OK;
    }
  }
  CHECK(matched > n / 2);

  /* A remap through a distorting camera (its map in double precision, rounded to 1/256 px). */
  vf_camera cam = vf_camera_default();
  cam.width = W, cam.height = H;
  cam.fx = cam.fy = 200.0, cam.cx = 160.5, cam.cy = 119.5;
  cam.distortion = VF_DISTORTION_RADTAN;
  cam.k[0] = -0.28, cam.k[1] = 0.07, cam.k[2] = 2e-4, cam.k[3] = 2e-5;
  vf_remap_config rmc;
  vf_remap* rm = NULL;
  vf_image und = {0};
  CHECK_OK(vf_remap_config_undistort(&cam, &rmc));
  CHECK_OK(vf_remap_create(ctx, &rmc, &rm));
  CHECK_OK(vf_image_alloc(&und, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_remap_apply(rm, &ia, &und));
  uint64_t h_remap = 1469598103934665603ull;
  for (int y = 0; y < H; ++y)
    h_remap = fnv(h_remap, (const uint8_t*)und.data + (size_t)y * und.stride_bytes, W);

  /* FAST with every third cell occupied (the CPU's responses near empty cells only). */
  vf_grid g;
  CHECK_OK(vf_detector_grid(d, &g));
  static uint8_t occupied[4096];
  CHECK(g.cols * g.rows <= 4096);
  for (int c = 0; c < g.cols * g.rows; ++c) occupied[c] = c % 3 == 0;
  CHECK_OK(vf_detector_detect(d, p1, NULL, VF_MEMORY_HOST));
  CHECK_OK(vf_detector_detect(d, p0, occupied, VF_MEMORY_HOST));
  int n_masked = 0;
  CHECK_OK(vf_detector_keypoints(d, &kp, &n_masked));
  const uint64_t h_mask = fnv(1469598103934665603ull, kp, (size_t)n_masked * sizeof *kp);

  printf(
      "digest: detector %016llx (%d keypoints) tracker %016llx refined %016llx sgm %016llx "
      "match %016llx (%d matched) remap %016llx masked %016llx (%d keypoints)\n",
      (unsigned long long)h_det, n, (unsigned long long)h_lk, (unsigned long long)h_ref,
      (unsigned long long)h_sgm, (unsigned long long)h_match, matched, (unsigned long long)h_remap,
      (unsigned long long)h_mask, n_masked);
  vf_image_free(&und);
  vf_remap_destroy(rm);
  vf_sampler_destroy(sam);
  vf_image_free(&disp);
  vf_stereo_destroy(st);
  vf_detector_destroy(d);
  vf_pyramid_destroy(p0);
  vf_pyramid_destroy(p1);
  vf_context_destroy(ctx);
  VF_TEST_END("test_cpu_digest");
}
