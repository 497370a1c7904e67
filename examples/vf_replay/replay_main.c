// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay, the main job: replays an EuRoC ASL sequence (real, or written by vf_synth) through
 * the frontend at full speed or in real time, shows progress, writes the features CSV, the
 * disparity maps and overlay pictures on request, and ends with a summary (with, in sparse stereo
 * with an occasional map, the matches against the map at the features; and, for vf_synth
 * sequences, the error against the rendered ground truth). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "example_context.h"
#include "example_log.h"
#include "replay.h"
#include "replay_eval.h"

typedef struct replay_state {
  const replay_options* opt;
  replay_stats stats;
  replay_eval* eval;
  replay_sparse sparse;
  int compare_sparse; /* replay_sparse_wanted: the matches are compared with the maps */
  FILE* csv;
  long total_pairs;
  int decode_threads, prefetch; /* the reader's, for the summary */
  vf_feature* last_features;    /* copy of the last feature frame, for the overlay */
  vf_feature_frame last_frame;
  int failed;
} replay_state;

static int wants_overlay(const replay_options* opt, uint64_t sequence) {
  for (int i = 0; i < opt->overlay_count; ++i)
    if ((uint64_t)opt->overlay_frames[i] == sequence) return 1;
  return 0;
}

static void on_features(const vf_feature_frame* frame, void* user) {
  replay_state* st = user;
  if (replay_stats_add(&st->stats, frame) != 0) st->failed = 1;
  if (st->csv != NULL) replay_csv_write(st->csv, frame);
  if (st->csv != NULL && frame->sequence == 0 &&
      replay_csv_write_rectification(st->opt->csv, NULL, frame) != 0) {
    fprintf(stderr, "vf_replay: cannot write %s.rectification.yaml\n", st->opt->csv);
    st->failed = 1;
  }
  if (st->eval != NULL) replay_eval_features(st->eval, frame);
  if (st->compare_sparse && replay_sparse_features(&st->sparse, frame) != 0) st->failed = 1;
  if (wants_overlay(st->opt, frame->sequence)) {
    vf_feature* copy = realloc(st->last_features, sizeof *copy * (size_t)(frame->count + 1));
    if (copy == NULL) {
      st->failed = 1;
      return;
    }
    memcpy(copy, frame->features, sizeof *copy * (size_t)frame->count);
    st->last_features = copy;
    st->last_frame = *frame;
    st->last_frame.features = copy;
  }
  if (!st->opt->quiet &&
      (frame->sequence % 20 == 0 || (long)frame->sequence + 1 == st->total_pairs)) {
    double fps = st->stats.frames / (st->stats.wall_s > 0 ? st->stats.wall_s : 1.0);
    fprintf(stderr, "\rframe %5llu/%ld  %7.1f fps  %4d tracked  %4d new  ",
            (unsigned long long)frame->sequence + 1, st->total_pairs, fps, frame->tracked,
            frame->detected);
  }
}

static void on_disparity(const vf_disparity_frame* frame, void* user) {
  replay_state* st = user;
  const replay_options* opt = st->opt;
  if (st->eval != NULL) replay_eval_disparity(st->eval, frame);
  if (st->compare_sparse && replay_sparse_disparity(&st->sparse, frame) != 0) st->failed = 1;
  char path[4096];
  if (opt->disparity_dir != NULL) {
    snprintf(path, sizeof path, "%s/%lld.png", opt->disparity_dir, (long long)frame->t_ns);
    if (vf_png_write(path, &frame->disparity) != VF_OK) {
      fprintf(stderr, "vf_replay: %s\n", vf_last_error_message());
      st->failed = 1;
    }
  }
  if (opt->overlay_dir != NULL && wants_overlay(opt, frame->sequence) &&
      st->last_features != NULL && st->last_frame.sequence == frame->sequence) {
    snprintf(path, sizeof path, "%s/overlay_%06llu.png", opt->overlay_dir,
             (unsigned long long)frame->sequence);
    if (replay_overlay_write(path, &frame->rectified_left, &st->last_frame, &frame->disparity,
                             frame->fractional_bits, frame->max_disparity) != VF_OK) {
      fprintf(stderr, "vf_replay: %s\n", vf_last_error_message());
      st->failed = 1;
    } else if (!opt->quiet) {
      fprintf(stderr, "\nvf_replay: wrote %s\n", path);
    }
  }
}

static int make_dir(const char* path) {
  if (path == NULL || mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
  fprintf(stderr, "vf_replay: cannot create %s: %s\n", path, strerror(errno));
  return -1;
}

/* The frontend's configuration: the YAML file's (or the defaults) under --stereo and
 * --dense-every, read before the sequence so
 * that a bad file stops the program at once; its warnings go to the context's log. */
static int load_config(const replay_options* opt, vf_context* ctx, vf_frontend_config* fc,
                       int* has_cameras) {
  *fc = vf_frontend_config_default();
  *has_cameras = 0;
  if (opt->config != NULL && vf_frontend_config_load(opt->config, ctx, fc, has_cameras) != VF_OK) {
    fprintf(stderr, "vf_replay: %s\n", vf_last_error_message());
    return -1;
  }
  if (opt->stereo >= 0) {
    fc->stereo_enabled = 1;
    fc->stereo_mode = (vf_frontend_stereo_mode)opt->stereo;
  }
  if (opt->dense_every >= 0) fc->dense_every = opt->dense_every;
  return 0;
}

/* The sequence's cameras unless the file named its own; host disparity when it is read back
 * (written, drawn, evaluated or compared with the sparse matches). */
static int configure(const replay_options* opt, vf_euroc* reader, int has_cameras,
                     vf_frontend_config* fc) {
  if (!has_cameras && (vf_euroc_camera(reader, 0, &fc->cam0) != VF_OK ||
                       vf_euroc_camera(reader, 1, &fc->cam1) != VF_OK)) {
    fprintf(stderr, "vf_replay: %s\n", vf_euroc_last_error(reader));
    return -1;
  }
  if (opt->disparity_dir != NULL || opt->overlay_dir != NULL ||
      (vf_euroc_groundtruth_count(reader) > 0 && !opt->no_eval) || replay_sparse_wanted(fc))
    fc->disparity_location = VF_MEMORY_HOST;
  return 0;
}

/* With a positive imu_timeshift_s a frame's interval on the IMU's clock ends after the frame's
 * time: the samples up to the first at or past t + lead, taken by index ahead of the events. */
static vf_status push_imu_ahead(vf_frontend* fe, const vf_euroc* reader, int count, int* next,
                                int64_t* pushed_ns, int64_t until_ns) {
  vf_imu_sample smp;
  for (; *next < count && *pushed_ns < until_ns; ++*next) {
    if (vf_euroc_imu_sample(reader, *next, &smp) != VF_OK) break;
    vf_status s = vf_frontend_push_imu(fe, smp.t_ns, smp.gyro, smp.acc);
    if (s != VF_OK) return s;
    *pushed_ns = smp.t_ns;
  }
  return VF_OK;
}

/* Runs the sequence through fe; 1 when a frame failed. */
static int replay(const replay_options* opt, vf_frontend* fe, vf_euroc* reader, replay_state* st) {
  double t_start = replay_now_s();
  int64_t t0_ns = -1;
  long frames = 0;
  int rc = 0;
  const int64_t lead_ns = vf_frontend_imu_lead_ns(fe);
  vf_euroc_info info;
  vf_euroc_get_info(reader, &info);
  int imu_next = 0;
  int64_t imu_pushed_ns = INT64_MIN;
  for (;;) {
    vf_euroc_event ev;
    double t_read = replay_now_s();
    vf_status s = vf_euroc_next(reader, &ev);
    st->stats.read_s += replay_now_s() - t_read;
    if (s != VF_OK) {
      /* A damaged image is reported and skipped; the replay goes on. */
      fprintf(stderr, "\nvf_replay: %s\n", vf_euroc_last_error(reader));
      continue;
    }
    if (ev.type == VF_EUROC_END) break;
    if (opt->read_only) {
      if (ev.type != VF_EUROC_STEREO) continue;
      if (opt->max_frames > 0 && frames >= opt->max_frames) break;
      if (st->eval != NULL) replay_eval_fetch(st->eval, ev.t_ns);
      st->stats.read_frames = ++frames;
      continue;
    }
    if (ev.type == VF_EUROC_IMU) {
      if (lead_ns > 0) continue; /* pushed ahead by index below */
      s = vf_frontend_push_imu(fe, ev.t_ns, ev.imu.gyro, ev.imu.acc);
    } else {
      if (opt->max_frames > 0 && frames >= opt->max_frames) break;
      if (t0_ns < 0) t0_ns = ev.t_ns;
      if (opt->realtime) replay_pace(t_start, t0_ns, ev.t_ns);
      if (lead_ns > 0) {
        s = push_imu_ahead(fe, reader, info.imu_replayed, &imu_next, &imu_pushed_ns,
                           ev.t_ns + lead_ns);
        if (s != VF_OK) {
          fprintf(stderr, "\nvf_replay: %s\n", vf_frontend_last_error(fe));
          rc = 1;
          break;
        }
      }
      double t_process = replay_now_s();
      s = vf_frontend_process(fe, ev.t_ns, &ev.left, &ev.right);
      st->stats.wall_s = replay_now_s() - t_start;
      st->stats.process_s += replay_now_s() - t_process;
      st->stats.read_frames = ++frames;
    }
    if (s != VF_OK) {
      fprintf(stderr, "\nvf_replay: %s\n", vf_frontend_last_error(fe));
      rc = 1;
      break;
    }
  }
  st->stats.wall_s = replay_now_s() - t_start;
  return rc;
}

/* Everything before the first frame: the sequence, its outputs and the frontend. Errors are
 * reported here and stop the program before any summary. */
static int setup(const replay_options* opt, vf_context* ctx, vf_frontend_config* fc,
                 int has_cameras, vf_euroc** reader, replay_state* st, vf_frontend** fe) {
  vf_euroc_config ec = vf_euroc_config_default();
  if (opt->decode_threads >= 0) ec.decode_threads = opt->decode_threads;
  /* Twice as many pairs queued as threads decode, so none waits for the consumer. */
  ec.prefetch = opt->prefetch >= 0 ? opt->prefetch
                : 2 * ec.decode_threads > 8
                    ? (2 * ec.decode_threads < 64 ? 2 * ec.decode_threads : 64)
                    : 8;
  ec.pinned = replay_pinned_buffers(opt, ctx);
  st->decode_threads = ec.decode_threads > 1 ? ec.decode_threads : 1;
  st->prefetch = ec.prefetch;
  if (vf_euroc_open(opt->sequence, &ec, ctx, reader) != VF_OK) {
    fprintf(stderr, "vf_replay: %s\n", vf_last_error_message());
    return -1;
  }
  if (configure(opt, *reader, has_cameras, fc) != 0) return -1;
  st->compare_sparse = replay_sparse_wanted(fc);
  vf_euroc_info info;
  vf_euroc_get_info(*reader, &info);
  st->total_pairs = opt->max_frames > 0 && opt->max_frames < info.stereo_pairs ? opt->max_frames
                                                                               : info.stereo_pairs;
  if (opt->csv != NULL && (st->csv = replay_csv_open(opt->csv)) == NULL) {
    fprintf(stderr, "vf_replay: cannot write %s\n", opt->csv);
    return -1;
  }
  if (!opt->no_eval && replay_eval_open(opt->sequence, *reader, st->decode_threads,
                                        st->prefetch > 2 ? st->prefetch : 2, &st->eval) != 0) {
    fprintf(stderr, "vf_replay: cannot load the ground truth of %s\n", opt->sequence);
    return -1;
  }
  vf_frontend_callbacks cb = {on_features, on_disparity, st};
  if (vf_frontend_create(ctx, fc, &cb, fe) != VF_OK) {
    fprintf(stderr, "vf_replay: %s\n", vf_last_error_message());
    return -1;
  }
  vf_device_info dev;
  vf_context_device_info(ctx, &dev);
  char threads[32] = "";
  if (vf_context_backend(ctx) == VF_BACKEND_CPU)
    snprintf(threads, sizeof threads, ", %d thread%s", dev.multiprocessors,
             dev.multiprocessors == 1 ? "" : "s");
  printf("vf_replay: %s, %d stereo pairs, %d IMU samples, %s backend (%s%s)\n", opt->sequence,
         info.stereo_pairs, info.imu_replayed, vf_backend_name(vf_context_backend(ctx)), dev.name,
         threads);
  if (info.cam_missing[0] + info.cam_missing[1] > 0) {
    printf("vf_replay: %d + %d listed images are missing (skipped)\n", info.cam_missing[0],
           info.cam_missing[1]);
  }
  return 0;
}

/* The summary as JSON: features per frame, mean track length and the evaluation (null without
 * ground truth). */
static int write_json(const char* path, const replay_state* st) {
  FILE* f = fopen(path, "w");
  if (f == NULL) return -1;
  double per_frame, length;
  replay_stats_summary(&st->stats, &per_frame, &length);
  fprintf(f, "{\"frames\": %ld, \"features_per_frame\": %.3f, \"mean_track_length\": %.3f,\n",
          st->stats.frames, per_frame, length);
  fprintf(f, "\"eval\": ");
  if (st->eval != NULL) {
    replay_eval_write_json(st->eval, f);
  } else {
    fprintf(f, "null\n");
  }
  fprintf(f, "}\n");
  return fclose(f) == 0 ? 0 : -1;
}

int main(int argc, char** argv) {
  replay_options opt;
  if (replay_parse_args(argc, argv, &opt) != 0) return 2;
  if (make_dir(opt.disparity_dir) != 0 || make_dir(opt.overlay_dir) != 0) return 1;
  /* The file's context section under --backend; a file that does not load is reported by
   * load_config below, with the context's log. */
  vf_context_config cc = example_context_config(opt.config);
  if (opt.backend_given) cc.backend = opt.backend;
  example_log_install(&cc, "vf_replay", opt.quiet);
  vf_context* ctx = NULL;
  if (vf_context_create(&cc, &ctx) != VF_OK) {
    fprintf(stderr, "vf_replay: %s\n", vf_last_error_message());
    return 1;
  }
  vf_frontend_config fc;
  int has_cameras = 0;
  vf_euroc* reader = NULL;
  vf_frontend* fe = NULL;
  replay_state st;
  memset(&st, 0, sizeof st);
  st.opt = &opt;
  if (opt.rig) {
    /* The rig's cameras come from its camchain file, whatever the config names. */
    int rc = load_config(&opt, ctx, &fc, &has_cameras) != 0 ? 1 : replay_rig_main(&opt, ctx, &fc);
    vf_context_destroy(ctx);
    return rc;
  }
  int rc = load_config(&opt, ctx, &fc, &has_cameras) != 0 ||
           setup(&opt, ctx, &fc, has_cameras, &reader, &st, &fe) != 0;
  /* The summary only follows a replay that ran. */
  if (rc == 0) {
    rc = replay(&opt, fe, reader, &st);
    if (!opt.quiet) fprintf(stderr, "\n");
    if (!opt.read_only) replay_stats_print(&st.stats, stdout);
    replay_stats_print_reader(&st.stats, st.decode_threads, st.prefetch,
                              replay_eval_wait_s(st.eval), stdout);
    if (st.compare_sparse && !opt.read_only) replay_sparse_print(&st.sparse, stdout);
    if (st.eval != NULL && !opt.read_only) replay_eval_print(st.eval, stdout);
    if (opt.json != NULL && !opt.read_only && write_json(opt.json, &st) != 0) {
      fprintf(stderr, "vf_replay: cannot write %s\n", opt.json);
      rc = 1;
    }
  }
  if (st.failed) rc = 1;
  vf_frontend_destroy(fe);
  if (st.csv != NULL) fclose(st.csv);
  replay_eval_close(st.eval);
  replay_stats_free(&st.stats);
  replay_sparse_free(&st.sparse);
  free(st.last_features);
  vf_euroc_close(reader);
  vf_context_destroy(ctx);
  return rc;
}
