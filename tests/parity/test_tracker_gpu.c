// SPDX-License-Identifier: BSD-3-Clause
/* GPU tracker against the CPU reference on the same pyramids and requests. The CPU accumulates
 * in double and the GPU in float, and each stops once a step falls below min_update, so they
 * agree within stated tolerances. Statuses: equal for at least 99.5% of the features (one
 * exactly on a threshold, e.g. the residual limit, may fall either way). Features both call
 * converged: on corners (Shi-Tomasi >= 25 on the 16x16 window) at least 99% within 0.01 px,
 * gain 1e-3 and bias 0.25 grey levels (1e-3 of the 8-bit range); with arbitrary points of weak
 * texture included (a poorly conditioned H magnifies rounding, and over flat texture the two
 * may settle in different places) at least 99% within 0.05 px, gain 0.02 and bias 2 grey
 * levels. Cases: a real image
 * and a procedural texture, photometric estimation on and off, patch sizes that take every run
 * width of the kernel, first-observation templates over a short sequence, and requests outside
 * the image, on its border and NaN; reference refinement over frames of growing zoom and
 * rotation (the same tolerances, flags equal, warp and correlation within 1e-3); submissions
 * back to back, with and without a wait between them, equal to separate calls. Skips without
 * a device. */
#include <string.h>

#include "test_tracker_util.h"

#define MAXF 4096

static vf_context *cpu_ctx, *gpu_ctx;

typedef struct tt_pair {
  vf_tracker *cpu, *gpu;
  vf_pyramid *cpu_prev, *cpu_cur, *gpu_prev, *gpu_cur;
} tt_pair;

/* The first n_corners features are corners (strict tolerance), the rest arbitrary points. */
static void tt_compare(const char* what, const vf_track_result* a, const vf_track_result* b, int n,
                       int n_corners) {
  int same = 0, corners = 0, strict = 0, loose = 0, both = 0;
  double worst_pos = 0, worst_gain = 0, worst_bias = 0;
  for (int i = 0; i < n; ++i) {
    same += a[i].status == b[i].status;
    if (a[i].status != VF_TRACK_CONVERGED || b[i].status != VF_TRACK_CONVERGED) continue;
    ++both;
    const double dp = hypot(a[i].x - b[i].x, a[i].y - b[i].y);
    const double dg = fabs(a[i].gain - b[i].gain), db = fabs(a[i].bias - b[i].bias);
    worst_pos = fmax(worst_pos, dp);
    worst_gain = fmax(worst_gain, dg);
    worst_bias = fmax(worst_bias, db);
    loose += dp <= 0.05 && dg <= 0.02 && db <= 2.0;
    if (i < n_corners) {
      ++corners;
      strict += dp <= 0.01 && dg <= 1e-3 && db <= 0.25;
    }
  }
  printf(
      "%-28s n=%4d same status %5.1f%%  both converged %4d  corners strict %d/%d  "
      "worst |dp| %.5f px |dgain| %.6f |dbias| %.4f\n",
      what, n, n ? 100.0 * same / n : 100.0, both, strict, corners, worst_pos, worst_gain,
      worst_bias);
  CHECK(200 * (n - same) <= n);
  CHECK(100 * (corners - strict) <= corners);
  CHECK(100 * (both - loose) <= both);
}

static void tt_pair_open(tt_pair* p, const vf_tracker_config* tc, const vf_image* prev,
                         const vf_image* cur) {
  CHECK_OK(vf_tracker_create(cpu_ctx, tc, &p->cpu));
  CHECK_OK(vf_tracker_create(gpu_ctx, tc, &p->gpu));
  p->cpu_prev = tt_pyramid(cpu_ctx, prev, tc->levels);
  p->cpu_cur = tt_pyramid(cpu_ctx, cur, tc->levels);
  p->gpu_prev = tt_pyramid(gpu_ctx, prev, tc->levels);
  p->gpu_cur = tt_pyramid(gpu_ctx, cur, tc->levels);
}

static void tt_pair_close(tt_pair* p) {
  vf_tracker_destroy(p->cpu);
  vf_tracker_destroy(p->gpu);
  vf_pyramid_destroy(p->cpu_prev);
  vf_pyramid_destroy(p->cpu_cur);
  vf_pyramid_destroy(p->gpu_prev);
  vf_pyramid_destroy(p->gpu_cur);
}

static void tt_run_both(const char* what, tt_pair* p, const vf_track_request* req, int n,
                        int n_corners) {
  static vf_track_result a[MAXF], b[MAXF];
  CHECK_OK(vf_tracker_track(p->cpu, p->cpu_prev, p->cpu_cur, req, n, a));
  CHECK_OK(vf_tracker_track(p->gpu, p->gpu_prev, p->gpu_cur, req, n, b));
  tt_compare(what, a, b, n, n_corners);
}

/* Corners, then a dense grid of arbitrary points, then points on and past the border and NaN. */
static int tt_requests(const vf_image* img, vf_track_request* req, int max, double dx, double dy,
                       int* n_corners) {
  static float xy[2 * MAXF];
  int n = tt_pick_corners(img, 20, 24, 25.0, xy, max / 2);
  *n_corners = n;
  unsigned seed = 99u;
  while (n < max - 8) {
    xy[2 * n] = (float)((vf_test_rand(&seed) % 100000) / 100000.0 * img->width);
    xy[2 * n + 1] = (float)((vf_test_rand(&seed) % 100000) / 100000.0 * img->height);
    ++n;
  }
  const float odd[8][2] = {{-5.0f, 10.0f},
                           {3.0f, 3.0f},
                           {(float)img->width - 2.0f, 50.0f},
                           {8.5f, 8.5f},
                           {NAN, 20.0f},
                           {1e9f, 1e9f},
                           {40.0f, 40.0f},
                           {(float)img->width, (float)img->height}};
  for (int i = 0; i < 8; ++i, ++n) {
    xy[2 * n] = odd[i][0];
    xy[2 * n + 1] = odd[i][1];
  }
  for (int i = 0; i < n; ++i) {
    req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], -1);
    /* A rough prediction: the true motion rounded to whole pixels. */
    req[i].guess_x = xy[2 * i] + (float)round(dx);
    req[i].guess_y = xy[2 * i + 1] + (float)round(dy);
  }
  return n;
}

static void tt_case_image(const char* name, const vf_image* img0, double dx, double dy, double gain,
                          double bias, int lanczos) {
  vf_image img1 = {0};
  if (lanczos) {
    tt_warp_lanczos(img0, dx, dy, gain, bias, &img1);
  } else {
    tt_warp(img0, dx, dy, gain, bias, &img1);
  }
  static vf_track_request req[MAXF];
  int n_corners = 0;
  const int n = tt_requests(img0, req, MAXF, dx, dy, &n_corners);
  char what[96];
  for (int mode = 0; mode < 3; ++mode) {
    vf_tracker_config tc = vf_tracker_config_default();
    tc.max_features = MAXF;
    tc.estimate_gain = mode != 1;
    tc.estimate_bias = mode != 2;
    tt_pair p;
    tt_pair_open(&p, &tc, img0, &img1);
    snprintf(what, sizeof what, "%s %s", name,
             mode == 0   ? "gain+bias"
             : mode == 1 ? "bias"
                         : "gain");
    tt_run_both(what, &p, req, n, n_corners);
    tt_pair_close(&p);
  }
  vf_image_free(&img1);
}

/* Patch sizes other than the default, so that every run width of the kernel (2, 4 and 8 samples
 * a lane) and uneven runs are compared; small patches condition H worse, so all points are held
 * to the loose tolerance. */
static void tt_case_patches(const vf_image* img0) {
  static const int sets[3][4] = {{12, 11, 10, 8}, {14, 13, 6, 4}, {9, 7, 5, 3}};
  vf_image img1 = {0};
  tt_warp_lanczos(img0, 3.4, -2.2, 1.2, -10.0, &img1);
  static vf_track_request req[MAXF];
  int n_corners = 0;
  const int n = tt_requests(img0, req, MAXF, 3.4, -2.2, &n_corners);
  for (int s = 0; s < 3; ++s) {
    vf_tracker_config tc = vf_tracker_config_default();
    tc.max_features = MAXF;
    for (int k = 0; k < 4; ++k) tc.patch_size[k] = sets[s][k];
    char what[64];
    snprintf(what, sizeof what, "patches %d/%d/%d/%d", sets[s][0], sets[s][1], sets[s][2],
             sets[s][3]);
    tt_pair p;
    tt_pair_open(&p, &tc, img0, &img1);
    tt_run_both(what, &p, req, n, 0);
    tt_pair_close(&p);
  }
  vf_image_free(&img1);
}

/* The next call's requests: each starts from result a[i], its slot's template kept. */
static void tt_follow(vf_track_request* req, const vf_track_result* a, int n) {
  for (int i = 0; i < n; ++i) {
    req[i] = vf_track_request_make(req[i].x, req[i].y, req[i].slot);
    req[i].x = req[i].guess_x = a[i].x;
    req[i].y = req[i].guess_y = a[i].y;
    req[i].gain = a[i].gain;
    req[i].bias = a[i].bias;
    req[i].new_template = 0;
  }
}

/* Tracks req (n features, slots kept) on both backends over frames[0..count-1], one call per
 * frame pair; check(f, cpu, gpu) compares each call; the next call starts from the CPU's answer
 * with the slots' templates (and references) kept. */
typedef void (*tt_check_fn)(int f, const vf_track_result* a, const vf_track_result* b, int n);

static void tt_frames_both(const vf_image* frames, int count, vf_tracker_config tc,
                           vf_track_request* req, int n, tt_check_fn check) {
  static vf_track_result a[MAXF], b[MAXF];
  vf_tracker *cpu = NULL, *gpu = NULL;
  tc.max_features = n > 0 ? n : 1;
  CHECK_OK(vf_tracker_create(cpu_ctx, &tc, &cpu));
  CHECK_OK(vf_tracker_create(gpu_ctx, &tc, &gpu));
  for (int f = 1; f < count; ++f) {
    vf_pyramid* cp = tt_pyramid(cpu_ctx, &frames[f - 1], tc.levels);
    vf_pyramid* cc = tt_pyramid(cpu_ctx, &frames[f], tc.levels);
    vf_pyramid* gp = tt_pyramid(gpu_ctx, &frames[f - 1], tc.levels);
    vf_pyramid* gc = tt_pyramid(gpu_ctx, &frames[f], tc.levels);
    CHECK_OK(vf_tracker_track(cpu, cp, cc, req, n, a));
    CHECK_OK(vf_tracker_track(gpu, gp, gc, req, n, b));
    check(f, a, b, n);
    tt_follow(req, a, n);
    vf_pyramid_destroy(cp);
    vf_pyramid_destroy(cc);
    vf_pyramid_destroy(gp);
    vf_pyramid_destroy(gc);
  }
  vf_tracker_destroy(cpu);
  vf_tracker_destroy(gpu);
}

static void tt_check_sequence(int f, const vf_track_result* a, const vf_track_result* b, int n) {
  tt_compare(f == 1 ? "first observation, capture" : "first observation, reuse", a, b, n, n);
}

/* First-observation templates over three frames: captured on the first call, reused after. */
static void tt_case_sequence(void) {
  const tt_texture tex = tt_texture_make(777u);
  vf_image frames[3];
  for (int f = 0; f < 3; ++f) {
    const double d[2] = {1.7 * f, -0.9 * f};
    tt_render(&tex, 640, 480, tt_map_shift, d, 1.0 + 0.05 * f, 3.0 * f, &frames[f]);
  }
  vf_tracker_config tc = vf_tracker_config_default();
  tc.template_mode = VF_TEMPLATE_FIRST_OBSERVATION;
  static float xy[2 * MAXF];
  const int n = tt_pick_corners(&frames[0], 20, 24, 25.0, xy, MAXF);
  static vf_track_request req[MAXF];
  for (int i = 0; i < n; ++i) req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], i);
  tt_frames_both(frames, 3, tc, req, n, tt_check_sequence);
  for (int f = 0; f < 3; ++f) vf_image_free(&frames[f]);
}

static void tt_check_refine(int f, const vf_track_result* a, const vf_track_result* b, int n) {
  int refined = 0, flags_same = 0, shape_close = 0;
  for (int i = 0; i < n; ++i) {
    refined += (a[i].flags & VF_TRACK_REFINED) != 0;
    flags_same += a[i].flags == b[i].flags;
    double ds = 0.0;
    for (int k = 0; k < 4; ++k) ds = fmax(ds, fabs(a[i].shape[k] - b[i].shape[k]));
    shape_close += ds <= 1e-3 && fabs(a[i].ncc - b[i].ncc) <= 1e-3;
  }
  printf(
      "refinement frame %d: %d of %d refined on the CPU, flags equal %d, warp and "
      "correlation within 1e-3 %d\n",
      f, refined, n, flags_same, shape_close);
  CHECK(4 * refined >= 3 * n);
  CHECK(200 * (n - flags_same) <= n);
  CHECK(100 * (n - shape_close) <= n);
  tt_compare(f == 1 ? "refinement, capture" : "refinement, carried warp", a, b, n, n);
}

/* Reference refinement over four frames of growing zoom and rotation: references captured on
 * the first call, warps carried from call to call in the slots (each backend its own). */
static void tt_case_refine(void) {
  const tt_texture tex = tt_texture_make(31337u);
  enum { FRAMES = 4 };
  vf_image frames[FRAMES];
  for (int f = 0; f < FRAMES; ++f) {
    const double m[4] = {1.0 + 0.04 * f, 0.03 * f, 1.3 * f, -0.8 * f};
    tt_render(&tex, 640, 480, tt_map_similarity, m, 1.0 + 0.04 * f, 2.0 * f, &frames[f]);
  }
  vf_tracker_config tc = vf_tracker_config_default();
  tc.template_mode = VF_TEMPLATE_PREVIOUS_FRAME; /* the frontend's setting */
  tc.refine = 1;
  static float xy[2 * MAXF];
  const int n = tt_pick_corners(&frames[0], 20, 24, 25.0, xy, MAXF);
  static vf_track_request req[MAXF];
  for (int i = 0; i < n; ++i) req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], i);
  tt_frames_both(frames, FRAMES, tc, req, n, tt_check_refine);
  for (int f = 0; f < FRAMES; ++f) vf_image_free(&frames[f]);
}

/* The one-launch tracking and refinement (a call the GPU holds at once: the first N requests
 * alone) against the two kernels (the same N followed by enough requests, each on a slot of its
 * own, that no GPU holds the call at once): the N results have the same bits. Two trackers, each
 * with its own slots, over the frames of a zoom and rotation. */
static void tt_case_refine_paths(vf_template_mode mode) {
  const tt_texture tex = tt_texture_make(4711u);
  enum { FRAMES = 4, N_MAX = 120, CALL = 8192 };
  vf_image frames[FRAMES];
  for (int f = 0; f < FRAMES; ++f) {
    const double m[4] = {1.0 - 0.03 * f, -0.04 * f, -1.1 * f, 0.9 * f};
    tt_render(&tex, 640, 480, tt_map_similarity, m, 1.0 - 0.03 * f, -3.0 * f, &frames[f]);
  }
  vf_tracker_config tc = vf_tracker_config_default();
  tc.template_mode = mode;
  tc.refine = 1;
  tc.max_features = CALL;
  static float xy[2 * N_MAX];
  static vf_track_request req[CALL];
  static vf_track_result a[CALL], b[CALL];
  const int n = tt_pick_corners(&frames[0], 44, 24, 25.0, xy, N_MAX);
  for (int i = 0; i < n; ++i) req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], i);
  vf_tracker *one = NULL, *two = NULL;
  CHECK_OK(vf_tracker_create(gpu_ctx, &tc, &one));
  CHECK_OK(vf_tracker_create(gpu_ctx, &tc, &two));
  for (int f = 1; f < FRAMES; ++f) {
    /* The filler: a grid of points with slots n.., new references every call. */
    for (int i = n; i < CALL; ++i) {
      const int k = i - n;
      req[i] = vf_track_request_make(40.0f + (float)(k % 56) * 10.0f,
                                     40.0f + (float)((k / 56) % 40) * 10.0f, i);
    }
    vf_pyramid* gp = tt_pyramid(gpu_ctx, &frames[f - 1], tc.levels);
    vf_pyramid* gc = tt_pyramid(gpu_ctx, &frames[f], tc.levels);
    CHECK_OK(vf_tracker_track(one, gp, gc, req, n, a));
    CHECK_OK(vf_tracker_track(two, gp, gc, req, CALL, b));
    int same = 0, refined = 0;
    for (int i = 0; i < n; ++i) {
      same += tt_same_bits(&a[i], &b[i]);
      refined += (a[i].flags & VF_TRACK_REFINED) != 0;
    }
    printf(
        "%s: one launch (%d features) == two kernels (%d), frame %d: %d the same bits, "
        "%d refined\n",
        mode == VF_TEMPLATE_FIRST_OBSERVATION ? "first observation" : "previous frame", n, CALL, f,
        same, refined);
    CHECK(n >= 40);
    CHECK(same == n);
    /* Refined results on both paths, the point of the case: most of them with previous-frame
     * templates; with first-observation ones the growing zoom ends more frame-to-frame tracks,
     * and a quarter suffices. */
    CHECK(f == 1 || 4 * refined >= (mode == VF_TEMPLATE_PREVIOUS_FRAME ? 3 * n : n));
    tt_follow(req, a, n);
    vf_pyramid_destroy(gp);
    vf_pyramid_destroy(gc);
  }
  vf_tracker_destroy(one);
  vf_tracker_destroy(two);
  for (int f = 0; f < FRAMES; ++f) vf_image_free(&frames[f]);
}

/* Submissions back to back: a submission may skip its wait for the previous one's kernel to have
 * read its requests only after a host wait drained the stream. Two submissions in a row (the
 * second's requests copied while the first's kernel still reads; first-observation slots taken
 * by the first, used by the second), and two with vf_context_synchronize between them, give the
 * bits of two vf_tracker_track calls. */
static void tt_case_back_to_back(void) {
  const tt_texture tex = tt_texture_make(777u);
  enum { N = 2240 };
  vf_image f0 = {0}, f1 = {0};
  const double shift[2] = {2.3, -1.4};
  tt_render(&tex, 640, 480, NULL, NULL, 1.0, 0.0, &f0);
  tt_render(&tex, 640, 480, tt_map_shift, shift, 1.0, 0.0, &f1);
  vf_tracker_config tc = vf_tracker_config_default();
  tc.template_mode = VF_TEMPLATE_FIRST_OBSERVATION;
  tc.max_features = N;
  static vf_track_request first[N], second[N];
  static vf_track_result want[N], got[N];
  for (int i = 0; i < N; ++i) {
    first[i] =
        vf_track_request_make(40.0f + (float)(i % 56) * 10.0f, 40.0f + (float)(i / 56) * 10.0f, i);
    second[i] = first[i];
    second[i].new_template = 0; /* the slot the first call took */
    second[i].guess_x += 2.0f;
  }
  vf_pyramid* p0 = tt_pyramid(gpu_ctx, &f0, tc.levels);
  vf_pyramid* p1 = tt_pyramid(gpu_ctx, &f1, tc.levels);
  vf_tracker *ref = NULL, *t = NULL;
  CHECK_OK(vf_tracker_create(gpu_ctx, &tc, &ref));
  CHECK_OK(vf_tracker_create(gpu_ctx, &tc, &t));
  CHECK_OK(vf_tracker_track(ref, p0, p1, first, N, got));
  CHECK_OK(vf_tracker_track(ref, p0, p1, second, N, want));
  for (int drain = 0; drain < 2; ++drain) {
    CHECK_OK(vf_tracker_submit(t, p0, p1, first, N));
    if (drain) CHECK_OK(vf_context_synchronize(gpu_ctx));
    CHECK_OK(vf_tracker_submit(t, p0, p1, second, N));
    CHECK_OK(vf_tracker_collect(t, got));
    int same = 0, converged = 0;
    for (int i = 0; i < N; ++i) {
      same += tt_same_bits(&want[i], &got[i]);
      converged += got[i].status == VF_TRACK_CONVERGED;
    }
    printf("back to back (%s): %d of %d the same bits, %d converged\n",
           drain ? "synchronized between" : "no wait between", same, N, converged);
    CHECK(same == N);
    CHECK(2 * converged >= N);
  }
  vf_tracker_destroy(ref);
  vf_tracker_destroy(t);
  vf_pyramid_destroy(p0);
  vf_pyramid_destroy(p1);
  vf_image_free(&f0);
  vf_image_free(&f1);
}

int main(void) {
  VF_TEST_GPU_CONTEXTS(cpu_ctx, gpu_ctx);

  const tt_texture tex = tt_texture_make(4242u);
  vf_image proc = {0};
  tt_render(&tex, 752, 480, NULL, NULL, 1.0, 0.0, &proc);
  tt_case_image("procedural", &proc, -7.3, 5.6, 0.7, 30.0, 1);
  tt_case_patches(&proc);
  vf_image_free(&proc);
  char buf[1024];
  const char* path = vf_test_data_path("images/birds_752x480.png", buf, sizeof buf);
  if (path != NULL) {
    vf_image birds = {0};
    CHECK_OK(vf_png_read_gray8(path, &birds));
    tt_case_image("birds", &birds, 1.3, 0.7, 1.1, 5.0, 0);
    vf_image_free(&birds);
  } else {
    printf("SKIP birds: %s is absent\n", buf);
  }
  tt_case_sequence();
  tt_case_refine();
  tt_case_refine_paths(VF_TEMPLATE_PREVIOUS_FRAME);
  tt_case_refine_paths(VF_TEMPLATE_FIRST_OBSERVATION);
  tt_case_back_to_back();

  vf_context_destroy(cpu_ctx);
  vf_context_destroy(gpu_ctx);
  VF_TEST_END("test_tracker_gpu");
}
