// SPDX-License-Identifier: BSD-3-Clause
/* The constructed homography sequence (see drift_sequence.h). The plane's texture lives in a
 * float raster at DRIFT_TEXELS texels per frame-0 pixel covering every frame's view: either a
 * procedural multi-scale texture (three octaves of value noise under soft-edged rotated
 * rectangles and discs, so FAST finds corners and nothing is sharper than about a pixel) or a
 * photograph resampled with Lanczos-3 (mirrored past its edges). Rendering averages bilinear
 * look-ups of that raster over each pixel's area, mapped through H_k^-1. */
#include "drift_sequence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRIFT_TEXELS 2        /* raster texels per frame-0 pixel */
#define DRIFT_MAX_TEXELS 80e6 /* a raster larger than this means a degenerate motion */
#define DRIFT_PI 3.14159265358979323846

struct drift_sequence {
  drift_sequence_config cfg;
  double* H;    /* 9 per frame */
  double* Hinv; /* 9 per frame */
  float* tex;   /* raster, tw x th */
  int tw, th;
  double x0, y0; /* frame-0 position of texel (0, 0) */
};

drift_sequence_config drift_sequence_config_default(void) {
  drift_sequence_config c;
  memset(&c, 0, sizeof c);
  c.width = 752;
  c.height = 480;
  c.frames = 60;
  c.motion.zoom = 1.0;
  c.motion.focal_px = 460.0;
  c.gain_end = 1.0;
  c.supersample = 3;
  c.seed = 1;
  return c;
}

void drift_h_mul(const double a[9], const double b[9], double out[9]) {
  double r[9];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    }
  }
  memcpy(out, r, sizeof r);
}

int drift_h_inverse(const double a[9], double out[9]) {
  const double c0 = a[4] * a[8] - a[5] * a[7], c1 = a[5] * a[6] - a[3] * a[8],
               c2 = a[3] * a[7] - a[4] * a[6];
  const double det = a[0] * c0 + a[1] * c1 + a[2] * c2;
  if (det == 0.0 || !isfinite(det)) return 0;
  const double r[9] = {c0, a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                       c1, a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                       c2, a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]};
  for (int i = 0; i < 9; ++i) out[i] = r[i] / det;
  return 1;
}

void drift_h_apply(const double H[9], double x, double y, double* ox, double* oy) {
  const double w = H[6] * x + H[7] * y + H[8];
  *ox = (H[0] * x + H[1] * y + H[2]) / w;
  *oy = (H[3] * x + H[4] * y + H[5]) / w;
}

void drift_h_local(const double H[9], double x, double y, double* scale, double* rotation_deg) {
  const double w = H[6] * x + H[7] * y + H[8];
  double ux, uy;
  drift_h_apply(H, x, y, &ux, &uy);
  /* Jacobian of the projective map at (x, y). */
  const double j00 = (H[0] - H[6] * ux) / w, j01 = (H[1] - H[7] * ux) / w;
  const double j10 = (H[3] - H[6] * uy) / w, j11 = (H[4] - H[7] * uy) / w;
  *scale = sqrt(fabs(j00 * j11 - j01 * j10));
  *rotation_deg = atan2(j10 - j01, j00 + j11) * 180.0 / DRIFT_PI;
}

/* H_k for progress t = k / (frames - 1). */
static void drift_build_h(const drift_sequence_config* c, int k, double H[9]) {
  const double t = (double)k / (c->frames - 1);
  const double cx = 0.5 * (c->width - 1), cy = 0.5 * (c->height - 1), f = c->motion.focal_px;
  const double phi = c->motion.tilt_deg * t * DRIFT_PI / 180.0;
  /* A plane through the image centre's ray turned by phi about the x axis through its centre
   * point X_c: X' = R X + (I - R) X_c gives K [1 0 0; 0 cos 0; 0 sin 1] K^-1 (depth drops out). */
  const double K[9] = {f, 0, cx, 0, f, cy, 0, 0, 1};
  const double Ki[9] = {1 / f, 0, -cx / f, 0, 1 / f, -cy / f, 0, 0, 1};
  const double tilt[9] = {1, 0, 0, 0, cos(phi), 0, 0, sin(phi), 1};
  const double s = pow(c->motion.zoom, t), th = c->motion.rotation_deg * t * DRIFT_PI / 180.0;
  const double a = s * cos(th), b = s * sin(th);
  /* Zoom and rotation about the centre, then the translation. */
  const double tx = c->motion.shift_x * k, ty = c->motion.shift_y * k;
  const double sim[9] = {a, -b, cx - a * cx + b * cy + tx, b, a, cy - b * cx - a * cy + ty, 0,
                         0, 1};
  double m[9];
  drift_h_mul(K, tilt, m);
  drift_h_mul(m, Ki, m);
  drift_h_mul(sim, m, H);
  for (int i = 0; i < 9; ++i) H[i] /= H[8];
}

static uint64_t drift_splitmix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double drift_uniform(uint64_t* s) {
  return (drift_splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

static double drift_gauss(uint64_t* s) {
  const double u = drift_uniform(s), v = drift_uniform(s);
  return sqrt(-2.0 * log(u + 1e-300)) * cos(2.0 * DRIFT_PI * v);
}

/* Value noise at (u, v) in lattice units: smoothstep-interpolated hashed lattice values. */
static double drift_value_noise(double u, double v, uint64_t seed) {
  const double fu = floor(u), fv = floor(v);
  double tx = u - fu, ty = v - fv;
  tx = tx * tx * (3 - 2 * tx);
  ty = ty * ty * (3 - 2 * ty);
  double c[4];
  for (int i = 0; i < 4; ++i) {
    uint64_t h = seed ^ ((uint64_t)(int64_t)(fu + (i & 1)) * 0x8da6b343ull) ^
                 ((uint64_t)(int64_t)(fv + (i >> 1)) * 0xd8163841ull << 20);
    c[i] = drift_uniform(&h);
  }
  const double top = c[0] + tx * (c[1] - c[0]), bot = c[2] + tx * (c[3] - c[2]);
  return top + ty * (bot - top);
}

/* Noise octaves of 40, 13 and 5 px, then soft-edged shapes painted over them. */
static void drift_fill_procedural(drift_sequence* s) {
  const uint64_t seed = s->cfg.seed * 0x2545f4914f6cdd1dull;
  for (int j = 0; j < s->th; ++j) {
    const double v = s->y0 + (double)j / DRIFT_TEXELS;
    for (int i = 0; i < s->tw; ++i) {
      const double u = s->x0 + (double)i / DRIFT_TEXELS;
      const double n = 0.5 * drift_value_noise(u / 40.0, v / 40.0, seed) +
                       0.3 * drift_value_noise(u / 13.0, v / 13.0, seed + 1) +
                       0.2 * drift_value_noise(u / 5.0, v / 5.0, seed + 2);
      s->tex[(size_t)j * s->tw + i] = (float)(50.0 + 150.0 * n);
    }
  }
  uint64_t rng = seed + 3;
  const double area = (double)s->tw * s->th / (DRIFT_TEXELS * DRIFT_TEXELS);
  const int count = (int)(area / 600.0) + 1;
  const double edge = 1.5; /* width of the edge ramp, frame-0 px */
  for (int n = 0; n < count; ++n) {
    const int disc = drift_uniform(&rng) < 0.3;
    const double hw = 3.0 + 22.0 * drift_uniform(&rng), hh = 3.0 + 22.0 * drift_uniform(&rng);
    const double cu = s->x0 + drift_uniform(&rng) * s->tw / DRIFT_TEXELS;
    const double cv = s->y0 + drift_uniform(&rng) * s->th / DRIFT_TEXELS;
    const double ang = drift_uniform(&rng) * DRIFT_PI, ca = cos(ang), sa = sin(ang);
    const float grey = (float)(20.0 + 215.0 * drift_uniform(&rng));
    const double reach = (hw > hh ? hw : hh) * 1.5 + edge;
    const int i0 = (int)floor((cu - reach - s->x0) * DRIFT_TEXELS);
    const int i1 = (int)ceil((cu + reach - s->x0) * DRIFT_TEXELS);
    const int j0 = (int)floor((cv - reach - s->y0) * DRIFT_TEXELS);
    const int j1 = (int)ceil((cv + reach - s->y0) * DRIFT_TEXELS);
    for (int j = j0 < 0 ? 0 : j0; j <= j1 && j < s->th; ++j) {
      for (int i = i0 < 0 ? 0 : i0; i <= i1 && i < s->tw; ++i) {
        const double du = s->x0 + (double)i / DRIFT_TEXELS - cu;
        const double dv = s->y0 + (double)j / DRIFT_TEXELS - cv;
        const double a = ca * du + sa * dv, b = -sa * du + ca * dv;
        const double d = disc ? sqrt(du * du + dv * dv) - hw
                              : (fabs(a) - hw > fabs(b) - hh ? fabs(a) - hw : fabs(b) - hh);
        double cover = 0.5 - d / edge;
        if (cover <= 0) continue;
        if (cover > 1) cover = 1;
        cover = cover * cover * (3 - 2 * cover);
        float* t = &s->tex[(size_t)j * s->tw + i];
        *t = (float)(*t * (1 - cover) + grey * cover);
      }
    }
  }
}

/* Lanczos-3 taps (normalised) for a point at fraction f past tap 0 of taps -2..3. */
static void drift_lanczos(double f, double w[6]) {
  double sum = 0;
  for (int i = 0; i < 6; ++i) {
    const double x = f - (i - 2), px = DRIFT_PI * x;
    w[i] = fabs(x) < 1e-12 ? 1.0 : 3.0 * sin(px) * sin(px / 3.0) / (px * px);
    sum += w[i];
  }
  for (int i = 0; i < 6; ++i) w[i] /= sum;
}

static int drift_mirror(int i, int n) {
  const int p = 2 * n;
  i %= p;
  if (i < 0) i += p;
  return i < n ? i : p - 1 - i;
}

/* The photograph as the plane: frame-0 pixel (u, v) is photo pixel (u, v). */
static vf_status drift_fill_photo(drift_sequence* s, const vf_image* im) {
  float* rows = malloc((size_t)s->tw * im->height * sizeof *rows);
  if (rows == NULL) return VF_ERR_NOMEM;
  const uint8_t* px = im->data;
  double w[6];
  for (int i = 0; i < s->tw; ++i) {
    const double u = s->x0 + (double)i / DRIFT_TEXELS, fu = floor(u);
    drift_lanczos(u - fu, w);
    for (int y = 0; y < im->height; ++y) {
      double acc = 0;
      for (int t = 0; t < 6; ++t) {
        acc += w[t] * px[(size_t)y * im->stride_bytes + drift_mirror((int)fu + t - 2, im->width)];
      }
      rows[(size_t)y * s->tw + i] = (float)acc;
    }
  }
  for (int j = 0; j < s->th; ++j) {
    const double v = s->y0 + (double)j / DRIFT_TEXELS, fv = floor(v);
    drift_lanczos(v - fv, w);
    for (int i = 0; i < s->tw; ++i) {
      double acc = 0;
      for (int t = 0; t < 6; ++t) {
        acc += w[t] * rows[(size_t)drift_mirror((int)fv + t - 2, im->height) * s->tw + i];
      }
      s->tex[(size_t)j * s->tw + i] = (float)acc;
    }
  }
  free(rows);
  return VF_OK;
}

static vf_status drift_check(const drift_sequence_config* c) {
  if (c->width < 16 || c->height < 16 || c->frames < 2 || c->supersample < 1 ||
      c->supersample > 8 || !(c->motion.zoom > 0) || !(c->motion.focal_px > 0) ||
      !(fabs(c->motion.tilt_deg) < 60) || !(c->noise_sigma >= 0) || !isfinite(c->gain_end) ||
      !isfinite(c->bias_end) || !isfinite(c->motion.rotation_deg) || !isfinite(c->motion.shift_x) ||
      !isfinite(c->motion.shift_y)) {
    fprintf(stderr,
            "drift_sequence: bad configuration (size >= 16, frames >= 2, supersample "
            "1..8, zoom > 0, focal > 0, |tilt| < 60 deg, noise >= 0)\n");
    return VF_ERR_INVALID_ARG;
  }
  return VF_OK;
}

/* The raster covers H_k^-1 of every frame's corners, with room for the look-ups' reach. */
static vf_status drift_bounds(drift_sequence* s) {
  const drift_sequence_config* c = &s->cfg;
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (int k = 0; k < c->frames; ++k) {
    for (int corner = 0; corner < 4; ++corner) {
      const double x = corner & 1 ? c->width : -1.0, y = corner & 2 ? c->height : -1.0;
      const double* Hi = &s->Hinv[9 * k];
      if (Hi[6] * x + Hi[7] * y + Hi[8] <= 0) return VF_ERR_INVALID_ARG; /* beyond the horizon */
      double u, v;
      drift_h_apply(Hi, x, y, &u, &v);
      lo[0] = fmin(lo[0], u), lo[1] = fmin(lo[1], v);
      hi[0] = fmax(hi[0], u), hi[1] = fmax(hi[1], v);
    }
  }
  s->x0 = floor(lo[0]) - 4, s->y0 = floor(lo[1]) - 4;
  const double tw = (ceil(hi[0]) + 4 - s->x0) * DRIFT_TEXELS + 1;
  const double th = (ceil(hi[1]) + 4 - s->y0) * DRIFT_TEXELS + 1;
  if (tw * th > DRIFT_MAX_TEXELS) return VF_ERR_INVALID_ARG;
  s->tw = (int)tw, s->th = (int)th;
  return VF_OK;
}

vf_status drift_sequence_create(const drift_sequence_config* config, drift_sequence** out) {
  *out = NULL;
  vf_status st = drift_check(config);
  if (st != VF_OK) return st;
  drift_sequence* s = calloc(1, sizeof *s);
  if (s == NULL) return VF_ERR_NOMEM;
  s->cfg = *config;
  s->cfg.image_path = NULL;
  s->H = malloc(sizeof(double) * 9 * config->frames);
  s->Hinv = malloc(sizeof(double) * 9 * config->frames);
  if (s->H == NULL || s->Hinv == NULL) st = VF_ERR_NOMEM;
  for (int k = 0; st == VF_OK && k < config->frames; ++k) {
    drift_build_h(config, k, &s->H[9 * k]);
    if (!drift_h_inverse(&s->H[9 * k], &s->Hinv[9 * k])) st = VF_ERR_INVALID_ARG;
  }
  if (st == VF_OK && (st = drift_bounds(s)) != VF_OK) {
    fprintf(stderr, "drift_sequence: the motion shows the plane's horizon or too much of it\n");
  }
  if (st == VF_OK) {
    s->tex = malloc((size_t)s->tw * s->th * sizeof *s->tex);
    if (s->tex == NULL) st = VF_ERR_NOMEM;
  }
  if (st == VF_OK && config->image_path != NULL) {
    vf_image photo = {0};
    st = vf_png_read_gray8(config->image_path, &photo);
    if (st != VF_OK) {
      fprintf(stderr, "drift_sequence: %s: %s\n", config->image_path, vf_last_error_message());
    } else {
      st = drift_fill_photo(s, &photo);
    }
    vf_image_free(&photo);
  } else if (st == VF_OK) {
    drift_fill_procedural(s);
  }
  if (st != VF_OK) {
    drift_sequence_destroy(s);
    return st;
  }
  *out = s;
  return VF_OK;
}

void drift_sequence_destroy(drift_sequence* seq) {
  if (seq == NULL) return;
  free(seq->H);
  free(seq->Hinv);
  free(seq->tex);
  free(seq);
}

void drift_sequence_homography(const drift_sequence* seq, int k, double H[9]) {
  memcpy(H, &seq->H[9 * k], 9 * sizeof(double));
}

static double drift_bilinear(const drift_sequence* s, double r, double q) {
  r = r < 0 ? 0 : r > s->tw - 1.001 ? s->tw - 1.001 : r;
  q = q < 0 ? 0 : q > s->th - 1.001 ? s->th - 1.001 : q;
  const int i = (int)r, j = (int)q;
  const double fr = r - i, fq = q - j;
  const float* t = &s->tex[(size_t)j * s->tw + i];
  const double top = t[0] + fr * (t[1] - t[0]), bot = t[s->tw] + fr * (t[s->tw + 1] - t[s->tw]);
  return top + fq * (bot - top);
}

vf_status drift_sequence_render(const drift_sequence* seq, int k, vf_image* out) {
  const drift_sequence_config* c = &seq->cfg;
  if (k < 0 || k >= c->frames || out == NULL || out->data == NULL || out->width != c->width ||
      out->height != c->height || out->format != VF_PIXEL_U8 || out->location != VF_MEMORY_HOST) {
    return VF_ERR_INVALID_ARG;
  }
  const double* Hi = &seq->Hinv[9 * k];
  const int n = c->supersample;
  const double t = (double)k / (c->frames - 1);
  const double gain = 1.0 + (c->gain_end - 1.0) * t, bias = c->bias_end * t;
  uint64_t rng = c->seed * 0x9e3779b97f4a7c15ull + (uint64_t)k * 0x632be59bd9b4e019ull;
  for (int y = 0; y < c->height; ++y) {
    uint8_t* row = (uint8_t*)out->data + (size_t)y * out->stride_bytes;
    for (int x = 0; x < c->width; ++x) {
      double acc = 0;
      for (int b = 0; b < n; ++b) {
        const double py = y - 0.5 + (b + 0.5) / n;
        for (int a = 0; a < n; ++a) {
          const double px = x - 0.5 + (a + 0.5) / n;
          double u, v;
          drift_h_apply(Hi, px, py, &u, &v);
          acc += drift_bilinear(seq, (u - seq->x0) * DRIFT_TEXELS, (v - seq->y0) * DRIFT_TEXELS);
        }
      }
      double val = gain * acc / (n * n) + bias;
      if (c->noise_sigma > 0) val += c->noise_sigma * drift_gauss(&rng);
      val = floor(val + 0.5);
      row[x] = (uint8_t)(val < 0 ? 0 : val > 255 ? 255 : val);
    }
  }
  return VF_OK;
}
