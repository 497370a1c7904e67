// SPDX-License-Identifier: BSD-3-Clause
/* Sparse stereo without a right image (issue 36, bad input): a frame whose right image is
 * missing (NULL) or of another size is processed for the left camera only: VF_OK, a warning,
 * every left feature counted as VF_RIGHT_NO_IMAGE with no disparity, no camera-1 record and no
 * disparity map that frame; the left tracks go on through it and the next full frame has
 * camera-1 records again. In dense mode the same frame is refused (VF_ERR_INVALID_ARG) and the
 * frontend is unchanged. With --gpu the same on CUDA (host images; the sparse frame then
 * rectifies the right image and matches on a second stream, and its dense maps read that
 * image), skipped (77) without a device. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "frontend_scene.h"
#include "log_capture.h"
#include "vf_test.h"

enum { FRAMES = 7, MAX_IDS = 512 };

typedef struct frame_log {
  int left, right, no_image, other_reasons, finite_disparity, maps;
  int ids;
  uint64_t id[MAX_IDS];
} frame_log;

typedef struct run_log {
  frame_log f[FRAMES];
  int at; /* the frame the callbacks fill */
} run_log;

static void on_features(const vf_feature_frame* fr, void* user) {
  frame_log* g = &((run_log*)user)->f[((run_log*)user)->at];
  for (int i = 0; i < fr->count; ++i) {
    const vf_feature* r = &fr->features[i];
    if (r->camera == 1) {
      g->right++;
      continue;
    }
    g->left++;
    g->finite_disparity += isfinite(r->disparity) != 0;
    if (g->ids < MAX_IDS) g->id[g->ids++] = r->id;
  }
  g->no_image = fr->right_missing[VF_RIGHT_NO_IMAGE];
  for (int k = 0; k < VF_RIGHT_MISSING_REASONS; ++k)
    if (k != VF_RIGHT_NO_IMAGE) g->other_reasons += fr->right_missing[k];
}

static void on_disparity(const vf_disparity_frame* df, void* user) {
  (void)df;
  ((run_log*)user)->f[((run_log*)user)->at].maps++;
}

/* The share of frame b's left ids already in frame a. */
static double kept(const frame_log* a, const frame_log* b) {
  int same = 0;
  for (int i = 0; i < b->ids; ++i)
    for (int j = 0; j < a->ids; ++j) same += b->id[i] == a->id[j];
  return b->ids > 0 ? (double)same / b->ids : 0.0;
}

static vf_frontend_config scene_config(vf_frontend_stereo_mode mode) {
  vf_frontend_config fc = vf_frontend_config_default();
  fc.cam0 = euroc_camera(0);
  fc.cam1 = euroc_camera(1);
  fc.stereo_mode = mode;
  fc.dense_every = 1; /* a map every frame where there can be one */
  fc.disparity_location = VF_MEMORY_HOST;
  return fc;
}

static void test_sparse(const uint8_t* tex, vf_backend backend) {
  log_capture log;
  vf_context* ctx = log_capture_context_on(&log, backend);
  CHECK(ctx != NULL);
  static run_log run;
  memset(&run, 0, sizeof run);
  const vf_frontend_config fc = scene_config(VF_FRONTEND_STEREO_SPARSE);
  vf_frontend_callbacks cb = {on_features, on_disparity, &run};
  vf_frontend* fe = NULL;
  vf_image l, r, small;
  memset(&small, 0, sizeof small);
  CHECK_OK(vf_frontend_create(ctx, &fc, &cb, &fe));
  CHECK_OK(vf_image_alloc(&l, fc.cam0.width, fc.cam0.height, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&r, fc.cam0.width, fc.cam0.height, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(
      vf_image_alloc(&small, fc.cam0.width / 2, fc.cam0.height / 2, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int k = 0; k < FRAMES && fe != NULL; ++k) {
    run.at = k;
    scene_frame(tex, k, 0, &l);
    scene_frame(tex, k, 1, &r);
    /* Frame 4: no right image; frame 5: one of half the size. */
    const vf_image* right = k == 4 ? NULL : k == 5 ? &small : &r;
    const int before = log.count;
    CHECK_OK(vf_frontend_process(fe, 1000000000LL + 50000000LL * k, &l, right));
    /* The tolerated check's message is a warning, not the last error of a call that succeeded. */
    CHECK(vf_frontend_last_error(fe)[0] == '\0');
    CHECK(strstr(vf_last_error_message(), "right image") == NULL);
    const int warned = log.count > before && strstr(log.text, "without camera-1 records") != NULL;
    const frame_log* g = &run.f[k];
    if (k == 4 || k == 5) {
      CHECK(warned);
      CHECK(g->left > 50 && g->right == 0 && g->no_image == g->left);
      CHECK(g->finite_disparity == 0 && g->maps == 0);
      /* The left tracks go on through the frame. */
      CHECK(kept(&run.f[k - 1], g) > 0.8);
    } else {
      /* Every left feature matched or withheld for a reason of its own match. */
      CHECK(!warned);
      CHECK(g->no_image == 0 && g->right + g->other_reasons == g->left && g->maps == 1);
    }
  }
  CHECK(kept(&run.f[5], &run.f[6]) > 0.8 && run.f[6].right > 0);
  printf(
      "sparse: frames 4 (no right image) and 5 (half size): %d and %d left features, no "
      "camera-1 records; %.0f%% of frame 3's tracks on frame 5; frame 6: %d camera-1 records\n",
      run.f[4].left, run.f[5].left, 100.0 * kept(&run.f[3], &run.f[5]), run.f[6].right);
  vf_image_free(&small);
  vf_image_free(&l);
  vf_image_free(&r);
  vf_frontend_destroy(fe);
  vf_context_destroy(ctx);
}

/* Dense mode needs the right image for the map: the frame is refused and changes nothing (the
 * next full frame keeps the tracks of the one before). */
static void test_dense(const uint8_t* tex, vf_backend backend) {
  log_capture log;
  vf_context* ctx = log_capture_context_on(&log, backend);
  CHECK(ctx != NULL);
  static run_log run;
  memset(&run, 0, sizeof run);
  vf_frontend_config fc = scene_config(VF_FRONTEND_STEREO_DENSE);
  /* The scene's right crops are no rectified pair: the map's depth edges would refuse births. */
  fc.birth_edge_radius = 0;
  vf_frontend_callbacks cb = {on_features, on_disparity, &run};
  vf_frontend* fe = NULL;
  vf_image l, r;
  CHECK_OK(vf_frontend_create(ctx, &fc, &cb, &fe));
  CHECK_OK(vf_image_alloc(&l, fc.cam0.width, fc.cam0.height, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&r, fc.cam0.width, fc.cam0.height, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int k = 0; k < 3 && fe != NULL; ++k) {
    run.at = k;
    scene_frame(tex, k, 0, &l);
    scene_frame(tex, k, 1, &r);
    const vf_status s =
        vf_frontend_process(fe, 1000000000LL + 50000000LL * k, &l, k == 1 ? NULL : &r);
    CHECK(k == 1 ? s == VF_ERR_INVALID_ARG : s == VF_OK);
    if (k == 1) CHECK(strstr(vf_frontend_last_error(fe), "right image is missing") != NULL);
  }
  CHECK(run.f[1].left == 0 && run.f[1].maps == 0);
  CHECK(run.f[2].left > 50 && kept(&run.f[0], &run.f[2]) > 0.8);
  vf_image_free(&l);
  vf_image_free(&r);
  vf_frontend_destroy(fe);
  vf_context_destroy(ctx);
}

int main(int argc, char** argv) {
  const int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
  if (gpu) VF_TEST_REQUIRE_CUDA();
  const vf_backend backend = gpu ? VF_BACKEND_CUDA : VF_BACKEND_CPU;
  uint8_t* tex = scene_texture(3);
  CHECK(tex != NULL);
  if (tex != NULL) {
    test_sparse(tex, backend);
    test_dense(tex, backend);
  }
  free(tex);
  VF_TEST_END(gpu ? "test_frontend_no_right --gpu" : "test_frontend_no_right");
}
