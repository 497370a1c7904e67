// SPDX-License-Identifier: BSD-3-Clause
/* The drift measurement's run: render, build pyramids, track, refill, and compare every
 * tracked observation with the truth of drift_measure.h. */
#include "drift_measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char* const drift_scale_bin_names[DRIFT_SCALE_BINS] = {"<2%", "2-5%", "5-10%", "10-20%",
                                                             ">20%"};
const char* const drift_rotation_bin_names[DRIFT_ROTATION_BINS] = {"<1 deg", "1-2 deg", "2-5 deg",
                                                                   "5-10 deg", ">10 deg"};
const char* const drift_age_bin_names[DRIFT_AGE_BINS] = {"1-2",   "3-5",   "6-10",
                                                         "11-20", "21-40", ">40"};
const double drift_within_px[DRIFT_WITHIN] = {0.1, 0.5, 1.0};

static const double drift_scale_edges[DRIFT_SCALE_BINS - 1] = {0.02, 0.05, 0.10, 0.20};
static const double drift_rotation_edges[DRIFT_ROTATION_BINS - 1] = {1, 2, 5, 10};
static const double drift_age_edges[DRIFT_AGE_BINS - 1] = {2.5, 5.5, 10.5, 20.5, 40.5};

/* One tracked observation. */
typedef struct drift_obs {
  float drift, step;
  float scale_change, rotation_deg; /* |scale - 1| and |rotation| since the first observation */
  int age, frame;
} drift_obs;

/* A track's first and latest observation, by id - 1 (ids count up from 1). */
typedef struct drift_track {
  int first_frame, length;
  double fx, fy, px, py;
} drift_track;

typedef struct drift_run {
  const drift_options* opt;
  vf_context* ctx;
  drift_sequence* seq;
  vf_pyramid* pyr[2];
  vf_detector* det;
  vf_tracker* tracker;
  vf_feature_set* set;
  vf_image img;
  uint8_t* mask;
  int cells;
  drift_track* tracks;
  long ntracks, track_cap;
  drift_obs* obs;
  long nobs, obs_cap;
  double live_sum;
} drift_run;

drift_options drift_options_default(void) {
  drift_options o;
  memset(&o, 0, sizeof o);
  const vf_frontend_config fc = vf_frontend_config_default();
  o.sequence = drift_sequence_config_default();
  o.backend = VF_BACKEND_CPU;
  o.pyramid_levels = fc.pyramid_levels;
  o.detector = fc.detector;
  o.tracker = fc.tracker;
  o.features = fc.features;
  return o;
}

static vf_status drift_fail(vf_status st, const char* what) {
  fprintf(stderr, "vf_drift: %s: %s (%s)\n", what, vf_status_str(st), vf_last_error_message());
  return st;
}

static vf_status drift_setup(drift_run* r) {
  const drift_options* o = r->opt;
  const int w = o->sequence.width, h = o->sequence.height;
  vf_context_config cc = vf_context_config_default();
  cc.backend = o->backend;
  cc.cpu_threads = o->cpu_threads;
  vf_status st = vf_context_create(&cc, &r->ctx);
  if (st != VF_OK) return drift_fail(st, "context");
  if ((st = drift_sequence_create(&o->sequence, &r->seq)) != VF_OK) return st;
  const vf_pyramid_config pc = {w, h, o->pyramid_levels};
  for (int i = 0; i < 2; ++i) {
    if ((st = vf_pyramid_create(r->ctx, &pc, &r->pyr[i])) != VF_OK) {
      return drift_fail(st, "pyramid");
    }
  }
  vf_detector_config dc = o->detector;
  dc.width = w;
  dc.height = h;
  if ((st = vf_detector_create(r->ctx, &dc, &r->det)) != VF_OK) return drift_fail(st, "detector");
  vf_feature_set_config fc = o->features;
  fc.width = w;
  fc.height = h;
  vf_detector_grid(r->det, &fc.grid);
  vf_tracker_config tc = o->tracker;
  if (tc.max_features < fc.max_features) tc.max_features = fc.max_features;
  if ((st = vf_tracker_create(r->ctx, &tc, &r->tracker)) != VF_OK) {
    return drift_fail(st, "tracker");
  }
  if ((st = vf_feature_set_create(&fc, &r->set)) != VF_OK) return drift_fail(st, "feature set");
  r->cells = fc.grid.cols * fc.grid.rows;
  r->mask = malloc((size_t)r->cells);
  if (r->mask == NULL) return VF_ERR_NOMEM;
  if ((st = vf_image_alloc(&r->img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST)) != VF_OK) {
    return drift_fail(st, "image");
  }
  return VF_OK;
}

static void drift_teardown(drift_run* r) {
  vf_image_free(&r->img);
  free(r->mask);
  free(r->tracks);
  free(r->obs);
  vf_feature_set_destroy(r->set);
  vf_tracker_destroy(r->tracker);
  vf_detector_destroy(r->det);
  for (int i = 0; i < 2; ++i) vf_pyramid_destroy(r->pyr[i]);
  drift_sequence_destroy(r->seq);
  vf_context_destroy(r->ctx);
}

/* Grows *buf (of *cap elements of `size` bytes) to hold `need`. */
static int drift_reserve(void** buf, long* cap, long need, size_t size) {
  if (need <= *cap) return 1;
  long n = *cap > 0 ? *cap : 1024;
  while (n < need) n *= 2;
  void* p = realloc(*buf, (size_t)n * size);
  if (p == NULL) return 0;
  *buf = p;
  *cap = n;
  return 1;
}

/* Compares every live track of frame k with its truth and advances its latest position. */
static vf_status drift_observe(drift_run* r, int k) {
  const vf_track* fs = vf_feature_set_features(r->set);
  const int n = vf_feature_set_count(r->set);
  if (!drift_reserve((void**)&r->obs, &r->obs_cap, r->nobs + n, sizeof *r->obs)) {
    return VF_ERR_NOMEM;
  }
  double Hk[9], Hprev[9], Hstep[9];
  drift_sequence_homography(r->seq, k, Hk);
  drift_sequence_homography(r->seq, k - 1, Hprev);
  drift_h_inverse(Hprev, Hprev);
  drift_h_mul(Hk, Hprev, Hstep);
  for (int i = 0; i < n; ++i) {
    if (fs[i].id == 0 || (long)fs[i].id > r->ntracks) continue;
    drift_track* t = &r->tracks[fs[i].id - 1];
    double Hj[9], M[9], tx, ty, sx, sy, scale, rot;
    drift_sequence_homography(r->seq, t->first_frame, Hj);
    drift_h_inverse(Hj, Hj);
    drift_h_mul(Hk, Hj, M);
    drift_h_apply(M, t->fx, t->fy, &tx, &ty);
    drift_h_apply(Hstep, t->px, t->py, &sx, &sy);
    drift_h_local(M, t->fx, t->fy, &scale, &rot);
    drift_obs* ob = &r->obs[r->nobs++];
    ob->drift = (float)hypot(fs[i].x - tx, fs[i].y - ty);
    ob->step = (float)hypot(fs[i].x - sx, fs[i].y - sy);
    ob->scale_change = (float)fabs(scale - 1.0);
    ob->rotation_deg = (float)fabs(rot);
    ob->age = k - t->first_frame;
    ob->frame = k;
    t->px = fs[i].x;
    t->py = fs[i].y;
    t->length++;
  }
  return VF_OK;
}

/* Detects in the cells without a live track and records the tracks that start. */
static vf_status drift_refill(drift_run* r, int k) {
  vf_status st = vf_feature_set_occupancy(r->set, r->mask, r->cells);
  if (st == VF_OK) st = vf_detector_detect(r->det, r->pyr[k & 1], r->mask, VF_MEMORY_HOST);
  const vf_keypoint* kp = NULL;
  int nk = 0;
  if (st == VF_OK) st = vf_detector_keypoints(r->det, &kp, &nk);
  if (st == VF_OK) st = vf_feature_set_add(r->set, kp, nk, NULL);
  if (st != VF_OK) return drift_fail(st, "refill");
  const vf_track* fs = vf_feature_set_features(r->set);
  const int n = vf_feature_set_count(r->set);
  for (int i = 0; i < n; ++i) {
    if ((long)fs[i].id <= r->ntracks) continue;
    /* New ids count up one by one, in order. */
    if (!drift_reserve((void**)&r->tracks, &r->track_cap, (long)fs[i].id, sizeof *r->tracks)) {
      return VF_ERR_NOMEM;
    }
    for (long id = r->ntracks + 1; id <= (long)fs[i].id; ++id) {
      r->tracks[id - 1] = (drift_track){-1, 0, 0, 0, 0, 0};
    }
    r->tracks[fs[i].id - 1] = (drift_track){k, 1, fs[i].x, fs[i].y, fs[i].x, fs[i].y};
    r->ntracks = (long)fs[i].id;
  }
  r->live_sum += n;
  return VF_OK;
}

static vf_status drift_frame(drift_run* r, int k) {
  vf_status st = drift_sequence_render(r->seq, k, &r->img);
  if (st != VF_OK) return drift_fail(st, "render");
  if (r->opt->frames_dir != NULL) {
    char path[4096];
    snprintf(path, sizeof path, "%s/frame_%03d.png", r->opt->frames_dir, k);
    if ((st = vf_png_write(path, &r->img)) != VF_OK) return drift_fail(st, path);
  }
  if ((st = vf_pyramid_build(r->pyr[k & 1], &r->img)) != VF_OK) return drift_fail(st, "pyramid");
  if (k > 0) {
    st = vf_feature_set_track(r->set, r->tracker, r->pyr[(k - 1) & 1], r->pyr[k & 1], NULL, NULL);
    if (st != VF_OK) return drift_fail(st, "track");
    if ((st = drift_observe(r, k)) != VF_OK) return st;
  }
  return drift_refill(r, k);
}

static int drift_cmp_float(const void* a, const void* b) {
  const float x = *(const float*)a, y = *(const float*)b;
  return (x > y) - (x < y);
}

/* Median, mean and 90th percentile of v[0..n) (sorted in place). */
static drift_bin drift_bin_of(float* v, long n) {
  drift_bin b = {n, NAN, NAN, NAN};
  if (n == 0) return b;
  qsort(v, (size_t)n, sizeof *v, drift_cmp_float);
  double sum = 0;
  for (long i = 0; i < n; ++i) sum += v[i];
  b.mean = sum / n;
  b.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  b.p90 = v[(long)floor(0.9 * (n - 1) + 0.5)];
  return b;
}

static int drift_bin_index(double v, const double* edges, int bins) {
  int i = 0;
  while (i < bins - 1 && v >= edges[i]) ++i;
  return i;
}

/* The drift of the observations whose bin (by `key`) is `bin`, or all when bin < 0. */
static drift_bin drift_select(const drift_run* r, float* tmp, int key, int bin) {
  long n = 0;
  for (long i = 0; i < r->nobs; ++i) {
    const drift_obs* o = &r->obs[i];
    int b = -1;
    if (key == 0) b = drift_bin_index(o->scale_change, drift_scale_edges, DRIFT_SCALE_BINS);
    if (key == 1) b = drift_bin_index(o->rotation_deg, drift_rotation_edges, DRIFT_ROTATION_BINS);
    if (key == 2) b = drift_bin_index(o->age, drift_age_edges, DRIFT_AGE_BINS);
    if (key == 3) b = o->frame == r->opt->sequence.frames - 1 ? 0 : -1;
    if (bin < 0 || b == bin) tmp[n++] = o->drift;
  }
  return drift_bin_of(tmp, n);
}

static vf_status drift_summarise(const drift_run* r, drift_stats* s) {
  memset(s, 0, sizeof *s);
  float* tmp = malloc((size_t)(r->nobs > 0 ? r->nobs : 1) * sizeof *tmp);
  if (tmp == NULL) return VF_ERR_NOMEM;
  s->frames = r->opt->sequence.frames;
  s->observations = r->nobs;
  s->drift = drift_select(r, tmp, -1, -1);
  for (int w = 0; w < DRIFT_WITHIN; ++w) {
    long in = 0;
    for (long i = 0; i < r->nobs; ++i) in += r->obs[i].drift <= drift_within_px[w];
    s->within[w] = r->nobs > 0 ? (double)in / r->nobs : NAN;
  }
  for (long i = 0; i < r->nobs; ++i) {
    tmp[i] = r->obs[i].step;
    s->max_scale_change = fmax(s->max_scale_change, r->obs[i].scale_change);
    s->max_rotation_deg = fmax(s->max_rotation_deg, r->obs[i].rotation_deg);
  }
  s->step = drift_bin_of(tmp, r->nobs);
  for (int b = 0; b < DRIFT_SCALE_BINS; ++b) s->by_scale[b] = drift_select(r, tmp, 0, b);
  for (int b = 0; b < DRIFT_ROTATION_BINS; ++b) s->by_rotation[b] = drift_select(r, tmp, 1, b);
  for (int b = 0; b < DRIFT_AGE_BINS; ++b) s->by_age[b] = drift_select(r, tmp, 2, b);
  s->last_frame = drift_select(r, tmp, 3, 0);
  double age = 0;
  for (long i = 0; i < r->nobs; ++i) {
    if (r->obs[i].frame == s->frames - 1) age += r->obs[i].age;
  }
  s->last_frame_age = s->last_frame.count > 0 ? age / s->last_frame.count : NAN;
  long length = 0;
  for (long i = 0; i < r->ntracks; ++i) {
    if (r->tracks[i].first_frame < 0) continue;
    ++s->tracks;
    length += r->tracks[i].length;
  }
  s->mean_track_length = s->tracks > 0 ? (double)length / s->tracks : NAN;
  s->features_per_frame = r->live_sum / s->frames;
  free(tmp);
  return VF_OK;
}

vf_status drift_measure_run(const drift_options* options, drift_stats* out) {
  drift_run r;
  memset(&r, 0, sizeof r);
  r.opt = options;
  vf_status st = drift_setup(&r);
  for (int k = 0; st == VF_OK && k < options->sequence.frames; ++k) st = drift_frame(&r, k);
  if (st == VF_OK) st = drift_summarise(&r, out);
  drift_teardown(&r);
  return st;
}
