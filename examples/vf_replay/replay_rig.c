// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay --rig: replays a multi-camera sequence (vf_synth --rig, or any EuRoC-layout folder
 * with mav0/camK per camera) through the rig frontend (vf_rig_frontend.h). The rig comes from a
 * Kalibr camchain file; the IMU and the ground-truth poses from the EuRoC reader; the images from
 * replay_rig_sets.c, one synchronized set a call, a camera without an image at a set's time
 * passed as NULL (the rig frontend skips its unit). Each unit has its statistics and, where the
 * sequence has rendered ground truth, an evaluator of its own (replay_eval.h) over its tracked
 * camera's depth and its pair's disparity. */
#include <stdlib.h>
#include <string.h>

#include "replay_rig.h"

static void on_features(int unit, const vf_feature_frame* frame, void* user) {
  replay_rig_run* r = user;
  if (replay_stats_add(&r->stats[unit], frame) != 0) r->failed = 1;
  if (r->csv != NULL) replay_csv_write(r->csv, frame);
  const char* name = r->rig.names[r->unit[unit].camera];
  if (r->csv != NULL && !r->wrote_rectification[unit]) {
    r->wrote_rectification[unit] = 1;
    if (replay_csv_write_rectification(r->opt->csv, name, frame) != 0) {
      fprintf(stderr, "vf_replay: cannot write %s.%s.rectification.yaml\n", r->opt->csv, name);
      r->failed = 1;
    }
  }
  replay_eval_features(r->eval[unit], frame);
}

static void on_disparity(int pair, const vf_disparity_frame* frame, void* user) {
  replay_rig_run* r = user;
  /* Pair p is unit p (vf_rig_frontend.h). */
  replay_eval_disparity(r->eval[pair], frame);
}

/* Whether some unit has every camera's image in the set (else the rig frontend refuses it). */
static int set_runs(const replay_rig_run* r, const vf_image* const* images) {
  for (int u = 0; u < r->units; ++u) {
    const vf_rig_unit* un = &r->unit[u];
    if (images[un->camera] != NULL && (un->right_camera < 0 || images[un->right_camera] != NULL))
      return 1;
  }
  return 0;
}

/* The evaluator of unit u: its tracked camera's depth, its pair's disparity ("disparity" for
 * the pair of cam0, "disparity<l>" for the pair whose left camera is cam<l>, as vf_synth writes
 * them). */
static int open_eval(replay_rig_run* r, const vf_euroc* reader, const replay_rig_sets* sets, int u,
                     int prefetch) {
  const vf_rig_unit* un = &r->unit[u];
  replay_eval_camera c;
  memset(&c, 0, sizeof c);
  c.cam = r->rig.cameras[un->camera];
  c.right = un->right_camera >= 0 ? r->rig.cameras[un->right_camera] : c.cam;
  c.camera = un->camera;
  snprintf(c.depth, sizeof c.depth, "depth%d", un->camera);
  if (un->pair >= 0 && un->camera == 0) {
    snprintf(c.disparity, sizeof c.disparity, "disparity");
    snprintf(c.rectification, sizeof c.rectification, "rectification.yaml");
  } else if (un->pair >= 0) {
    snprintf(c.disparity, sizeof c.disparity, "disparity%d", un->camera);
    snprintf(c.rectification, sizeof c.rectification, "rectification%d.yaml", un->camera);
  }
  /* One decoding thread an evaluator: there is one evaluator a camera. */
  return replay_eval_open_camera(r->opt->sequence, reader, &c, sets->t_ns, sets->count, 1, prefetch,
                                 &r->eval[u]);
}

/* The rig, the reader of the IMU and the ground truth, the image sets, the outputs and the
 * frontend; errors on stderr. */
static int setup(replay_rig_run* r, vf_context* ctx, const vf_frontend_config* config,
                 vf_euroc** reader, replay_rig_sets* sets, vf_rig_frontend** fe) {
  const replay_options* opt = r->opt;
  if (opt->overlay_dir != NULL || opt->disparity_dir != NULL) {
    fprintf(stderr, "vf_replay: --rig does not write overlays or disparity maps yet\n");
    return -1;
  }
  if (vf_rig_load_camchain(r->camchain, ctx, &r->rig) != VF_OK) {
    fprintf(stderr, "vf_replay: %s\n", vf_last_error_message());
    return -1;
  }
  /* The reader's own images are not used: no decoding ahead (prefetch 0 decodes on demand). */
  vf_euroc_config ec = vf_euroc_config_default();
  const int threads = opt->decode_threads >= 0 ? opt->decode_threads : ec.decode_threads;
  r->decode_threads = threads > 1 ? threads : 1;
  /* The ring holds two sets at the least (replay_ahead.h). */
  r->prefetch = opt->prefetch >= 2 ? opt->prefetch : opt->prefetch >= 0 ? 2 : 8;
  ec.prefetch = 0;
  if (vf_euroc_open(opt->sequence, &ec, ctx, reader) != VF_OK) {
    fprintf(stderr, "vf_replay: %s\n", vf_last_error_message());
    return -1;
  }
  vf_euroc_info info;
  vf_euroc_get_info(*reader, &info);
  r->imu_samples = info.imu_replayed;
  const int pinned = replay_pinned_buffers(opt, ctx);
  if (replay_rig_sets_open(opt->sequence, &r->rig, r->decode_threads, r->prefetch, pinned, sets) !=
      0)
    return -1;
  r->total = opt->max_frames > 0 && opt->max_frames < sets->count ? opt->max_frames : sets->count;
  vf_frontend_config fc = *config;
  /* The ground truth's poses are the IMU's (body) frame: so must the rig's cameras be. */
  const int eval =
      !opt->no_eval && vf_euroc_groundtruth_count(*reader) > 0 && r->rig.imu_extrinsics;
  if (eval) fc.disparity_location = VF_MEMORY_HOST;
  if (vf_rig_frontend_create(ctx, &r->rig, &fc, fe) != VF_OK) {
    fprintf(stderr, "vf_replay: %s\n", vf_last_error_message());
    return -1;
  }
  vf_rig_frontend_callbacks cb = {on_features, eval ? on_disparity : NULL, r};
  vf_rig_frontend_set_callbacks(*fe, &cb);
  r->units = vf_rig_frontend_unit_count(*fe);
  for (int u = 0; u < r->units; ++u) {
    vf_rig_frontend_unit(*fe, u, &r->unit[u]);
    r->stats[u].camera = r->unit[u].camera;
    if (eval && open_eval(r, *reader, sets, u, r->prefetch) != 0) {
      fprintf(stderr, "vf_replay: cannot load the ground truth of %s\n", opt->sequence);
      return -1;
    }
  }
  if (opt->csv != NULL && (r->csv = replay_csv_open(opt->csv)) == NULL) {
    fprintf(stderr, "vf_replay: cannot write %s\n", opt->csv);
    return -1;
  }
  vf_device_info dev;
  vf_context_device_info(ctx, &dev);
  printf(
      "vf_replay: %s, rig %s: %d cameras in %d units, %d image sets, %d IMU samples, %s "
      "backend (%s)\n",
      opt->sequence, r->camchain, r->rig.camera_count, r->units, sets->count, info.imu_replayed,
      vf_backend_name(vf_context_backend(ctx)), dev.name);
  for (int k = 0; k < r->rig.camera_count; ++k) {
    if (sets->missing[k] > 0)
      printf("vf_replay: %s: %d of %d listed images are missing (skipped)\n", r->rig.names[k],
             sets->missing[k], sets->rows[k]);
  }
  return 0;
}

static void progress(const replay_rig_run* r, long set, const vf_image* const* images) {
  if (r->opt->quiet || (set % 20 != 0 && set + 1 != r->total)) return;
  int present = 0;
  for (int k = 0; k < r->rig.camera_count; ++k) present += images[k] != NULL;
  fprintf(stderr, "\rset %5ld/%ld  %7.1f sets/s  %d of %d cameras  ", set + 1, r->total,
          r->wall_s > 0 ? r->sets / r->wall_s : 0.0, present, r->rig.camera_count);
}

/* Every set through the frontend, the IMU up to its time before it (with a camera's positive time
 * shift, up to the first sample at or past its time plus the largest shift: the end of that
 * unit's window on the IMU's clock); 1 when a set failed. */
static int replay(replay_rig_run* r, vf_rig_frontend* fe, const vf_euroc* reader,
                  replay_rig_sets* sets) {
  const double t_start = replay_now_s();
  const int64_t lead_ns = vf_rig_frontend_imu_lead_ns(fe);
  int64_t pushed_ns = INT64_MIN;
  int imu = 0, rc = 0;
  for (long i = 0; i < r->total && rc == 0; ++i) {
    const int64_t t_ns = sets->t_ns[i];
    vf_imu_sample smp;
    /* IMU first at equal times, as the EuRoC reader orders its events. */
    for (; imu < r->imu_samples && !r->opt->read_only; ++imu) {
      if (vf_euroc_imu_sample(reader, imu, &smp) != VF_OK) break;
      if (lead_ns == 0 ? smp.t_ns > t_ns : pushed_ns >= t_ns + lead_ns) break;
      if (vf_rig_frontend_add_imu(fe, smp.t_ns, smp.gyro, smp.acc) != VF_OK) {
        fprintf(stderr, "\nvf_replay: %s\n", vf_rig_frontend_last_error(fe));
        return 1;
      }
      pushed_ns = smp.t_ns;
    }
    const vf_image* images[VF_RIG_MAX_CAMERAS];
    const double t_read = replay_now_s();
    for (int k = 0; k < r->rig.camera_count; ++k)
      images[k] = replay_rig_sets_image(sets, (int)i, k);
    r->read_s += replay_now_s() - t_read;
    if (r->opt->read_only) {
      for (int u = 0; u < r->units; ++u)
        if (r->eval[u] != NULL) replay_eval_fetch(r->eval[u], t_ns);
      r->sets++;
      continue;
    }
    if (!set_runs(r, images)) {
      fprintf(stderr, "\nvf_replay: set at %lld ns: no unit has all its images (skipped)\n",
              (long long)t_ns);
      r->skipped++;
      continue;
    }
    if (r->opt->realtime) replay_pace(t_start, sets->t_ns[0], t_ns);
    const double t_process = replay_now_s();
    if (vf_rig_frontend_process(fe, t_ns, images) != VF_OK) {
      fprintf(stderr, "\nvf_replay: %s\n", vf_rig_frontend_last_error(fe));
      rc = 1;
    }
    r->process_s += replay_now_s() - t_process;
    r->sets++;
    r->wall_s = replay_now_s() - t_start;
    progress(r, i, images);
  }
  r->wall_s = replay_now_s() - t_start;
  if (!r->opt->quiet) fprintf(stderr, "\n");
  return rc;
}

int replay_rig_main(const replay_options* opt, vf_context* ctx, const vf_frontend_config* fc) {
  replay_rig_run* r = calloc(1, sizeof *r);
  if (r == NULL) return 1;
  char camchain[2048];
  snprintf(camchain, sizeof camchain, "%s/camchain.yaml", opt->sequence);
  r->opt = opt;
  r->camchain = opt->rig_camchain != NULL ? opt->rig_camchain : camchain;
  vf_euroc* reader = NULL;
  vf_rig_frontend* fe = NULL;
  replay_rig_sets sets;
  memset(&sets, 0, sizeof sets);
  int rc = setup(r, ctx, fc, &reader, &sets, &fe) != 0;
  if (rc == 0) {
    rc = replay(r, fe, reader, &sets);
    replay_rig_print(r, stdout);
    if (opt->json != NULL && !opt->read_only && replay_rig_write_json(r, opt->json) != 0) {
      fprintf(stderr, "vf_replay: cannot write %s\n", opt->json);
      rc = 1;
    }
  }
  if (r->failed) rc = 1;
  vf_rig_frontend_destroy(fe);
  if (r->csv != NULL) fclose(r->csv);
  for (int u = 0; u < VF_RIG_MAX_CAMERAS; ++u) {
    replay_eval_close(r->eval[u]);
    replay_stats_free(&r->stats[u]);
  }
  replay_rig_sets_close(&sets);
  vf_euroc_close(reader);
  free(r);
  return rc;
}
