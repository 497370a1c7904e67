// SPDX-License-Identifier: BSD-3-Clause
/* The frontend handle: configuration, creation of every stage and buffer, the IMU input, the
 * back channel, and vf_frontend_process's bookkeeping around the frame steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_env.h"
#include "core/vf_fault.h"
#include "frontend/vf_frontend_internal.h"

/* A reference patch is taken where a feature is born and needs its half side plus the
 * smoothed sampler's and the gradient's pixel, and one more for a patch that grows as the camera
 * approaches: features closer to the edge could not be refined. */
static float vf_frontend_refine_border(int refine_patch) { return (float)(refine_patch / 2 + 3); }

vf_frontend_config vf_frontend_config_default(void) {
  vf_frontend_config c;
  memset(&c, 0, sizeof c);
  c.cam0 = c.cam1 = vf_camera_default();
  c.rectify = vf_rectify_config_default();
  c.rectify.alpha = 0.0; /* only valid pixels: no black borders for the detector and SGM */
  c.pyramid_levels = 4;
  c.detector = vf_detector_config_default();
  c.tracker = vf_tracker_config_default();
  /* Frame to frame from the previous image (an unbiased step), then the refinement against the
   * track's reference keeps it on its point; the two must agree within refine_max_shift. */
  c.tracker.template_mode = VF_TEMPLATE_PREVIOUS_FRAME;
  c.tracker.refine = 1;
  /* Two kernels: the one-launch kernel's blocks hold multiprocessors through their tracking,
   * which the SGM on the second stream needs meanwhile (the frame measured slower with it,
   * docs/perf/refinement.md). */
  c.tracker.refine_one_launch = 0;
  c.stereo = vf_stereo_config_default();
  c.features = vf_feature_set_config_default();
  c.features.border = vf_frontend_refine_border(c.tracker.refine_patch);
  c.stereo_enabled = 1;
  c.right_features = 1;
  c.right_max_lr_diff = 1.0f;
  c.edge_radius = 4;
  c.edge_max_jump = 1.0f;
  /* New tracks on depth edges dropped over the refinement's 21 px reference patch, with a step
   * threshold relative to the disparity and empty cells refilled every frame: issue 19's drift
   * bars on vf_synth at little cost in features on EuRoC (docs/perf/drift_tail.md). */
  c.features.detect_every = 1;
  c.birth_edge_radius = 10;
  c.birth_max_jump = 0.5f;
  c.birth_max_jump_ratio = 0.03f;
  c.birth_max_holes = -1;
  /* A first frame has only new corners, and the check refused two of three on vf_synth: a cell
   * then tries its four bands' corners instead of none (docs/perf/drift_tail.md). */
  c.birth_candidates = 4;
  /* Each feature's disparity matched in the rectified pair (7: the refinement's patch less its
   * rim), which removes the map's bias at features: the estimator's trajectory improved with it
   * on every vf_synth sequence once the left tracks' lead was gone (docs/estimator.md). */
  c.disparity_refine_radius = 7;
  /* Tracks that slide over the scene cost a backend more than their number suggests: on
   * vf_synth a few corners on depth steps, sliding pixels, set the estimator's error
   * (docs/estimator.md). */
  c.slide_max = 0.7f;
  c.gyro_seeding = 1;
  c.imu_capacity = 4000;
  c.imu_max_gap_ns = 50000000; /* 10 samples at EuRoC's 200 Hz */
  c.imu_timeshift_s = 0.0;
  c.disparity_location = VF_MEMORY_DEVICE;
  c.stereo_mode = VF_FRONTEND_STEREO_DENSE;
  c.dense_every = 0;
  c.sparse_edge_max_step = 4.0f;
  /* On vf_synth twice the median kept 99.6% of the drift within 1 px (99.0% without) and halved
   * the records over 0.5 px; a real EuRoC sequence kept 99% of its features
   * (docs/perf/sparse_stereo.md). */
  c.sparse_birth_max_loss = 2.0f;
  c.sparse = vf_stereo_match_config_default();
  return c;
}

static vf_status vf_frontend_validate(const vf_frontend_config* c) {
  const char* fn = "vf_frontend_create";
  if (c->pyramid_levels < 1 || c->pyramid_levels > VF_PYRAMID_MAX_LEVELS)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: pyramid_levels %d is outside 1..%d", fn,
                   c->pyramid_levels, VF_PYRAMID_MAX_LEVELS);
  if (c->tracker.levels > c->pyramid_levels || c->detector.max_level >= c->pyramid_levels)
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: tracker.levels %d and detector.max_level %d need pyramid_levels %d", fn,
                   c->tracker.levels, c->detector.max_level, c->pyramid_levels);
  if (c->imu_capacity < 2 || c->imu_capacity > 1000000 || c->imu_max_gap_ns <= 0)
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: imu_capacity %d (2..1000000) or imu_max_gap_ns is out of range", fn,
                   c->imu_capacity);
  /* Kalibr's estimates are milliseconds; a second or more is a unit or sign mistake. */
  if (!(fabs(c->imu_timeshift_s) <= 1.0))
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: imu_timeshift_s %g s (t_imu = t_cam + shift) is not finite or outside "
                   "-1..1 s",
                   fn, c->imu_timeshift_s);
  if (!(c->right_max_lr_diff >= 0.0f && c->right_max_lr_diff <= 4096.0f))
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: right_max_lr_diff %g is outside 0..4096 px", fn,
                   (double)c->right_max_lr_diff);
  if (c->edge_radius < 0 || c->edge_radius > 15 ||
      !(c->edge_max_jump >= 0.0f && c->edge_max_jump <= 4096.0f))
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: edge_radius %d (0..15) or edge_max_jump %g (0..4096 px) is out of range",
                   fn, c->edge_radius, (double)c->edge_max_jump);
  if (c->birth_edge_radius < 0 || c->birth_edge_radius > 15 ||
      !(c->birth_max_jump >= 0.0f && c->birth_max_jump <= 4096.0f))
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: birth_edge_radius %d (0..15) or birth_max_jump %g (0..4096 px) is out of "
                   "range",
                   fn, c->birth_edge_radius, (double)c->birth_max_jump);
  if (!(c->birth_max_jump_ratio >= 0.0f && c->birth_max_jump_ratio <= 1.0f) ||
      c->birth_max_holes < -1 || c->birth_max_holes > 961)
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: birth_max_jump_ratio %g (0..1) or birth_max_holes %d (-1..961) is out of "
                   "range",
                   fn, (double)c->birth_max_jump_ratio, c->birth_max_holes);
  if (c->birth_candidates < 1 || c->birth_candidates > 8)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: birth_candidates %d is outside 1..8", fn,
                   c->birth_candidates);
  /* Each band is a cell of the candidates' detector, whose cells span whole level-k rows. */
  const int lv = c->detector.max_level;
  if (vf_frontend_tries_candidates(c) && lv >= 0 && lv < VF_PYRAMID_MAX_LEVELS &&
      c->detector.cell_height % (c->birth_candidates << lv) != 0)
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: birth_candidates %d needs detector.cell_height %d to be a multiple of %d "
                   "(birth_candidates x 2^detector.max_level)",
                   fn, c->birth_candidates, c->detector.cell_height, c->birth_candidates << lv);
  if (!(c->slide_max >= 0.0f && c->slide_max <= 4096.0f))
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: slide_max %g is outside 0..4096 px", fn,
                   (double)c->slide_max);
  if (c->disparity_refine_radius < 0 || c->disparity_refine_radius > 10)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: disparity_refine_radius %d is outside 0..10", fn,
                   c->disparity_refine_radius);
  if (c->disparity_location != VF_MEMORY_HOST && c->disparity_location != VF_MEMORY_DEVICE)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: disparity_location %d is unknown", fn,
                   (int)c->disparity_location);
  if (c->stereo_mode != VF_FRONTEND_STEREO_DENSE && c->stereo_mode != VF_FRONTEND_STEREO_SPARSE)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: stereo_mode %d is unknown", fn,
                   (int)c->stereo_mode);
  if (!(c->sparse_edge_max_step >= 0.0f && c->sparse_edge_max_step <= 4096.0f))
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: sparse_edge_max_step %g is outside 0..4096 px",
                   fn, (double)c->sparse_edge_max_step);
  if (!(c->sparse_birth_max_loss == 0.0f ||
        (c->sparse_birth_max_loss >= 1.0f && c->sparse_birth_max_loss <= 1000.0f)))
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: sparse_birth_max_loss %g is neither 0 (off) nor within 1..1000", fn,
                   (double)c->sparse_birth_max_loss);
  if (c->dense_every < 0 || c->dense_every > 1000000)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: dense_every %d is outside 0..1000000", fn,
                   c->dense_every);
  if (c->tracker.refine && c->features.border < vf_frontend_refine_border(c->tracker.refine_patch))
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: features.border %g is below the %g px that tracker.refine_patch %d needs",
                   fn, (double)c->features.border,
                   (double)vf_frontend_refine_border(c->tracker.refine_patch),
                   c->tracker.refine_patch);
  return VF_OK;
}

/* The rectified left camera in the body frame (for the gyroscope's guess): R_BS of camera 0
 * times R1^T, since R1 takes raw camera-0 vectors to the rectified camera. */
static void vf_frontend_body_rotation(vf_frontend* fe) {
  const double* T = fe->cfg.cam0.T_BS;
  const double* R1 = fe->rect.R1;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      fe->R_b_c[3 * i + j] =
          T[4 * i] * R1[3 * j] + T[4 * i + 1] * R1[3 * j + 1] + T[4 * i + 2] * R1[3 * j + 2];
  fe->K[0] = fe->K[1] = fe->rect.f;
  fe->K[2] = fe->rect.cx;
  fe->K[3] = fe->rect.cy;
}

/* The most points one sampler call reads: the tracks, or a frame's held candidates. */
static int vf_frontend_points(const vf_frontend* fe) {
  const int bands = fe->band_grid.cols * fe->band_grid.rows;
  return bands > fe->cfg.features.max_features ? bands : fe->cfg.features.max_features;
}

#define VF_ALLOC_ARRAY(ptr, n) ((ptr) = vf_calloc((size_t)(n), sizeof *(ptr))) == NULL

static vf_status vf_frontend_alloc_host(vf_frontend* fe) {
  int n = fe->cfg.features.max_features, points = vf_frontend_points(fe);
  size_t cells = (size_t)fe->grid.cols * (size_t)fe->grid.rows;
  size_t bands = (size_t)fe->band_grid.cols * (size_t)fe->band_grid.rows;
  if (VF_ALLOC_ARRAY(fe->motion, n) || VF_ALLOC_ARRAY(fe->motion_next, n) ||
      VF_ALLOC_ARRAY(fe->guess, 2 * n) || VF_ALLOC_ARRAY(fe->xy, 2 * points) ||
      VF_ALLOC_ARRAY(fe->probes, points) || VF_ALLOC_ARRAY(fe->disparities, n) ||
      VF_ALLOC_ARRAY(fe->priors, points) || VF_ALLOC_ARRAY(fe->matches, points) ||
      VF_ALLOC_ARRAY(fe->born_xy, 4 * points) || VF_ALLOC_ARRAY(fe->born, 2 * points) ||
      VF_ALLOC_ARRAY(fe->born_id, 2 * points) || VF_ALLOC_ARRAY(fe->born_at, n) ||
      VF_ALLOC_ARRAY(fe->births, n) || VF_ALLOC_ARRAY(fe->occupancy, cells) ||
      /* Used by the CUDA early detection only; a few kB on every backend, so that the CPU's
       * fault walk (test_fault_alloc) reaches this allocation too. */
      VF_ALLOC_ARRAY(fe->early_kept, cells) ||
      (bands > 0 &&
       (VF_ALLOC_ARRAY(fe->band_occupancy, bands) || VF_ALLOC_ARRAY(fe->held, bands))) ||
      VF_ALLOC_ARRAY(fe->records, 2 * n) || VF_ALLOC_ARRAY(fe->predictions, n) ||
      VF_ALLOC_ARRAY(fe->rigid, n) || VF_ALLOC_ARRAY(fe->rigid_track, n) ||
      VF_ALLOC_ARRAY(fe->rigid_residual, 2 * n) ||
      VF_ALLOC_ARRAY(fe->rigid_scratch, VF_RIGID_SCRATCH_FLOATS(n)) ||
      VF_ALLOC_ARRAY(fe->slide, 2 * n) || VF_ALLOC_ARRAY(fe->slid, n)) {
    return vf_fail(NULL, VF_ERR_NOMEM, "vf_frontend_create: out of memory");
  }
  return VF_OK;
}

static vf_status vf_frontend_alloc_images(vf_frontend* fe, vf_memory where) {
  int w = fe->rect.width, h = fe->rect.height;
  /* The rectified left image is the frame's pyramid level 0 (vf_frontend_bind_left), not an
   * image of its own that the pyramid would copy. */
  vf_frontend_bind_left(fe);
  vf_status s = vf_image_alloc(&fe->rectified[1], w, h, VF_PIXEL_U8, where);
  const int map = vf_frontend_has_map(&fe->cfg);
  if (s == VF_OK && map) s = vf_image_alloc(&fe->disparity, w, h, VF_PIXEL_U16, where);
  /* CUDA with a host disparity frame: the map and the image are copied out for the callback. */
  if (s == VF_OK && map && where == VF_MEMORY_DEVICE &&
      fe->cfg.disparity_location == VF_MEMORY_HOST) {
    s = vf_image_alloc(&fe->disparity_host, w, h, VF_PIXEL_U16, VF_MEMORY_HOST);
    if (s == VF_OK) s = vf_image_alloc(&fe->rectified_host, w, h, VF_PIXEL_U8, VF_MEMORY_HOST);
  }
  return s;
}

/* The context of the right rectification and the stereo stage: fe->side or fe->ctx. */
static vf_context* vf_frontend_stereo_context(vf_frontend* fe) {
  return fe->side != NULL ? fe->side : fe->ctx;
}

/* Whether the frame detects in every cell beside the tracking (vf_frontend_detect_early): on
 * CUDA without SGM on a side stream (beside it, the dense frame got slower: vf_bench on the H200
 * 269-274 -> 281-315 us), and on a GPU large enough that the detection's blocks leave the
 * tracking its multiprocessors. It executes the occupied cells' work too (on vf_synth 3.7 M warp
 * instructions a detection against 1.9 M for the empty cells), which a small GPU (a TX2's 2 or an
 * Orin's 8-16 multiprocessors) pays in time: there the detection waits for the tracking. */
static int vf_frontend_detects_early(const vf_frontend* fe) {
  enum { kMinMultiprocessors = 32 };
  if (fe->ctx->backend != VF_BACKEND_CUDA || fe->side != NULL) return 0;
  /* VF_FRONTEND_EARLY_DETECT=0 or 1 fixes the choice (measurements: a small GPU's frame counted
   * on a large one, docs/perf/tx2.md). */
  const int fixed = vf_env_digit("VF_FRONTEND_EARLY_DETECT", 0, 1);
  if (fixed >= 0) return fixed;
  vf_device_info info;
  return vf_context_device_info(fe->ctx, &info) == VF_OK &&
         info.multiprocessors >= kMinMultiprocessors;
}

static vf_status vf_frontend_make_stages(vf_frontend* fe) {
  vf_context* ctx = fe->ctx;
  vf_frontend_config* c = &fe->cfg;
  int w = fe->rect.width, h = fe->rect.height;
  vf_status s = VF_OK;
  /* Sparse stereo has no SGM to overlap: everything on the main stream (an occasional dense map
   * too). */
  if (ctx->backend == VF_BACKEND_CUDA && c->stereo_enabled && !vf_frontend_sparse(c)) {
    s = vf_context_create_sibling(ctx, &fe->side);
    if (s == VF_OK) s = vf_stream_link_init(&fe->left_ready, ctx, fe->side);
    if (s == VF_OK) s = vf_stream_link_init(&fe->stereo_done, fe->side, ctx);
    if (s == VF_OK) s = vf_stage_clock_init(&fe->side_clock, fe->side, VF_SIDE_COUNT + 1);
  }
  /* Sparse stereo on CUDA: the right image's rectification and the births' matches on a stream
   * beside the tracking (vf_frontend_frame.c); a view of the context with a stream of its own
   * (no worker threads of its own: the work is the GPU's). */
  if (s == VF_OK && ctx->backend == VF_BACKEND_CUDA && vf_frontend_sparse(c)) {
    s = vf_context_create_stream_view(ctx, ctx->log_fn, ctx->log_user, &fe->match_ctx);
    if (s == VF_OK) s = vf_stream_link_init(&fe->right_ready, fe->match_ctx, ctx);
  }
  for (int k = 0; k < 2 && s == VF_OK; ++k) {
    vf_remap_config rc;
    s = vf_remap_config_rectify(k == 0 ? &c->cam0 : &c->cam1, &fe->rect, k, &rc);
    vf_context* on = k == 0                  ? ctx
                     : fe->match_ctx != NULL ? fe->match_ctx
                                             : vf_frontend_stereo_context(fe);
    if (s == VF_OK) s = vf_remap_create(on, &rc, &fe->remap[k]);
  }
  vf_pyramid_config pc = {w, h, c->pyramid_levels};
  for (int k = 0; k < 2 && s == VF_OK; ++k) s = vf_pyramid_create(ctx, &pc, &fe->pyramid[k]);
  c->detector.width = w;
  c->detector.height = h;
  c->detector.host_results = 1;
  if (s == VF_OK) s = vf_detector_create(ctx, &c->detector, &fe->detector);
  if (s == VF_OK) s = vf_detector_grid(fe->detector, &fe->grid);
  if (s == VF_OK && vf_frontend_detects_early(fe)) {
    s = vf_context_create_sibling(ctx, &fe->early_ctx);
    if (s == VF_OK) s = vf_stream_link_init(&fe->pyramid_ready, ctx, fe->early_ctx);
    if (s == VF_OK) s = vf_detector_create(fe->early_ctx, &c->detector, &fe->early_detector);
  }
  if (s == VF_OK && vf_frontend_tries_candidates(c)) {
    vf_detector_config bc = c->detector;
    bc.cell_height /= c->birth_candidates;
    s = vf_detector_create(ctx, &bc, &fe->band_detector);
    if (s == VF_OK) s = vf_detector_grid(fe->band_detector, &fe->band_grid);
  }
  c->features.width = w;
  c->features.height = h;
  c->features.grid = fe->grid;
  if (s == VF_OK) s = vf_feature_set_create(&c->features, &fe->set);
  c->tracker.max_features = c->features.max_features;
  if (s == VF_OK) s = vf_tracker_create(ctx, &c->tracker, &fe->tracker);
  c->stereo.width = w;
  c->stereo.height = h;
  if (s == VF_OK && vf_frontend_has_map(c))
    s = vf_stereo_create(vf_frontend_stereo_context(fe), &c->stereo, &fe->stereo);
  /* The sparse matcher searches the stereo stage's range, flags depth edges over the depth
   * flags' window, and matches sub-pixel with the dense mode's refinement window. */
  c->sparse.min_disparity = c->stereo.min_disparity;
  c->sparse.max_disparity = c->stereo.min_disparity + c->stereo.disparities - 1;
  /* Cells of a 9 x 9 window (edge_radius 4) are 3 x 3 pixels, too few to match: the depth-step
   * check takes at least the birth check's window (docs/perf/sparse_stereo.md). */
  c->sparse.step_radius =
      c->edge_radius > c->birth_edge_radius ? c->edge_radius : c->birth_edge_radius;
  if (c->sparse.step_radius < 9) c->sparse.step_radius = 9;
  if (c->disparity_refine_radius > 0) c->sparse.refine.radius = c->disparity_refine_radius;
  if (s == VF_OK && vf_frontend_sparse(c)) {
    s = vf_stereo_match_config_check(&c->sparse);
    if (s != VF_OK) s = vf_fail(NULL, s, "frontend.sparse: %s", vf_last_error_message());
  }
  if (s == VF_OK) s = vf_sampler_create(ctx, vf_frontend_points(fe), &fe->sampler);
  if (s == VF_OK && fe->match_ctx != NULL) {
    s = vf_sampler_create(fe->match_ctx, vf_frontend_points(fe), &fe->birth_sampler);
  }
  if (s == VF_OK) s = vf_imu_buffer_create(c->imu_capacity, c->imu_max_gap_ns, &fe->imu);
  fe->imu_offset_ns = (int64_t)llround(c->imu_timeshift_s * 1e9); /* to the nearest ns */
  if (s == VF_OK) s = vf_stage_clock_init(&fe->clock, ctx, VF_STAGE_COUNT + 1);
  return s;
}

vf_status vf_frontend_create(vf_context* ctx, const vf_frontend_config* config,
                             const vf_frontend_callbacks* callbacks, vf_frontend** out) {
  VF_CHECK_ARG_NOT_NULL(NULL, out);
  *out = NULL;
  VF_CHECK_ARG_NOT_NULL(NULL, ctx);
  VF_CHECK_ARG_NOT_NULL(NULL, config);
  vf_status s = vf_frontend_validate(config);
  if (s != VF_OK) return s;
  vf_frontend* fe = vf_calloc(1, sizeof *fe);
  if (fe == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_frontend_create: out of memory");
  fe->ctx = ctx;
  fe->cfg = *config;
  fe->birth_loss_limit = INFINITY; /* no births seen yet: no correlation check */
  if (callbacks != NULL) fe->cb = *callbacks;
  if (ctx->backend == VF_BACKEND_CPU) fe->cfg.disparity_location = VF_MEMORY_HOST;
  s = vf_stereo_rectify(&fe->cfg.cam0, &fe->cfg.cam1, &fe->cfg.rectify, &fe->rect);
  if (s == VF_OK) {
    vf_frontend_body_rotation(fe);
    s = vf_frontend_make_stages(fe);
  }
  if (s == VF_OK) s = vf_frontend_alloc_host(fe);
  if (s == VF_OK)
    s = vf_frontend_alloc_images(
        fe, ctx->backend == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST);
  if (s != VF_OK) {
    /* Keep the failing stage's message through the clean-up. */
    char msg[VF_ERROR_MESSAGE_MAX];
    snprintf(msg, sizeof msg, "%s", vf_last_error_message());
    vf_frontend_destroy(fe);
    return vf_fail(NULL, s, "vf_frontend_create: %s", msg);
  }
  *out = fe;
  return VF_OK;
}

void vf_frontend_destroy(vf_frontend* fe) {
  if (fe == NULL) return;
  for (int k = 0; k < 2; ++k) {
    vf_remap_destroy(fe->remap[k]);
    vf_pyramid_destroy(fe->pyramid[k]);
  }
  vf_image_free(&fe->rectified[1]); /* [0] is a view of a pyramid's level 0 */
  vf_detector_destroy(fe->detector);
  vf_detector_destroy(fe->band_detector);
  vf_detector_destroy(fe->early_detector);
  vf_stream_link_release(&fe->pyramid_ready);
  vf_context_destroy(fe->early_ctx);
  free(fe->early_kept);
  vf_tracker_destroy(fe->tracker);
  vf_feature_set_destroy(fe->set);
  vf_stereo_destroy(fe->stereo);
  vf_sampler_destroy(fe->sampler);
  vf_sampler_destroy(fe->birth_sampler);
  vf_imu_buffer_destroy(fe->imu);
  vf_stage_clock_release(&fe->clock);
  vf_image_free(&fe->disparity);
  vf_image_free(&fe->disparity_host);
  vf_image_free(&fe->rectified_host);
  /* After the stages that queue work on it: destroying the context drains its stream. */
  vf_stage_clock_release(&fe->side_clock);
  vf_stream_link_release(&fe->left_ready);
  vf_stream_link_release(&fe->stereo_done);
  vf_context_destroy(fe->side);
  vf_stream_link_release(&fe->right_ready);
  vf_context_destroy(fe->match_ctx);
  free(fe->motion);
  free(fe->motion_next);
  free(fe->guess);
  free(fe->xy);
  free(fe->probes);
  free(fe->disparities);
  free(fe->priors);
  free(fe->matches);
  free(fe->born_xy);
  free(fe->born);
  free(fe->born_id);
  free(fe->born_at);
  free(fe->births);
  free(fe->occupancy);
  free(fe->band_occupancy);
  free(fe->held);
  free(fe->records);
  free(fe->predictions);
  free(fe->rigid);
  free(fe->rigid_track);
  free(fe->rigid_residual);
  free(fe->rigid_scratch);
  free(fe->slide);
  free(fe->slid);
  free(fe);
}
