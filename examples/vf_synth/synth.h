// SPDX-License-Identifier: BSD-3-Clause
/* vf_synth: a synthetic stereo-inertial (or multi-camera) sequence in the EuRoC ASL layout, with
 * ground truth.
 * The scene is a room of textured planes with boxes in it, rendered by ray casting through
 * EuRoC's camera calibration (distortion included); the body follows a smooth 6-DoF trajectory
 * whose derivatives give the IMU. Ray casting and texturing use cglm (float is plenty for 8-bit
 * images and millimetre depths); the trajectory, IMU and projections of ground truth stay in
 * double (nanosecond timestamps, and gyro integration checked to 1e-6 rad). */
#ifndef SYNTH_H
#define SYNTH_H

#include <cglm/cglm.h>
#include <stdint.h>
#include <stdio.h>
#include <viofront/viofront.h>

typedef struct synth_options {
  const char* out; /* output folder (made if missing) */
  int frames;      /* frames at 20 Hz (of every camera) */
  uint64_t seed;   /* scene, texture and noise */
  int noise;       /* IMU noise + bias random walk and image noise */
  int photometric; /* slow per-camera gain and bias changes */
  int depth;       /* ground-truth depth and disparity images */
  double speed;    /* trajectory speed factor (1 = about 0.5 m/s, 20 deg/s) */
  double alpha;    /* rectification alpha of the disparity ground truth */
  int threads;     /* rendering threads */
  int landmarks;   /* 3-D points whose projections are written per frame */
  const char* rig; /* the camera rig's name (synth_rig.c) */
} synth_options;

/* --- camera rigs (synth_rig.c) --- */

#define SYNTH_MAX_CAMS 8
#define SYNTH_MAX_PAIRS 4

typedef struct synth_rig {
  const char* name;
  int ncams;
  int source[SYNTH_MAX_CAMS];  /* the EuRoC VI-Sensor camera (0, 1) each camera copies */
  int quarter[SYNTH_MAX_CAMS]; /* quarter turns about body x (the vertical), to the left */
  int npairs;
  int pairs[SYNTH_MAX_PAIRS][2]; /* stereo pairs (left, right) with disparity ground truth */
  vf_camera cams[SYNTH_MAX_CAMS];
} synth_rig;

/* The rig called `name`, cameras filled in; 0 when there is none. */
int synth_rig_find(const char* name, synth_rig* out);
/* The rigs' names, separated by '|'. */
void synth_rig_names(char* buf, size_t size);
/* The file name suffix of the pair whose left camera is `left`: "" for cam0 (disparity/,
 * rectification.yaml, as before rigs), else the number (disparity2/, rectification2.yaml). */
const char* synth_pair_suffix(int left, char buf[16]);

/* --- scene (synth_scene.c, synth_texture.c) --- */

#define SYNTH_MAX_BOXES 8
#define SYNTH_MAX_LEVELS 16

/* An axis-aligned textured rectangle. */
typedef struct synth_face {
  int axis;           /* normal axis */
  float plane;        /* coordinate along it */
  float nsign;        /* the normal (towards the viewer) is nsign along `axis` */
  int ua, va;         /* texture axes */
  float lo[2], hi[2]; /* extent along ua, va (m) */
  int levels;         /* mipmap levels */
  int w[SYNTH_MAX_LEVELS], h[SYNTH_MAX_LEVELS];
  uint8_t* mip[SYNTH_MAX_LEVELS];
} synth_face;

typedef struct synth_scene {
  vec3 room_lo, room_hi;
  int room_face[6]; /* face index of wall 2 * axis + (1 = the max side) */
  int nboxes;
  vec3 box_lo[SYNTH_MAX_BOXES], box_hi[SYNTH_MAX_BOXES];
  int box_face[SYNTH_MAX_BOXES][6];
  int nfaces;
  synth_face* faces;
  float texel_m; /* texture resolution at level 0 */
  vec3 light;    /* a point light: shading depends on the surface point only */
} synth_scene;

typedef struct synth_hit {
  float t; /* ray parameter: the hit is o + t d */
  int face;
} synth_hit;

int synth_scene_create(uint64_t seed, int threads, synth_scene* scene);
void synth_scene_destroy(synth_scene* scene);
/* First hit of o + t d, t in (0, tmax), testing the boxes of bit mask `boxes`; 0 when none. */
int synth_scene_cast(const synth_scene* s, const float o[3], const float d[3], float tmax,
                     unsigned boxes, synth_hit* hit);
/* The boxes with a corner in front of camera (R_WC, c): no ray that leaves the camera forwards
 * can hit the others, so casts skip them. */
unsigned synth_scene_boxes_in_front(const synth_scene* s, const double R_WC[9], const double c[3]);
/* Radiance in [0, 1] at hit point p of face f, filtered over a footprint of `footprint_m`. */
float synth_scene_radiance(const synth_scene* s, int face, const float p[3], float footprint_m);
/* A point on a random visible surface (for landmarks). */
void synth_scene_random_point(const synth_scene* s, uint64_t* rng, double p[3]);

/* Fills the face's mipmaps with procedural texture (value noise and random rectangles). */
int synth_texture_fill(synth_face* f, float texel_m, uint64_t seed);

/* --- trajectory and IMU (synth_motion.c) --- */

typedef struct synth_state {
  double p[3], v[3], a[3]; /* body in world, m, m/s, m/s^2 */
  double R[9];             /* row-major body -> world */
  double w[3];             /* angular velocity in the body frame, rad/s */
} synth_state;

void synth_motion_eval(double t_s, double speed, synth_state* out);
/* Rotation matrix (row-major) -> quaternion w x y z. */
void synth_quat_from_matrix(const double R[9], double q[4]);

/* IMU samples with biases: gyro = w + bg + n, acc = R^T (a - g) + ba + n. */
typedef struct synth_imu_sample {
  int64_t t_ns;
  double gyro[3], acc[3];
  double bg[3], ba[3]; /* the true biases at that time */
} synth_imu_sample;

void synth_imu_generate(const synth_options* o, const vf_imu_calib* calib, int64_t t0_ns, int count,
                        synth_imu_sample* out);

/* --- random numbers (synth_scene.c) --- */
uint64_t synth_rand(uint64_t* state);
double synth_uniform(uint64_t* state);
double synth_gauss(uint64_t* state);
/* Approximately normal, cheap: for image noise. */
float synth_gauss_fast(uint64_t* state);

/* --- rendering (synth_render.c) --- */

typedef struct synth_view {
  vf_camera cam;
  float* ray;       /* per pixel (x, y, 1) in the camera frame, 3 floats */
  float* footprint; /* per pixel angular size (rad) */
} synth_view;

int synth_view_create(const vf_camera* cam, synth_view* v);
void synth_view_destroy(synth_view* v);

/* Camera k's pose in the world at body state st: R_WC (row-major) and centre. */
void synth_camera_pose(const vf_camera* cam, const synth_state* st, double R_WC[9], double c[3]);

/* Renders one camera: 8-bit image (gain, bias, noise applied) and z-depth in 1/5000 m
 * (0 = nothing), either may be NULL. */
void synth_render_view(const synth_scene* s, const synth_view* v, const double R_WC[9],
                       const double c[3], float gain, float bias, float noise_sigma,
                       uint64_t noise_seed, vf_image* image, vf_image* depth);

/* The rectified left view's pixel rays in the raw left camera (x, y, 1), with z holding the
 * rectified depth per unit of raw depth, or 0 where the pixel has no raw source. */
int synth_view_create_rectified(const vf_camera* left, const vf_stereo_rectification* rect,
                                synth_view* v);

/* Disparity of the rectified left view of pair (left, right) in 1/256 px (0 = unknown or
 * occluded in the right). */
void synth_render_disparity(const synth_scene* s, const vf_stereo_rectification* rect,
                            const synth_view* rectified, const vf_camera* left,
                            const vf_camera* right, const synth_state* st, vf_image* disparity);

/* Whether world point X is seen by camera (R_WC, c): in front, inside the image, not hidden
 * (by the boxes of mask `boxes`, from synth_scene_boxes_in_front). uv receives its pixel. */
int synth_point_visible(const synth_scene* s, const vf_camera* cam, const double R_WC[9],
                        const double c[3], unsigned boxes, const double X[3], double uv[2]);

/* --- output (synth_write.c) --- */

int synth_write_calibration(const char* root, const synth_rig* rig, const vf_imu_calib* imu);
int synth_mkdirs(const char* root, const synth_rig* rig, int depth);
int synth_write_text(const char* path, const char* text);

/* 8- or 16-bit grey host image to a PNG, fast (synth_png.c). */
int synth_png_write(const char* path, const vf_image* img);

/* synth_tables.c */
/* Opens root/rel for writing (a message when it cannot); closes it, -1 on any write error. */
FILE* synth_open(const char* root, const char* rel);
int synth_close(FILE* f);
int synth_write_camera_csv(const char* root, int k, const int64_t* t, int n);
int synth_write_imu_csv(const char* root, const synth_imu_sample* s, int n);
int synth_write_state_csv(const char* root, const synth_imu_sample* s, int n, int64_t t0_ns,
                          double speed);
int synth_write_landmarks(const char* root, const double* X, int n);
int synth_write_tracks(const char* root, const synth_scene* s, const vf_camera* cams, int ncams,
                       const double* X, int nx, const int64_t* t, const synth_state* states,
                       int frames);
/* gain and bias hold ncams values per frame. */
int synth_write_photometric(const char* root, int ncams, const int64_t* t, const float* gain,
                            const float* bias, int frames);
int synth_write_rectification(const char* root, const int pair[2], const vf_stereo_rectification* r,
                              double alpha);
int synth_write_readme(const char* root, const synth_options* o, const synth_rig* rig);

/* camchain.yaml at the sequence root: the rig in Kalibr's format (synth_camchain.c). */
int synth_write_camchain(const char* root, const synth_rig* rig, const vf_imu_calib* imu);

#endif
