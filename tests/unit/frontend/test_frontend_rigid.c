// SPDX-License-Identifier: BSD-3-Clause
/* The rigid-motion check (frontend.slide_max) on a constructed stereo sequence: a textured plane
 * at one disparity slides 1 px a frame to the left in both cameras (the rig moves sideways), and
 * inside a fixed window a second texture on the same plane slides only 0.6 px a frame (a screen,
 * a conveyor: something that moves on its own, with no depth step to flag it). Tracks on that
 * texture follow it, 0.4 px a frame off the scene's motion: with the check on they end within a
 * few frames, and the background's tracks live on; with slide_max 0 both live on. CPU backend,
 * or CUDA with "cuda" as the argument (skips without a device). */
#include <viofront/viofront.h>

#include "frontend_scene.h"
#include "vf_test.h"

enum { W = 752, H = 480, D = 8, FRAMES = 10, X0 = 280, X1 = 480, Y0 = 150, Y1 = 330 };

/* Texture value at (x, y), bilinear. */
static float rg_sample(const uint8_t* tex, double x, double y) {
  const int x0 = (int)floor(x), y0 = (int)floor(y);
  const double wx = x - x0, wy = y - y0;
  const uint8_t* p = tex + (size_t)y0 * SCENE_W + x0;
  return (float)((1 - wy) * ((1 - wx) * p[0] + wx * p[1]) +
                 wy * ((1 - wx) * p[SCENE_W] + wx * p[SCENE_W + 1]));
}

static int rg_in_window(double x, double y) { return x >= X0 && x < X1 && y >= Y0 && y < Y1; }

/* Frame k of camera `right`: the plane's texture shifted by k px, the window's by 0.6 k px (from
 * another part of the texture), both at disparity D. */
static void rg_render(const uint8_t* tex, int k, int right, vf_image* out) {
  for (int y = 0; y < H; ++y) {
    uint8_t* row = (uint8_t*)out->data + (size_t)y * out->stride_bytes;
    for (int x = 0; x < W; ++x) {
      const double xs = x + (right ? D : 0); /* the scene point this pixel sees */
      const float v = rg_in_window(xs, y) ? rg_sample(tex, xs + 600.0 + 0.6 * k, y + 300.0)
                                          : rg_sample(tex, xs + 40.0 + k, y + 30.0);
      row[x] = (uint8_t)lrintf(v);
    }
  }
}

typedef struct rg_seen {
  int frame;
  uint64_t first_ids[512];
  float first_x[512], first_y[512];
  int first_count;
  uint64_t last_ids[1024];
  int last_count;
} rg_seen;

static void rg_on_features(const vf_feature_frame* fr, void* user) {
  rg_seen* s = user;
  if (s->frame == 0) {
    for (int i = 0; i < fr->count && s->first_count < 512; ++i) {
      if (fr->features[i].camera != 0) continue;
      s->first_ids[s->first_count] = fr->features[i].id;
      s->first_x[s->first_count] = fr->features[i].u_rect;
      s->first_y[s->first_count++] = fr->features[i].v_rect;
    }
  }
  s->last_count = 0;
  for (int i = 0; i < fr->count && s->last_count < 1024; ++i)
    if (fr->features[i].camera == 0) s->last_ids[s->last_count++] = fr->features[i].id;
  s->frame++;
}

static int rg_alive(const rg_seen* s, uint64_t id) {
  for (int i = 0; i < s->last_count; ++i)
    if (s->last_ids[i] == id) return 1;
  return 0;
}

/* Of the first frame's tracks well inside the window and well away from it (and from the left
 * edge the plane moves towards), how many live to the last frame. */
static void rg_run(vf_backend backend, const uint8_t* tex, float slide_max, int* window_born,
                   int* window_alive, int* plane_born, int* plane_alive) {
  vf_frontend_config fc = vf_frontend_config_default();
  fc.cam0 = fc.cam1 = vf_camera_default(); /* 752x480 */
  fc.cam1.T_BS[3] = 0.1; /* 10 cm baseline along x: the scene is drawn in rectified pixels */
  fc.slide_max = slide_max;
  static rg_seen seen;
  memset(&seen, 0, sizeof seen);
  vf_frontend_callbacks cb = {rg_on_features, NULL, &seen};
  vf_context* ctx = NULL;
  vf_frontend* fe = NULL;
  vf_image left, right;
  CHECK_OK(scene_frontend_open(backend, &fc, &cb, &ctx, &fe, &left, &right));
  for (int k = 0; k < FRAMES; ++k) {
    rg_render(tex, k, 0, &left);
    rg_render(tex, k, 1, &right);
    CHECK_OK(vf_frontend_process(fe, 1000000000LL + 50000000LL * k, &left, &right));
  }
  *window_born = *window_alive = *plane_born = *plane_alive = 0;
  for (int i = 0; i < seen.first_count; ++i) {
    const float x = seen.first_x[i], y = seen.first_y[i];
    const int alive = rg_alive(&seen, seen.first_ids[i]);
    if (x > X0 + 15 && x < X1 - 25 && y > Y0 + 15 && y < Y1 - 15) {
      ++*window_born;
      *window_alive += alive;
    } else if (x > 40 && x < W - 30 && y > 30 && y < H - 30 &&
               (x < X0 - 40 || x > X1 + 30 || y < Y0 - 30 || y > Y1 + 30)) {
      ++*plane_born;
      *plane_alive += alive;
    }
  }
  printf("slide_max %.1f: window tracks %d, %d alive after %d frames; plane tracks %d, %d alive\n",
         (double)slide_max, *window_born, *window_alive, FRAMES, *plane_born, *plane_alive);
  scene_frontend_close(ctx, fe, &left, &right);
}

int main(int argc, char** argv) {
  const vf_backend backend = scene_backend_arg(argc, argv);
  uint8_t* tex = scene_texture(23);
  CHECK(tex != NULL);
  if (tex == NULL) VF_TEST_END("test_frontend_rigid");
  int wb, wa, pb, pa;
  rg_run(backend, tex, 0.7f, &wb, &wa, &pb, &pa);
  CHECK(wb >= 5 && pb >= 30);
  CHECK(wa == 0);           /* every track on the moving texture ended */
  CHECK(10 * pa >= 9 * pb); /* the plane's tracks live on */
  int wb0, wa0, pb0, pa0;
  rg_run(backend, tex, 0.0f, &wb0, &wa0, &pb0, &pa0);
  CHECK(wb0 == wb && 10 * wa0 >= 8 * wb0); /* the check is what ended them */
  CHECK(10 * pa0 >= 9 * pb0);
  free(tex);
  VF_TEST_END("test_frontend_rigid");
}
