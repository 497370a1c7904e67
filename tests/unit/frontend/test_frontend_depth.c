// SPDX-License-Identifier: BSD-3-Clause
/* Camera-1 records and depth flags on a constructed stereo pair: a textured background plane at
 * disparity BG_D with a textured box in front at FG_D, seen by two undistorted cameras that need
 * no rectification. Checks, with the default stereo settings: features on the box's vertical
 * edges carry a depth flag (VF_FEATURE_DEPTH_EDGE, or VF_FEATURE_DEPTH_HOLES where the stereo
 * check left the occluded band without disparities); background features whose right match
 * the box hides (the band left of the box) get no camera-1 record; the record of every
 * unflagged feature lies within 1 px of the true right pixel; the missing records add up by
 * reason. With the stereo stage's left-right check off, the frontend's own check (occluders in
 * the map) withholds most hidden matches that would otherwise be emitted. With the birth check
 * on the flags' window and threshold (birth_edge_radius = edge_radius), no new track with a
 * depth flag is kept, and the others are. */
#include <viofront/viofront.h>

#include "frontend_scene.h"
#include "vf_test.h"

enum { W = 752, H = 480, BG_D = 4, FG_D = 60, X0 = 300, X1 = 520, Y0 = 120, Y1 = 360 };

typedef struct result {
  int left, right, flagged, edge_features, edge_flagged, hidden, hidden_with_record, wrong_records;
  int missing[VF_RIGHT_MISSING_REASONS];
} result;

static int in_box(int x, int y) { return x >= X0 && x < X1 && y >= Y0 && y < Y1; }

/* Left: the box's texture inside it, the background's outside; right: each surface moved left
 * by its disparity, the box in front. */
static void render(const uint8_t* tex, vf_image* left, vf_image* right) {
  for (int y = 0; y < H; ++y) {
    uint8_t* l = (uint8_t*)left->data + (size_t)y * left->stride_bytes;
    uint8_t* r = (uint8_t*)right->data + (size_t)y * right->stride_bytes;
    for (int x = 0; x < W; ++x) {
      const uint8_t* bg = tex + (size_t)(y + 20) * SCENE_W + 60;
      const uint8_t* fg = tex + (size_t)(y + 400) * SCENE_W + 500;
      l[x] = in_box(x, y) ? fg[x] : bg[x];
      r[x] = in_box(x + FG_D, y) ? fg[x + FG_D] : bg[x + BG_D];
    }
  }
}

static void on_features(const vf_feature_frame* fr, void* user) {
  result* res = user;
  memcpy(res->missing, fr->right_missing, sizeof res->missing);
  for (int i = 0; i < fr->count; ++i) {
    const vf_feature* f = &fr->features[i];
    if (f->camera == 1) {
      res->right++;
      continue;
    }
    res->left++;
    res->flagged += (f->flags & (VF_FEATURE_DEPTH_EDGE | VF_FEATURE_DEPTH_HOLES)) != 0;
    const float u = f->u_rect, v = f->v_rect;
    /* The record of this feature, if any: same id among the camera-1 records. */
    const vf_feature* q = NULL;
    for (int j = 0; j < fr->count; ++j)
      if (fr->features[j].camera == 1 && fr->features[j].id == f->id) q = &fr->features[j];
    const int x = (int)lrintf(u), y = (int)lrintf(v);
    if (y > Y0 + 2 && y < Y1 - 3 && (abs(x - X0) <= 1 || abs(x - (X1 - 1)) <= 1)) {
      res->edge_features++;
      res->edge_flagged += (f->flags & (VF_FEATURE_DEPTH_EDGE | VF_FEATURE_DEPTH_HOLES)) != 0;
    }
    /* Background seen by the left camera only: the box covers it in the right image. */
    const int hidden =
        !in_box(x, y) && y > Y0 + 1 && y < Y1 - 2 && x < X0 - 1 && x > X0 - (FG_D - BG_D) + 1;
    res->hidden += hidden;
    res->hidden_with_record += hidden && q != NULL;
    /* Unflagged features are single surfaces: their records must be right. */
    const uint32_t depth_flags = VF_FEATURE_DEPTH_EDGE | VF_FEATURE_DEPTH_HOLES;
    if (q != NULL && !hidden && !(f->flags & depth_flags)) {
      const float truth = u - (in_box(x, y) ? FG_D : BG_D);
      const int wrong = fabsf(q->u_rect - truth) > 1.0f || fabsf(q->v_rect - v) > 1e-3f;
      res->wrong_records += wrong;
    }
  }
}

static result run(const uint8_t* tex, int sgm_lr_check, float lr_max_diff, int birth_radius,
                  int birth_candidates) {
  result res;
  memset(&res, 0, sizeof res);
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  vf_frontend_config fc = vf_frontend_config_default();
  fc.cam0 = fc.cam1 = vf_camera_default();
  fc.cam1.T_BS[3] = 0.1; /* 10 cm baseline along x */
  fc.stereo.lr_check = sgm_lr_check;
  fc.right_max_lr_diff = lr_max_diff;
  fc.features.min_distance = 4.0f; /* many features, also on the edges */
  fc.detector.threshold = 5;
  fc.birth_edge_radius = birth_radius;
  fc.birth_candidates = birth_candidates;
  /* The birth check as the flags' rule: the same step, any hole. */
  fc.birth_max_jump = fc.edge_max_jump;
  fc.birth_max_jump_ratio = 0.0f;
  fc.birth_max_holes = 0;
  vf_frontend_callbacks cb = {on_features, NULL, &res};
  vf_frontend* fe = NULL;
  CHECK_OK(vf_frontend_create(ctx, &fc, &cb, &fe));
  vf_image left, right;
  CHECK_OK(vf_image_alloc(&left, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&right, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  render(tex, &left, &right);
  vf_stereo_rectification rc;
  CHECK_OK(vf_frontend_rectification(fe, &rc));
  /* The scene is drawn in rectified pixels: the rectification must be the identity. */
  CHECK_NEAR(rc.f, 458.0, 1e-3);
  CHECK_NEAR(rc.cx, fc.cam0.cx, 1e-3);
  CHECK_OK(vf_frontend_process(fe, 1000, &left, &right));
  vf_image_free(&left);
  vf_image_free(&right);
  vf_frontend_destroy(fe);
  vf_context_destroy(ctx);
  printf(
      "SGM lr_check %d, right_max_lr_diff %.1f: %d left, %d right, edge features %d (%d "
      "flagged), hidden %d (%d with a record), wrong records %d, missing: no disparity %d, "
      "occluded %d, outside %d\n",
      sgm_lr_check, (double)lr_max_diff, res.left, res.right, res.edge_features, res.edge_flagged,
      res.hidden, res.hidden_with_record, res.wrong_records, res.missing[VF_RIGHT_NO_DISPARITY],
      res.missing[VF_RIGHT_OCCLUDED], res.missing[VF_RIGHT_OUTSIDE]);
  return res;
}

int main(void) {
  uint8_t* tex = scene_texture(11);
  CHECK(tex != NULL);
  if (tex == NULL) VF_TEST_END("test_frontend_depth");
  result r = run(tex, 1, 1.0f, 0, 1);
  CHECK(r.left > 100);
  CHECK(r.edge_features >= 3 && r.edge_flagged == r.edge_features);
  CHECK(r.hidden >= 3 && r.hidden_with_record == 0);
  CHECK(r.wrong_records == 0);
  CHECK(r.left - r.right == r.missing[VF_RIGHT_NO_DISPARITY] + r.missing[VF_RIGHT_OCCLUDED] +
                                r.missing[VF_RIGHT_OUTSIDE]);
  /* Without the stereo stage's check: the frontend's check is what keeps hidden matches out. */
  result own = run(tex, 0, 1.0f, 0, 1), off = run(tex, 0, 0.0f, 0, 1);
  CHECK(own.missing[VF_RIGHT_OCCLUDED] > 0 && off.missing[VF_RIGHT_OCCLUDED] == 0);
  CHECK(off.hidden_with_record >= 3 && 2 * own.hidden_with_record < off.hidden_with_record);
  CHECK(own.wrong_records == 0);
  /* Every feature of the frame is new: those the flags mark are the ones the birth check drops. */
  result born = run(tex, 1, 1.0f, 4, 1);
  CHECK(r.flagged > 0 && born.flagged == 0 && born.edge_features == 0);
  CHECK(born.left == r.left - r.flagged);
  /* With four candidates a cell: other corners of the refused cells take their place, none on an
   * edge either. */
  result bands = run(tex, 1, 1.0f, 4, 4);
  CHECK(bands.flagged == 0 && bands.edge_features == 0);
  CHECK(bands.left > born.left);
  free(tex);
  VF_TEST_END("test_frontend_depth");
}
