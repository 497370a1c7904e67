// SPDX-License-Identifier: BSD-3-Clause
/* Constructed sequences of a textured plane seen through known homographies, for measuring
 * how tracks drift as the view changes. H_k maps frame-0 pixels to frame-k pixels (pixel
 * centres at integers, frame 0 = identity); it composes a tilt of the plane about the
 * horizontal axis through the image centre (perspective), a zoom and an in-plane rotation
 * about the image centre, and a translation growing by a fixed step per frame. Each pixel
 * integrates the plane over its area (supersample x supersample samples of a texture raster
 * kept at twice frame 0's resolution), so nothing aliases; then an optional gain/bias ramp
 * and seeded Gaussian sensor noise, rounded to 8 bits. */
#ifndef DRIFT_SEQUENCE_H
#define DRIFT_SEQUENCE_H

#include <stdint.h>
#include <viofront/viofront.h>

typedef struct drift_motion {
  double zoom;             /* scale at the last frame (1 = none), reached geometrically */
  double rotation_deg;     /* in-plane rotation at the last frame, linear in the frame index */
  double tilt_deg;         /* plane tilt at the last frame about the horizontal centre line */
  double focal_px;         /* focal length that sets how strong the tilt's perspective is */
  double shift_x, shift_y; /* translation added per frame, px */
} drift_motion;

typedef struct drift_sequence_config {
  int width, height;      /* frame size */
  int frames;             /* >= 2 */
  drift_motion motion;    /* the last frame's change; frame k takes k / (frames - 1) of it */
  double noise_sigma;     /* Gaussian sensor noise, grey levels; 0 = none */
  double gain_end;        /* gain ramps from 1 at frame 0 to this at the last frame */
  double bias_end;        /* bias ramps from 0 to this, grey levels */
  int supersample;        /* samples per pixel side, 1..8 */
  uint64_t seed;          /* procedural texture and noise */
  const char* image_path; /* NULL: procedural texture; else an 8-bit grey PNG as the plane */
} drift_sequence_config;

typedef struct drift_sequence drift_sequence;

/* 752x480, 60 frames, no motion (identity), focal 460 px, no noise, gain 1, bias 0,
 * supersample 3, seed 1, procedural texture. */
drift_sequence_config drift_sequence_config_default(void);

/* Builds every H_k and the texture raster over the part of the plane that any frame sees. */
vf_status drift_sequence_create(const drift_sequence_config* config, drift_sequence** out);
void drift_sequence_destroy(drift_sequence* seq);

/* H_k, row-major: frame-0 pixel -> frame-k pixel. */
void drift_sequence_homography(const drift_sequence* seq, int k, double H[9]);

/* Renders frame k into `out` (a host U8 image of the configured size, caller's memory). */
vf_status drift_sequence_render(const drift_sequence* seq, int k, vf_image* out);

/* 3x3 helpers (row-major): out = a b; out = a^-1 (0 when singular); (x, y) through H. */
void drift_h_mul(const double a[9], const double b[9], double out[9]);
int drift_h_inverse(const double a[9], double out[9]);
void drift_h_apply(const double H[9], double x, double y, double* ox, double* oy);
/* The local affine part of H at (x, y): its scale sqrt|det J| and its in-plane rotation
 * (the rotation of J's polar decomposition), degrees. */
void drift_h_local(const double H[9], double x, double y, double* scale, double* rotation_deg);

#endif
