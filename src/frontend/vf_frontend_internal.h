// SPDX-License-Identifier: BSD-3-Clause
/* What the frontend's source files share: the handle and the per-frame helpers. */
#ifndef VF_FRONTEND_INTERNAL_H
#define VF_FRONTEND_INTERNAL_H

#include <stdint.h>

#include "core/vf_context_internal.h"
#include "core/vf_stage_clock.h"
#include "core/vf_stream_link.h"
#include "geometry/vf_rigid_motion.h"
#include "viofront/vf_frontend.h"
#include "viofront/vf_imu.h"
#include "viofront/vf_sampler.h"
#include "viofront/vf_timer.h"

/* Sparse stereo's correlation birth check: the births whose losses set the median, and how many
 * it needs. */
#define VF_BIRTH_LOSSES 128
#define VF_BIRTH_LOSSES_MIN 32

/* A pending prediction from the backend: the raw left pixel of a track for the next frame. */
typedef struct vf_frontend_prediction {
  uint64_t id;
  float u, v;
} vf_frontend_prediction;

/* What the records need from a track's previous frame: its normalized positions (velocity).
 * Kept in the feature set's order. */
typedef struct vf_frontend_motion {
  uint64_t id;
  float nx, ny;           /* camera 0, NaN before the first observation */
  float rnx, rny;         /* camera 1 */
  float u, v;             /* rectified left pixel */
  float disparity;        /* px, NaN where unknown */
  float slide_u, slide_v; /* px: the track's departure from the rigid motion, summed so far */
} vf_frontend_motion;

typedef enum vf_frontend_stage {
  VF_STAGE_RECTIFY = 0,
  VF_STAGE_PYRAMID,
  VF_STAGE_TRACK,
  VF_STAGE_DETECT,
  VF_STAGE_STEREO,
  VF_STAGE_FEATURES,
  VF_STAGE_COUNT
} vf_frontend_stage;

/* Marks of the stereo side (the right image's rectification, then the stereo stage) when it runs
 * on its own stream. */
typedef enum vf_frontend_side_stage {
  VF_SIDE_RECTIFY = 0,
  VF_SIDE_STEREO,
  VF_SIDE_COUNT
} vf_frontend_side_stage;

struct vf_frontend {
  vf_error err;
  vf_context* ctx;
  vf_frontend_config cfg;
  vf_frontend_callbacks cb;
  vf_stereo_rectification rect;
  double R_b_c[9]; /* rectified left camera -> body rotation, for the gyroscope's guess */
  double K[4];     /* rectified pinhole (f, f, cx, cy) */

  /* stages */
  vf_remap* remap[2];
  /* context memory; [0] is a view of pyramid[cur]'s level 0 (vf_frontend_bind_left) */
  vf_image rectified[2];
  vf_pyramid* pyramid[2]; /* ping-pong: [cur] is this frame's, [!cur] the previous one */
  int cur;
  vf_detector* detector;
  /* CUDA without SGM beside the frame, on a large GPU (vf_frontend_create.c says which): a
   * detection of every cell on a stream of its own (early_ctx), queued once the pyramid is built
   * so that it runs beside the tracking; the empty cells' keypoints are taken from it afterwards
   * instead of a detection after the tracking (one host round trip less). */
  vf_context* early_ctx;
  vf_detector* early_detector;
  vf_stream_link pyramid_ready; /* main -> early_ctx: the pyramid is built */
  int early_pending;            /* this frame's early detection waits for its collect */
  vf_keypoint* early_kept;      /* its keypoints in the empty cells, one per cell at most */
  vf_detector* band_detector;   /* birth_candidates > 1 with the birth check: cells of
                                   cell_height / birth_candidates rows, else NULL */
  vf_grid band_grid;
  vf_tracker* tracker;
  vf_grid grid;
  vf_stereo* stereo;
  vf_image disparity;      /* U16, context memory */
  vf_image disparity_host; /* CUDA with host output: the map and the rectified left copied */
  vf_image rectified_host;
  vf_sampler* sampler;
  /* Sparse stereo on CUDA: a stream view of the context whose stream rectifies the right image
   * beside the tracking and matches the births beside the tracked tracks' matches on the main one
   * (vf_frontend_frame.c); NULL otherwise. */
  vf_context* match_ctx;
  vf_sampler* birth_sampler;
  vf_stream_link right_ready; /* match_ctx -> main: the rectified right image is written */
  vf_imu_buffer* imu;
  int64_t imu_offset_ns; /* cfg.imu_timeshift_s in ns: a frame's time on the IMU's clock */
  vf_stage_clock clock;

  /* CUDA with stereo: the right image's rectification and the stereo stage run on a sibling
   * context's stream, overlapping the pyramid, tracking and detection on the main one; NULL
   * otherwise (everything in order on fe->ctx). */
  vf_context* side;
  vf_stream_link left_ready;  /* main -> side: the rectified left image is written */
  vf_stream_link stereo_done; /* side -> main: the disparity map is written */
  vf_stage_clock side_clock;

  /* the live tracks (ids never reused) and their previous normalized positions */
  vf_feature_set* set;
  vf_frontend_motion* motion;
  vf_frontend_motion* motion_next;
  int motion_count;

  /* per-frame scratch, sized at create time by the feature cap */
  float* guess;               /* per track the initial guess (x, y), NaN for none */
  float* xy;                  /* feature (or candidate) positions for the sampler and the gyro */
  vf_disparity_probe* probes; /* per track (or candidate) what the disparity map shows around it */
  float* disparities;         /* per track the matched disparity (px), NaN where not matched */
  float* priors;              /* sparse stereo: per point its previous disparity, NaN for none */
  vf_stereo_match* matches;   /* sparse stereo: per track (or candidate) its match */
  float* born_xy;             /* sparse stereo: the points matched with the birth check, */
  vf_stereo_match* born;      /* their matches, */
  uint64_t* born_id;          /* their tracks' ids (the first born_by_id: the live tracks, */
  int born_by_id;             /* in the set's order), then held candidates by position; */
  int born_count;             /* how many */
  int match_pending;          /* sparse stereo: the live tracks' matches wait for their collect */
  int births_pending;         /* sparse stereo: the births' matches (birth_sampler) wait too */
  int live_queued;            /* sparse stereo: the tracked tracks' matches were queued first */
  int live_count;             /* and how many: the births' follow them in the list */
  int match_count;            /* sparse stereo: how many were queued */
  int tracking;               /* a tracking is submitted, its finish not yet called */
  int* born_at;               /* per track its place among them, -1: matched anew */
  uint64_t* births;           /* ids of the tracks born this frame */
  uint8_t* occupancy;         /* one byte per detector cell */
  uint8_t* band_occupancy;    /* one byte per band_detector cell */
  vf_keypoint* held;          /* candidates waiting for the birth check, one per band cell */
  int held_count;
  /* sparse stereo's correlation birth check (vf_frontend_birth_loss.c): the correlation losses
   * (1 - ZNCC) of the last VF_BIRTH_LOSSES births with a match, a ring, and the frame's limit */
  float birth_loss[VF_BIRTH_LOSSES];
  int birth_loss_count, birth_loss_next;
  float birth_loss_limit;
  vf_rigid_point* rigid; /* the rigid-motion check (slide_max): tracks with a previous disparity */
  int* rigid_track;      /* their places among the live tracks */
  float* rigid_residual; /* 2 per point, px */
  float* rigid_scratch;  /* VF_RIGID_SCRATCH_FLOATS(n) */
  float* slide;          /* 2 per live track after the check: its summed departure, px */
  int slide_count;       /* tracks with an entry in `slide` (the check's; later ones are new) */
  uint64_t* slid;        /* ids of the tracks the check ends */
  int slid_count;
  double frame_R[9]; /* the gyroscope's R_c0_c1 over this frame interval */
  int frame_R_valid;
  vf_feature* records; /* what the callback gets: left records, then right ones */
  int record_count;
  int right_missing[VF_RIGHT_MISSING_REASONS];

  /* back channel, applied at the start of the next frame */
  vf_frontend_prediction* predictions;
  int prediction_count;

  int64_t last_t_ns;
  int64_t last_imu_ns;
  uint64_t sequence;
  int have_previous;
  int in_callback;     /* process is refused from inside a callback */
  int frame_committed; /* this frame changed the tracks: it must not be rolled back */
  int right_absent;    /* sparse stereo: this frame has no usable right image */
  /* Set by a rig for the next frame (vf_frontend_set_prepared): VF_FRONTEND_PREPARED_* bits of
   * the steps queued already, batched over the rig's cameras, which the frame skips. */
  int prepared;
  int frame_added, frame_lost;
};

/* Sparse stereo: features matched alone, no map unless one is asked for every dense_every
 * frames. */
static inline int vf_frontend_sparse(const vf_frontend_config* c) {
  return c->stereo_enabled && c->stereo_mode == VF_FRONTEND_STEREO_SPARSE;
}

/* A frame's time on the IMU's clock (t + imu_offset_ns), held at the ends of int64 rather than
 * wrapping: such a window is then not covered, and the frame goes unseeded. */
static inline int64_t vf_frontend_imu_time(const vf_frontend* fe, int64_t t_ns) {
  const int64_t d = fe->imu_offset_ns;
  if (d > 0 && t_ns > INT64_MAX - d) return INT64_MAX;
  if (d < 0 && t_ns < INT64_MIN - d) return INT64_MIN;
  return t_ns + d;
}

/* Whether the frontend has a stereo stage and a disparity map at all. */
static inline int vf_frontend_has_map(const vf_frontend_config* c) {
  return c->stereo_enabled && (c->stereo_mode == VF_FRONTEND_STEREO_DENSE || c->dense_every > 0);
}

/* Whether this frame computes the dense map (not without a right image). */
static inline int vf_frontend_map_frame(const vf_frontend* fe) {
  if (!vf_frontend_has_map(&fe->cfg) || fe->right_absent) return 0;
  return !vf_frontend_sparse(&fe->cfg) || fe->sequence % (uint64_t)fe->cfg.dense_every == 0;
}

/* The previous frame's motion entry of a track: the set keeps its order and appends new
 * tracks, so one forward walk (j from 0) over both lists finds them; NULL for a new track. */
static inline const vf_frontend_motion* vf_frontend_previous_motion(const vf_frontend* fe, int* j,
                                                                    uint64_t id) {
  while (*j < fe->motion_count && fe->motion[*j].id != id) ++*j;
  return *j < fe->motion_count ? &fe->motion[*j] : NULL;
}

/* Rectified pixel -> raw pixel and undistorted normalized coordinates of `cam` (R: raw ->
 * rectified rotation of that camera). Fields it cannot compute are NaN. */
void vf_frontend_unrectify(const vf_camera* cam, const double R[9], double f, double cx, double cy,
                           float u_rect, float v_rect, vf_feature* out);
/* f * baseline / disparity, NaN for a non-positive disparity. */
float vf_frontend_depth(double f, double baseline_m, float disparity);

/* The backend's pending predictions become the guesses (fe->guess) of the live tracks
 * (src/frontend/vf_frontend_inputs.c). */
void vf_frontend_apply_predictions(vf_frontend* fe);
/* The tracking step in two parts (src/frontend/vf_frontend_track.c): submit computes the guesses
 * and queues the tracking (nothing without a previous frame or tracks); finish waits for it and
 * applies its checks, `lost` counting the tracks they ended. Between them the GPU's work behind
 * the tracking is queued (the live tracks' sparse matches). */
vf_status vf_frontend_track_submit(vf_frontend* fe, int64_t t_ns);
vf_status vf_frontend_track_finish(vf_frontend* fe, int* lost);
/* The rigid-motion check (frontend.slide_max, src/frontend/vf_frontend_rigid.c), in two parts
 * around the detection, so that the host computes while the GPU detects. assess (after tracking):
 * each tracked track's summed departure from the frame's rigid motion into fe->slide, and the
 * ids of those past the limit into fe->slid. apply (after the new tracks are added): those are
 * ended (`ended`). New tracks get no sum (fe->slide_count: the tracks that have one). */
void vf_frontend_rigid_assess(vf_frontend* fe);
vf_status vf_frontend_rigid_apply(vf_frontend* fe, int* ended);
/* CUDA: queues the early detection (every cell) when detection is due this frame, right after
 * the pyramid, so that it runs beside the tracking. */
vf_status vf_frontend_detect_early(vf_frontend* fe, int batched);
/* The detection step: new tracks in the cells without one when detection is due; *assessed: 1
 * when it ran vf_frontend_rigid_assess (beside a detection on the GPU). */
vf_status vf_frontend_replenish(vf_frontend* fe, int* added, int* assessed);
/* Whether new tracks on a depth edge are removed after stereo (frontend.birth_edge_radius). */
int vf_frontend_checks_births(const vf_frontend_config* c);
/* Whether a cell may try several corners at birth (frontend.birth_candidates). */
int vf_frontend_tries_candidates(const vf_frontend_config* c);
/* Below min_features with the birth check: each empty cell's band corners, held in fe->held
 * for the check instead of becoming tracks (src/frontend/vf_frontend_births.c). */
vf_status vf_frontend_hold_candidates(vf_frontend* fe);
/* After stereo: the new tracks on depth edges are removed (`dropped`), and the held candidates
 * off them become tracks (`added`). */
vf_status vf_frontend_settle_births(vf_frontend* fe, int* dropped, int* added);
/* Sparse stereo (src/frontend/vf_frontend_sparse.c): the matches of the m points of fe->xy, from
 * fe->priors when `priors` (else none), into fe->matches, with fe->cfg.sparse (its depth step
 * over step_radius, set and checked at create). */
vf_status vf_frontend_match_points(vf_frontend* fe, int m, int priors);
/* Sparse stereo: keeps the matches of the m points of fe->xy in fe->matches (the birth check's
 * held candidates, no prior) for this frame's records; vf_frontend_forget_births empties the
 * list. */
void vf_frontend_remember_births(vf_frontend* fe, int m);
void vf_frontend_forget_births(vf_frontend* fe);
/* Sparse stereo on CUDA, between the tracking's submit and finish: every tracked track's match
 * queued right behind the tracking on the GPU, at the tracker's results (the tracks the checks
 * then end are matched for nothing), from its previous disparity, into the remembered list by
 * id; nothing elsewhere (fe->live_queued says). */
vf_status vf_frontend_queue_tracked_matches(vf_frontend* fe);
/* Sparse stereo: every live track's match queued (the births without a prior, the others from
 * their previous disparities, as the records would match them) into the remembered list by id,
 * where the birth check and the records take them; after vf_frontend_queue_tracked_matches the
 * births' alone, on a stream of their own (fe->match_ctx) beside the tracked tracks'. Nothing in
 * dense mode. vf_frontend_wait_matches waits for them (nothing when none is queued). */
vf_status vf_frontend_queue_matches(vf_frontend* fe);
vf_status vf_frontend_wait_matches(vf_frontend* fe);
/* After a failed frame: whatever is queued is waited for and forgotten. */
void vf_frontend_drop_matches(vf_frontend* fe);
/* Sparse stereo with the birth check: the queued matches, then the births' points, ids and
 * matches into fe->xy, fe->births and fe->matches; the births' count in *m. */
vf_status vf_frontend_match_live(vf_frontend* fe, int* m);
/* Sparse stereo: the correlation losses of m births' (or candidates') matches join the recent
 * births', and the frame's limit (frontend.sparse_birth_max_loss times their median; none below
 * VF_BIRTH_LOSSES_MIN births or with the check off) is set; vf_frontend_birth_correlates: 0 when
 * a match's loss exceeds it. */
void vf_frontend_birth_losses(vf_frontend* fe, const vf_stereo_match* matches, int m);
int vf_frontend_birth_correlates(const vf_frontend* fe, const vf_stereo_match* m);
/* Whether a new track (or candidate) with this match lies on a depth edge: its match fails the
 * left-right check (a nearer surface hides it) or its depth step is over the birth check's. */
int vf_frontend_sparse_on_edge(const vf_frontend* fe, const vf_stereo_match* m);
/* Sparse stereo: the live tracks' matches from their previous disparities, into fe->matches and
 * fe->disparities; a track without a prior where the birth check matched it is not matched again
 * (the same point, no prior, the same configuration: the same match). */
vf_status vf_frontend_match_tracks(vf_frontend* fe, const vf_track* tr, int n);

/* This frame's feature records (src/frontend/vf_frontend_records.c): the left camera's
 * positions and velocities, which need no disparity (on CUDA built while the stereo stage still
 * runs, unless births may still be dropped); then, from the disparity map, the depths, flags and
 * camera-1 records. */
void vf_frontend_build_left_records(vf_frontend* fe, int64_t t_ns);
vf_status vf_frontend_build_records(vf_frontend* fe, int64_t t_ns);

/* Points rectified[0] at pyramid[cur]'s level 0, where the frame's rectified left image is
 * written (then the pyramid is built in place, without a copy of level 0; the previous frame's
 * stays in the other pyramid). Before the frame's first step (src/frontend/vf_frontend_prepare.c).
 */
void vf_frontend_bind_left(vf_frontend* fe);

/* A rig's batched first steps (src/frontend/vf_frontend_prepare.c). The next frame's
 * rectifications (left, then right) as remap jobs and its pyramid from the rectified left image,
 * for a caller that queues them with other cameras' (vf_remap_apply_batch, vf_pyramid_build_batch)
 * on a stream that the frontend's is ordered after; then vf_frontend_set_prepared(fe, 1) makes
 * the frame skip them. Set 0 (or never set) the frame queues its own. */
typedef struct vf_frontend_prepare_jobs {
  vf_remap* remap[2];
  const vf_image* src[2];
  vf_image* dst[2];
  vf_pyramid* pyramid;
  const vf_image* pyramid_src;
} vf_frontend_prepare_jobs;
void vf_frontend_prepare_jobs_of(vf_frontend* fe, const vf_image* left, const vf_image* right,
                                 vf_frontend_prepare_jobs* jobs);
/* The early detection (every cell, beside the tracking) that the next frame would queue, with
 * the pyramid it reads; NULL when the frame detects no cell early. */
vf_detector* vf_frontend_early_job(vf_frontend* fe, const vf_pyramid** pyramid);
/* What a rig queued of the next frame's steps: the rectifications and the pyramid, the early
 * detection (submitted for the frame's detector, collected as its own). */
#define VF_FRONTEND_PREPARED_INPUTS 1
#define VF_FRONTEND_PREPARED_EARLY 2
#define VF_FRONTEND_PREPARED_TRACK 4
/* The stereo stream waits for the left image already (vf_frontend_track_ahead). */
#define VF_FRONTEND_PREPARED_LEFT_LINKED 8
void vf_frontend_set_prepared(vf_frontend* fe, int prepared);
/* The next frame's tracking queued now, on the frontend's stream, by a rig before its units'
 * threads start (their inputs prepared: does nothing otherwise); the frame then skips the step.
 * A stereo stream is linked to the rectified left image first, so that an SGM does not wait for
 * the tracking. Where the tracking cannot be queued the frame queues it itself (and reports
 * why). Returns 1 when the step was taken (also for a frame with nothing to track), else 0. */
int vf_frontend_track_ahead(vf_frontend* fe, int64_t t_ns);
/* Whether batching this frame's first steps with other cameras' pays (CUDA): not for a frame
 * that rectifies its right image after the tracking when an image must be uploaded. */
int vf_frontend_prepare_pays(const vf_frontend* fe, const vf_image* left, const vf_image* right);

/* The per-frame steps (src/frontend/vf_frontend_frame.c). */
vf_status vf_frontend_run_frame(vf_frontend* fe, int64_t t_ns, const vf_image* left,
                                const vf_image* right, vf_stage_times* times);

#endif
