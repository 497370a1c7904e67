// SPDX-License-Identifier: BSD-3-Clause
/* Issue 17: every allocation site of the library made to fail (src/core/vf_fault.h). For each
 * scenario (a context, the frontend on a moving scene, each stereo method, the standalone
 * stages, the EuRoC reader on the real excerpt, config and image files) the walk runs it with
 * the k-th allocation failing, k = 1, 2, ... until a run sees no failure. Each failure must give
 * the documented status with a message, a failed create must leave its handle NULL, a handle whose
 * per-frame call failed must do its next calls right (the fault is one-shot), and nothing may
 * crash or leak (ASan's leak check in CI). At the end every allocation site compiled into the
 * library must have failed at least once: a new site that no scenario reaches fails the test.
 * Usage: test_fault_alloc [cpu|cuda]: cpu walks host allocations on the CPU backend; cuda walks
 * pinned and device allocations and every CUDA launch, stream, event and copy call on the CUDA
 * backend (skips without a device). */
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "fault_walk.h"
#include "features/vf_detector_batch.h"
#include "frontend_scene.h"
#include "vf_test.h"

static vf_backend g_backend = VF_BACKEND_CPU;
static uint8_t* g_texture;
/* The test's own images, made before the walk (the library's allocator counts them too). */
static vf_image g_left, g_right, g_small[4]; /* left, right, disparity U16 and F32 */
static char g_gt_seq[1024];

static vf_context* make_context(walk_run* r) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = g_backend;
  vf_context* ctx = NULL;
  if (!walk_step(r, vf_context_create(&cc, &ctx))) CHECK(ctx == NULL);
  return ctx;
}

static void sc_context(walk_run* r) { vf_context_destroy(make_context(r)); }

/* The frontend: create, IMU, four frames, a reject and a predict between them. */
static void frontend_frames(walk_run* r, vf_stereo_method method, vf_template_mode templates,
                            int births) {
  vf_context* ctx = make_context(r);
  if (ctx == NULL) return;
  vf_frontend_config fc = vf_frontend_config_default();
  fc.cam0 = euroc_camera(0);
  fc.cam1 = euroc_camera(1);
  if (method != VF_STEREO_SGM) fc.stereo = vf_stereo_config_default_for(method);
  fc.right_features = 1;
  fc.tracker.template_mode = templates;
  /* The scene is a flat texture rectified with a calibration it was not taken with: its
   * disparity map steps everywhere, so the birth check (on by default) would refuse every new
   * track and no frame would reach the tracker's launches. The check's probe is the features
   * stage's, which these frames still run. One scenario keeps it, for the allocations of its
   * candidates (a second detector and the held corners). */
  if (!births) fc.birth_edge_radius = 0;
  vf_frontend* fe = NULL;
  if (!walk_step(r, vf_frontend_create(ctx, &fc, NULL, &fe))) {
    CHECK(fe == NULL);
    vf_context_destroy(ctx);
    return;
  }
  int64_t t = 1000000000;
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < 10; ++i) {
      double gyro[3] = {0.01, 0.0, 0.0}, acc[3] = {0.0, 0.0, 9.81};
      walk_step(r, vf_frontend_push_imu(fe, t - 50000000 + i * 5000000, gyro, acc));
    }
    scene_frame(g_texture, k, 0, &g_left);
    scene_frame(g_texture, k, 1, &g_right);
    walk_step(r, vf_frontend_process(fe, t, &g_left, &g_right));
    if (k == 2) {
      uint64_t id = 1;
      float uv[2] = {100.0f, 100.0f};
      walk_tolerate(r, vf_frontend_predict(fe, &id, uv, 1));
      walk_tolerate(r, vf_frontend_reject(fe, &id, 1));
    }
    t += 50000000;
  }
  vf_frontend_destroy(fe);
  vf_context_destroy(ctx);
}

static void sc_frontend(walk_run* r) {
  frontend_frames(r, VF_STEREO_SGM, VF_TEMPLATE_PREVIOUS_FRAME, 0);
}
static void sc_frontend_births(walk_run* r) {
  frontend_frames(r, VF_STEREO_SGM, VF_TEMPLATE_FIRST_OBSERVATION, 1);
}
static void sc_frontend_zncc(walk_run* r) {
  frontend_frames(r, VF_STEREO_ZNCC_FASTDT, VF_TEMPLATE_FIRST_OBSERVATION, 0);
}

/* The rig frontend: a pair and a camera in no pair (a unit of each kind, each on a context view),
 * IMU, three image sets, the back channel between them. */
static void sc_rig_frontend(walk_run* r) {
  vf_context* ctx = make_context(r);
  if (ctx == NULL) return;
  vf_rig rig = vf_rig_default();
  const vf_camera cams[3] = {euroc_camera(0), euroc_camera(1), euroc_camera(0)};
  for (int c = 0; c < 3; ++c) CHECK_OK(vf_rig_add_camera(&rig, NULL, &cams[c]));
  CHECK_OK(vf_rig_add_pair(&rig, 0, 1));
  vf_frontend_config fc = vf_frontend_config_default();
  fc.birth_edge_radius = 0; /* as in frontend_frames: the scene is no rectified pair */
  vf_rig_frontend* fe = NULL;
  if (!walk_step(r, vf_rig_frontend_create(ctx, &rig, &fc, &fe))) {
    CHECK(fe == NULL);
    vf_context_destroy(ctx);
    return;
  }
  int64_t t = 1000000000;
  for (int k = 0; k < 3; ++k) {
    double gyro[3] = {0.01, 0.0, 0.0}, acc[3] = {0.0, 0.0, 9.81};
    walk_step(r, vf_rig_frontend_add_imu(fe, t - 5000000, gyro, acc));
    scene_frame(g_texture, k, 0, &g_left);
    scene_frame(g_texture, k, 1, &g_right);
    const vf_image* set[3] = {&g_left, &g_right, &g_left};
    walk_step(r, vf_rig_frontend_process(fe, t, set));
    if (k == 1) {
      const uint64_t id = ((uint64_t)1 << VF_RIG_FRONTEND_ID_SHIFT) | 1u;
      const float uv[2] = {100.0f, 100.0f};
      walk_tolerate(r, vf_rig_frontend_predict(fe, &id, uv, 1));
      walk_tolerate(r, vf_rig_frontend_reject(fe, &id, 1));
    }
    t += 50000000;
  }
  vf_rig_frontend_destroy(fe);
  vf_context_destroy(ctx);
}

/* The tracker alone (the frontend always refines, and calls the GPU holds at once take one
 * launch): with and without refinement, a call of 64 features and on CUDA one of 8192, which no
 * GPU holds at once, so that the frame-to-frame kernel and the refinement kernel run apart. */
static void sc_tracker(walk_run* r) {
  enum { BIG = 8192 };
  static vf_track_request req[BIG];
  static vf_track_result res[BIG];
  vf_context* ctx = make_context(r);
  if (ctx == NULL) return;
  const int big = vf_context_backend(ctx) == VF_BACKEND_CUDA ? BIG : 64;
  scene_frame(g_texture, 0, 0, &g_left);
  scene_frame(g_texture, 1, 0, &g_right);
  const vf_pyramid_config pc = {g_left.width, g_left.height, 4};
  vf_pyramid *prev = NULL, *cur = NULL;
  if (walk_step(r, vf_pyramid_create(ctx, &pc, &prev)) &&
      walk_step(r, vf_pyramid_create(ctx, &pc, &cur)) &&
      walk_step(r, vf_pyramid_build(prev, &g_left)) &&
      walk_step(r, vf_pyramid_build(cur, &g_right))) {
    for (int i = 0; i < big; ++i) {
      req[i] = vf_track_request_make(40.0f + (float)(i % 64) * 10.0f,
                                     40.0f + (float)((i / 64) % 40) * 10.0f, i);
    }
    for (int refine = 0; refine < 2; ++refine) {
      vf_tracker_config tc = vf_tracker_config_default();
      tc.refine = refine;
      tc.max_features = big;
      vf_tracker* t = NULL;
      if (walk_step(r, vf_tracker_create(ctx, &tc, &t))) {
        walk_step(r, vf_tracker_track(t, prev, cur, req, 64, res));
        if (big > 64) walk_step(r, vf_tracker_track(t, prev, cur, req, big, res));
      } else {
        CHECK(t == NULL);
      }
      vf_tracker_destroy(t);
    }
  }
  vf_pyramid_destroy(prev);
  vf_pyramid_destroy(cur);
  vf_context_destroy(ctx);
}

/* One stereo matcher alone on a small pair, twice. */
static void stereo_config_alone(walk_run* r, vf_stereo_config sc) {
  vf_context* ctx = make_context(r);
  if (ctx == NULL) return;
  sc.width = g_small[0].width;
  sc.height = g_small[0].height;
  vf_stereo* st = NULL;
  if (walk_step(r, vf_stereo_create(ctx, &sc, &st))) {
    for (int k = 0; k < 2; ++k) {
      walk_step(r, vf_stereo_compute(st, &g_small[0], &g_small[1], &g_small[2], &g_small[3]));
    }
  } else {
    CHECK(st == NULL);
  }
  vf_stereo_destroy(st);
  vf_context_destroy(ctx);
}

static void stereo_alone(walk_run* r, vf_stereo_method method) {
  stereo_config_alone(r, vf_stereo_config_default_for(method));
}

static void sc_stereo_sgm(walk_run* r) { stereo_alone(r, VF_STEREO_SGM); }
static void sc_stereo_zncc(walk_run* r) { stereo_alone(r, VF_STEREO_ZNCC_FASTDT); }
static void sc_stereo_census(walk_run* r) { stereo_alone(r, VF_STEREO_CENSUS_FASTDT); }
static void sc_stereo_cyclops(walk_run* r) { stereo_alone(r, VF_STEREO_CYCLOPS2); }
static void sc_stereo_hsgm(walk_run* r) { stereo_alone(r, VF_STEREO_HSGM); }
static void sc_stereo_zncc_sgm(walk_run* r) { stereo_alone(r, VF_STEREO_ZNCC_SGM); }
/* 128 disparities: the selection's lane-group kernel (64 take the thread-per-pixel one). */
static void sc_stereo_sgm128(walk_run* r) {
  vf_stereo_config sc = vf_stereo_config_default_for(VF_STEREO_SGM);
  sc.disparities = 128;
  stereo_config_alone(r, sc);
}
/* ZNCC with window sums from integral images and winner-takes-all on the costs alone (no
 * FastDT): the paths the defaults (direct sums for a 5x5 window, FastDT) do not take. */
static void sc_stereo_zncc_wta(walk_run* r) {
  vf_stereo_config sc = vf_stereo_config_default_for(VF_STEREO_ZNCC_FASTDT);
  sc.zncc.sums = VF_ZNCC_SUMS_INTEGRAL;
  sc.fastdt.enabled = 0;
  stereo_config_alone(r, sc);
}

/* The handles the frontend does not make: timer, IMU buffer, sampler, feature set. */
static void sc_small_handles(walk_run* r) {
  vf_context* ctx = make_context(r);
  if (ctx == NULL) return;
  vf_timer* tm = NULL;
  if (walk_step(r, vf_timer_create(ctx, &tm))) {
    double ms = 0;
    /* A stop after a failed start is refused (VF_ERR_STATE): only a started timer stops. */
    if (walk_step(r, vf_timer_start(tm))) walk_step(r, vf_timer_stop(tm, &ms));
  } else {
    CHECK(tm == NULL);
  }
  vf_imu_buffer* imu = NULL;
  if (!walk_step(r, vf_imu_buffer_create(64, 10000000, &imu))) CHECK(imu == NULL);
  vf_sampler* sa = NULL;
  if (walk_step(r, vf_sampler_create(ctx, 16, &sa))) {
    float xy[4] = {10.5f, 20.0f, 100.0f, 50.25f};
    uint16_t values[2];
    walk_step(r, vf_sampler_gather_u16(sa, &g_small[2], xy, 2, 0, values));
    /* On CUDA, a device image takes the gather kernel, and device images the probe alone and the
     * probe with the disparity matching (one kernel). */
    vf_image dev = {0}, pair[2] = {{0}, {0}};
    if (vf_context_backend(ctx) == VF_BACKEND_CUDA &&
        walk_step(r, vf_image_alloc(&dev, g_small[2].width, g_small[2].height, VF_PIXEL_U16,
                                    VF_MEMORY_DEVICE))) {
      walk_step(r, vf_sampler_gather_u16(sa, &dev, xy, 2, 0, values));
      int ready = walk_step(r, vf_image_copy(&g_small[2], &dev));
      for (int k = 0; k < 2 && ready; ++k) {
        ready = walk_step(r, vf_image_alloc(&pair[k], g_small[k].width, g_small[k].height,
                                            VF_PIXEL_U8, VF_MEMORY_DEVICE)) &&
                walk_step(r, vf_image_copy(&g_small[k], &pair[k]));
      }
      if (ready) {
        const vf_disparity_probe_config pc = {2, 40, 4, 0xFFFF};
        const vf_disparity_refine_config rc = {3, 10, 1.0f};
        vf_disparity_probe probes[2];
        float matched[2];
        walk_step(r, vf_sampler_probe_disparity(sa, &dev, xy, 2, &pc, probes));
        walk_step(r, vf_sampler_probe_and_refine_disparity(sa, &dev, &pair[0], &pair[1], xy, 2, &pc,
                                                           &rc, probes, matched));
      }
    }
    vf_image_free(&dev);
    vf_image_free(&pair[0]);
    vf_image_free(&pair[1]);
  } else {
    CHECK(sa == NULL);
  }
  /* A page-locked host image (CUDA only): refused, it leaves a cleared view. */
  if (vf_context_backend(ctx) == VF_BACKEND_CUDA) {
    vf_image pin = {0};
    if (!walk_step(r, vf_image_alloc_pinned(&pin, 64, 32, VF_PIXEL_U8))) CHECK(pin.data == NULL);
    vf_image_free(&pin);
    /* A caller's host image locked in place: refused, it stays unlocked (the unlock after a
     * refused lock would give VF_ERR_STATE, and is not made). */
    vf_image own = {0};
    if (walk_step(r, vf_image_alloc(&own, 64, 32, VF_PIXEL_U8, VF_MEMORY_HOST))) {
      if (walk_step(r, vf_image_pin(&own))) walk_step(r, vf_image_unpin(&own));
      vf_image_free(&own);
    }
  }
  walk_step(r, vf_context_synchronize(ctx));
  /* The rig's batch of early detections (created only on CUDA rigs, so reached here alone). */
  vf_detector_batch* db = NULL;
  if (!walk_step(r, vf_detector_batch_create(ctx, &db))) CHECK(db == NULL);
  vf_detector_batch_destroy(db);
  vf_feature_set_config fsc = vf_feature_set_config_default();
  fsc.width = fsc.grid.cols * fsc.grid.cell_width;
  fsc.height = fsc.grid.rows * fsc.grid.cell_height;
  vf_feature_set* fs = NULL;
  if (!walk_step(r, vf_feature_set_create(&fsc, &fs))) CHECK(fs == NULL);
  vf_feature_set_destroy(fs);
  vf_sampler_destroy(sa);
  vf_imu_buffer_destroy(imu);
  vf_timer_destroy(tm);
  vf_context_destroy(ctx);
}

/* The EuRoC reader on the real excerpt: open, then events up to the third stereo pair (with
 * prefetch the worker decodes ahead: a failure in a pair nobody asks for is never reported). */
static void euroc_read(walk_run* r, const char* root, int prefetch) {
  vf_euroc_config ec = vf_euroc_config_default();
  ec.prefetch = prefetch;
  vf_euroc* e = NULL;
  if (!walk_step(r, vf_euroc_open(root, &ec, NULL, &e))) {
    CHECK(e == NULL);
    return;
  }
  int pairs = 0;
  for (int guard = 0; pairs < 3 && guard < 1000; ++guard) {
    vf_euroc_event ev;
    vf_status s = vf_euroc_next(e, &ev);
    if (ev.type == VF_EUROC_STEREO) pairs++;
    if (ev.type == VF_EUROC_END) break;
    walk_step(r, s);
  }
  vf_euroc_close(e);
}

static void sc_euroc(walk_run* r) {
  char root[1024];
  snprintf(root, sizeof root, "%s/euroc/V1_01_easy_micro", VF_DATA_DIR);
  euroc_read(r, root, 0);
}
static void sc_euroc_prefetch(walk_run* r) {
  char root[1024];
  snprintf(root, sizeof root, "%s/euroc/V1_01_easy_micro", VF_DATA_DIR);
  euroc_read(r, root, 2);
}
static void sc_euroc_groundtruth(walk_run* r) { euroc_read(r, g_gt_seq, 0); }

/* The excerpt with a ground-truth file: its sensor folders linked, three poses written. */
static void make_gt_sequence(void) {
  char path[2048], target[1024];
  snprintf(g_gt_seq, sizeof g_gt_seq, "%s/fault_alloc_seq", VF_TEST_WORK_DIR);
  const char* dirs[] = {"", "/mav0", "/mav0/state_groundtruth_estimate0"};
  for (int i = 0; i < 3; ++i) {
    snprintf(path, sizeof path, "%s%s", g_gt_seq, dirs[i]);
    mkdir(path, 0755);
  }
  const char* links[] = {"cam0", "cam1", "imu0"};
  for (int i = 0; i < 3; ++i) {
    snprintf(target, sizeof target, "%s/euroc/V1_01_easy_micro/mav0/%s", VF_DATA_DIR, links[i]);
    snprintf(path, sizeof path, "%s/mav0/%s", g_gt_seq, links[i]);
    if (symlink(target, path) != 0) CHECK(access(path, F_OK) == 0);
  }
  snprintf(path, sizeof path, "%s/mav0/state_groundtruth_estimate0/data.csv", g_gt_seq);
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  if (f == NULL) return;
  fprintf(f, "#timestamp,p_x,p_y,p_z,q_w,q_x,q_y,q_z\n");
  for (int i = 0; i < 3; ++i) fprintf(f, "14037152732621429%02d,%d,0,0,1,0,0,0\n", 76 + i, i);
  fclose(f);
}

/* Config and image files. */
static void sc_files(walk_run* r) {
  char path[1024];
  vf_config cfg;
  snprintf(path, sizeof path, "%s/config/euroc.yaml", VF_SOURCE_DIR);
  walk_step(r, vf_config_load(path, NULL, &cfg));
  vf_camera cam;
  snprintf(path, sizeof path, "%s/euroc/V1_01_easy_micro/mav0/cam0/sensor.yaml", VF_DATA_DIR);
  walk_step(r, vf_sensor_yaml_read_camera(path, NULL, &cam));
  vf_image img = {0};
  snprintf(path, sizeof path, "%s/images/peru_640x480.png", VF_DATA_DIR);
  if (walk_step(r, vf_png_read_gray8(path, &img))) vf_image_free(&img);
  snprintf(path, sizeof path, "%s/fault_alloc_u16.png", VF_TEST_WORK_DIR);
  if (walk_step(r, vf_png_read_gray16(path, &img))) vf_image_free(&img);
  snprintf(path, sizeof path, "%s/fault_alloc_out.png", VF_TEST_WORK_DIR);
  walk_step(r, vf_png_write(path, &g_small[2]));
}

/* A 16-bit PNG for the reader (written with faults off). */
static void write_u16_png(void) {
  vf_image img;
  char path[1024];
  snprintf(path, sizeof path, "%s/fault_alloc_u16.png", VF_TEST_WORK_DIR);
  CHECK_OK(vf_image_alloc(&img, 64, 32, VF_PIXEL_U16, VF_MEMORY_HOST));
  for (int y = 0; y < img.height; ++y) {
    uint16_t* row = (uint16_t*)((uint8_t*)img.data + (size_t)y * img.stride_bytes);
    for (int x = 0; x < img.width; ++x) row[x] = (uint16_t)(x * 997 + y);
  }
  CHECK_OK(vf_png_write(path, &img));
  vf_image_free(&img);
}

int main(int argc, char** argv) {
  int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  if (!walk_available()) VF_TEST_SKIP("built without VF_FAULT_INJECTION");
  char probe[1024];
  if (vf_test_data_path("euroc/V1_01_easy_micro/mav0/cam0/data.csv", probe, sizeof probe) == NULL) {
    VF_TEST_SKIP("%s/euroc/V1_01_easy_micro absent", VF_DATA_DIR);
  }
  if (cuda) {
    VF_TEST_REQUIRE_CUDA();
    g_backend = VF_BACKEND_CUDA;
  }
  g_texture = scene_texture(7);
  CHECK(g_texture != NULL);
  if (g_texture == NULL) VF_TEST_END("test_fault_alloc");
  CHECK_OK(vf_image_alloc(&g_left, 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&g_right, 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST));
  const vf_pixel_format small_format[4] = {VF_PIXEL_U8, VF_PIXEL_U8, VF_PIXEL_U16, VF_PIXEL_F32};
  for (int i = 0; i < 4; ++i) {
    CHECK_OK(vf_image_alloc(&g_small[i], 192, 96, small_format[i], VF_MEMORY_HOST));
  }
  scene_frame(g_texture, 0, 0, &g_small[0]);
  scene_frame(g_texture, 0, 1, &g_small[1]);
  write_u16_png();
  make_gt_sequence();
  walk_scenario sc[] = {
      {"context", sc_context, 0},
      {"frontend (SGM)", sc_frontend, 0},
      {"frontend (ZNCC + FastDT)", sc_frontend_zncc, 0},
      {"frontend (SGM), birth check with candidates", sc_frontend_births, 0},
      {"rig frontend (a pair and a mono camera)", sc_rig_frontend, 0},
      {"tracker alone", sc_tracker, 0},
      {"stereo SGM", sc_stereo_sgm, 0},
      {"stereo SGM, 128 disparities", sc_stereo_sgm128, 0},
      {"stereo ZNCC + FastDT", sc_stereo_zncc, 0},
      {"stereo census + FastDT", sc_stereo_census, 0},
      {"stereo Cyclops2", sc_stereo_cyclops, 0},
      {"stereo HSGM", sc_stereo_hsgm, 0},
      {"stereo ZNCC + SGM", sc_stereo_zncc_sgm, 0},
      {"stereo ZNCC, integral sums, no aggregation", sc_stereo_zncc_wta, 0},
      {"timer, IMU buffer, sampler, feature set", sc_small_handles, 0},
      {"EuRoC reader", sc_euroc, 0},
      {"EuRoC reader, prefetch thread", sc_euroc_prefetch, 1},
      {"EuRoC reader, ground truth", sc_euroc_groundtruth, 0},
      {"config and image files", sc_files, 0},
  };
  const int n = (int)(sizeof sc / sizeof sc[0]);
  const int kinds = cuda ? VF_FAULT_PINNED | VF_FAULT_DEVICE | VF_FAULT_CUDA : VF_FAULT_HOST;
  for (int i = 0; i < n; ++i) {
    if (cuda && sc[i].run == sc_files) continue; /* no CUDA call in the file readers */
    walk_scenario_run(&sc[i], kinds, cuda);
  }
  walk_check_sites(kinds);
  vf_image_free(&g_left);
  vf_image_free(&g_right);
  for (int i = 0; i < 4; ++i) vf_image_free(&g_small[i]);
  free(g_texture);
  VF_TEST_END(cuda ? "test_fault_alloc (cuda)" : "test_fault_alloc");
}
