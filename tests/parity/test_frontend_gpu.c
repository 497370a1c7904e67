// SPDX-License-Identifier: BSD-3-Clause
/* The frontend on CUDA against the CPU backend on the same generated scene: the first frame's
 * detections are identical (integer stages agree bit for bit), later frames keep the same
 * tracks at the same positions within the tracker's float tolerance, and the disparities read
 * at them agree (dense: the same map values; sparse stereo: the matches within the sub-pixel
 * step's tolerance, 1e-3 px, CUDA matching the tracked tracks behind the tracking and the births
 * on a stream of their own); every frame's stage times lie within the frame. Skips without a
 * device. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "frontend_scene.h"
#include "vf_test.h"

enum { FRAMES = 10, MAX_REC = 4096 };

typedef struct run {
  int count[FRAMES];
  vf_feature rec[FRAMES][MAX_REC];
  vf_stage_times times[FRAMES];
  int frames;
} run;

static void on_features(const vf_feature_frame* fr, void* user) {
  run* r = user;
  if (r->frames >= FRAMES) return;
  int n = fr->count < MAX_REC ? fr->count : MAX_REC;
  memcpy(r->rec[r->frames], fr->features, sizeof(vf_feature) * (size_t)n);
  r->times[r->frames] = fr->times;
  r->count[r->frames++] = n;
}

/* Every stage timed, none longer than the frame (total_ms, the host's time of the call) by more
 * than the clocks' rounding; the features stage, the frame's last (on CUDA timed on the host's
 * clock from the last event's mark), is never 0 (it builds the records). With a stereo side
 * stream (dense on CUDA) the rectify stage is the sum of both streams' rectifications, which
 * overlap (vf_frontend_run_frame): each within the frame, so the sum within twice it (with host
 * input, pageable uploads on both streams, 0.77 ms of a 0.66 ms frame in one run of six). */
static void check_times(const run* r, const char* what, int side) {
  static const char* const names[6] = {"rectify", "pyramid", "track",
                                       "detect",  "stereo",  "features"};
  for (int f = 0; f < r->frames; ++f) {
    const vf_stage_times* t = &r->times[f];
    const double stage[6] = {t->rectify_ms, t->pyramid_ms, t->track_ms,
                             t->detect_ms,  t->stereo_ms,  t->features_ms};
    for (int k = 0; k < 6; ++k) {
      const double bound = k == 0 && side ? 2.0 * t->total_ms : t->total_ms;
      const int inside = stage[k] >= 0.0 && stage[k] <= bound + 0.01;
      if (!inside)
        printf("%s, frame %d: the %s stage took %.4f ms of the frame's %.4f ms\n", what, f,
               names[k], stage[k], t->total_ms);
      CHECK(inside);
    }
    CHECK(t->features_ms > 0.0);
  }
}

/* Where the frames come from: ordinary host memory, device memory, page-locked host memory. */
enum { INPUT_HOST, INPUT_DEVICE, INPUT_PINNED };

static void replay(vf_backend backend, const uint8_t* tex, run* r, int input, int sparse) {
  const int device_input = input == INPUT_DEVICE;
  vf_context_config cc = vf_context_config_default();
  cc.backend = backend;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  vf_frontend_config fc = vf_frontend_config_default();
  fc.cam0 = euroc_camera(0);
  fc.cam1 = euroc_camera(1);
  /* The scene is a flat texture rectified with a calibration it was not taken with: its
   * disparity map steps everywhere, and the birth check (on by default) would keep no track.
   * test_frontend_synth_gpu runs the check on a scene with true depth. */
  fc.birth_edge_radius = 0;
  if (sparse) fc.stereo_mode = VF_FRONTEND_STEREO_SPARSE;
  vf_frontend_callbacks cb = {on_features, NULL, r};
  vf_frontend* fe = NULL;
  CHECK_OK(vf_frontend_create(ctx, &fc, &cb, &fe));
  vf_image img[2], dev[2];
  for (int k = 0; k < 2; ++k) {
    if (input == INPUT_PINNED) {
      CHECK_OK(vf_image_alloc_pinned(&img[k], 752, 480, VF_PIXEL_U8));
    } else {
      CHECK_OK(vf_image_alloc(&img[k], 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST));
    }
    if (device_input) CHECK_OK(vf_image_alloc(&dev[k], 752, 480, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  }
  for (int f = 0; f < FRAMES && fe != NULL; ++f) {
    for (int k = 0; k < 2; ++k) {
      scene_frame(tex, f, k, &img[k]);
      if (device_input) CHECK_OK(vf_image_copy(&img[k], &dev[k]));
    }
    const vf_image* in = device_input ? dev : img;
    CHECK_OK(vf_frontend_process(fe, 1000000000LL + f * 50000000LL, &in[0], &in[1]));
  }
  vf_frontend_destroy(fe);
  for (int k = 0; k < 2; ++k) {
    vf_image_free(&img[k]);
    if (device_input) vf_image_free(&dev[k]);
  }
  vf_context_destroy(ctx);
}

static const vf_feature* find(const run* r, int f, uint64_t id, int camera) {
  for (int i = 0; i < r->count[f]; ++i)
    if (r->rec[f][i].id == id && r->rec[f][i].camera == camera) return &r->rec[f][i];
  return NULL;
}

/* tolerance: how far the disparities of one track may differ (0: the same bits). */
static void compare(const run* a, const run* b, float tolerance) {
  CHECK(a->frames == FRAMES && b->frames == FRAMES);
  /* Frame 0: detection only, bit for bit. */
  CHECK(a->count[0] == b->count[0]);
  for (int i = 0; i < a->count[0] && i < b->count[0]; ++i) {
    CHECK(a->rec[0][i].id == b->rec[0][i].id && a->rec[0][i].u_rect == b->rec[0][i].u_rect &&
          a->rec[0][i].v_rect == b->rec[0][i].v_rect);
  }
  long pairs = 0, close = 0, both_disp = 0, same_disp = 0, only_one = 0;
  for (int f = 1; f < FRAMES; ++f) {
    for (int i = 0; i < a->count[f]; ++i) {
      const vf_feature* p = &a->rec[f][i];
      if (p->camera != 0) continue;
      const vf_feature* q = find(b, f, p->id, 0);
      if (q == NULL) {
        ++only_one;
        continue;
      }
      ++pairs;
      close += hypotf(p->u_rect - q->u_rect, p->v_rect - q->v_rect) < 0.02f;
      if (!isnan(p->disparity) && !isnan(q->disparity)) {
        ++both_disp;
        same_disp += fabsf(p->disparity - q->disparity) <= tolerance;
      }
    }
  }
  printf(
      "tracks compared %ld (%ld in one backend only), within 0.02 px %.2f%%, %ld with a "
      "disparity in both, %.2f%% of them within %g px\n",
      pairs, only_one, 100.0 * close / pairs, both_disp, 100.0 * same_disp / both_disp,
      (double)tolerance);
  CHECK(pairs > 1000);
  CHECK(only_one <= pairs / 50);
  CHECK(close >= pairs * 98 / 100);
  CHECK(same_disp >= both_disp * 97 / 100);
}

int main(void) {
  VF_TEST_REQUIRE_CUDA();
  uint8_t* tex = scene_texture(5);
  static run cpu, gpu, gpu_dev, gpu_pinned, cpu_sparse, gpu_sparse, gpu_dev_sparse;
  replay(VF_BACKEND_CPU, tex, &cpu, INPUT_HOST, 0);
  replay(VF_BACKEND_CUDA, tex, &gpu, INPUT_HOST, 0);
  replay(VF_BACKEND_CUDA, tex, &gpu_dev, INPUT_DEVICE, 0);
  replay(VF_BACKEND_CUDA, tex, &gpu_pinned, INPUT_PINNED, 0);
  compare(&cpu, &gpu, 0.0f);
  compare(&cpu, &gpu_dev, 0.0f);
  replay(VF_BACKEND_CPU, tex, &cpu_sparse, INPUT_HOST, 1);
  replay(VF_BACKEND_CUDA, tex, &gpu_sparse, INPUT_HOST, 1);
  replay(VF_BACKEND_CUDA, tex, &gpu_dev_sparse, INPUT_DEVICE, 1);
  compare(&cpu_sparse, &gpu_sparse, 1e-3f);
  compare(&cpu_sparse, &gpu_dev_sparse, 1e-3f);
  check_times(&gpu_sparse, "sparse, CUDA, host input", 0);
  check_times(&gpu_dev_sparse, "sparse, CUDA, device input", 0);
  check_times(&cpu, "dense, CPU", 0);
  check_times(&gpu, "dense, CUDA, host input", 1);
  check_times(&gpu_dev, "dense, CUDA, device input", 1);
  check_times(&gpu_pinned, "dense, CUDA, page-locked input", 1);
  /* Page-locked frames are uploaded asynchronously; what the frontend computes from them is
   * what it computes from ordinary host memory, record for record. */
  CHECK(gpu_pinned.frames == gpu.frames);
  for (int f = 0; f < gpu.frames && f < gpu_pinned.frames; ++f) {
    CHECK(gpu_pinned.count[f] == gpu.count[f]);
    for (int i = 0; i < gpu.count[f] && i < gpu_pinned.count[f]; ++i) {
      const vf_feature *a = &gpu.rec[f][i], *b = &gpu_pinned.rec[f][i];
      CHECK(a->id == b->id && a->camera == b->camera && a->flags == b->flags);
      CHECK(memcmp(&a->u, &b->u, sizeof a->u) == 0 && memcmp(&a->v, &b->v, sizeof a->v) == 0);
      CHECK(memcmp(&a->disparity, &b->disparity, sizeof a->disparity) == 0);
    }
  }
  free(tex);
  VF_TEST_END("test_frontend_gpu");
}
