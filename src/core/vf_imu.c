// SPDX-License-Identifier: BSD-3-Clause
/* IMU ring buffer and gyroscope integration (quaternion product of per-interval rotations,
 * rate linear between samples: the trapezoid rule on the angular velocity). */
#include <cglm/cglm.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_error.h"
#include "core/vf_fault.h"
#include "viofront/vf_imu.h"

struct vf_imu_buffer {
  vf_error err;
  vf_imu_sample* samples; /* ring of `capacity` */
  int capacity;
  int head; /* index of the oldest sample */
  int size;
  int64_t max_gap_ns;
};

vf_status vf_imu_buffer_create(int capacity, int64_t max_gap_ns, vf_imu_buffer** out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_imu_buffer_create: out is NULL");
  *out = NULL;
  if (capacity < 2 || capacity > 1000000) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_imu_buffer_create: capacity %d is outside 2..1000000", capacity);
  }
  if (max_gap_ns <= 0) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_imu_buffer_create: max_gap_ns must be > 0");
  }
  vf_imu_buffer* b = vf_calloc(1, sizeof *b);
  if (b != NULL) b->samples = vf_calloc((size_t)capacity, sizeof *b->samples);
  if (b == NULL || b->samples == NULL) {
    free(b);
    return vf_fail(NULL, VF_ERR_NOMEM, "vf_imu_buffer_create: %d samples", capacity);
  }
  b->capacity = capacity;
  b->max_gap_ns = max_gap_ns;
  *out = b;
  return VF_OK;
}

void vf_imu_buffer_destroy(vf_imu_buffer* b) {
  if (b == NULL) return;
  free(b->samples);
  free(b);
}

static const vf_imu_sample* vf_imu_at(const vf_imu_buffer* b, int i) {
  return &b->samples[(b->head + i) % b->capacity];
}

vf_status vf_imu_buffer_push(vf_imu_buffer* b, const vf_imu_sample* s) {
  if (b == NULL || s == NULL) {
    return vf_fail(b != NULL ? &b->err : NULL, VF_ERR_INVALID_ARG, "vf_imu_buffer_push: %s is NULL",
                   b == NULL ? "buffer" : "sample");
  }
  for (int i = 0; i < 3; ++i) {
    if (!isfinite(s->gyro[i]) || !isfinite(s->acc[i])) {
      return vf_fail(&b->err, VF_ERR_INVALID_ARG,
                     "vf_imu_buffer_push: sample at %lld ns has a NaN or infinite value",
                     (long long)s->t_ns);
    }
  }
  if (b->size > 0) {
    int64_t last = vf_imu_at(b, b->size - 1)->t_ns;
    if (s->t_ns <= last) {
      return vf_fail(&b->err, VF_ERR_TIMESTAMP,
                     "vf_imu_buffer_push: timestamp %lld ns does not follow %lld ns",
                     (long long)s->t_ns, (long long)last);
    }
  }
  if (b->size == b->capacity) {
    b->head = (b->head + 1) % b->capacity;
    b->size--;
  }
  b->samples[(b->head + b->size) % b->capacity] = *s;
  b->size++;
  return VF_OK;
}

int vf_imu_buffer_size(const vf_imu_buffer* b) { return b != NULL ? b->size : 0; }

void vf_imu_buffer_drop_before(vf_imu_buffer* b, int64_t t_ns) {
  if (b == NULL) return;
  while (b->size >= 2 && vf_imu_at(b, 1)->t_ns <= t_ns) {
    b->head = (b->head + 1) % b->capacity;
    b->size--;
  }
}

/* to - from for to >= from: any two int64 timestamps are less than 2^64 ns apart, so the
 * difference fits uint64 where int64 subtraction could overflow. */
static uint64_t vf_imu_span(int64_t from, int64_t to) { return (uint64_t)to - (uint64_t)from; }

/* Angular velocity at t inside [a, c], linear between the two samples. */
static void vf_imu_rate_at(const vf_imu_sample* a, const vf_imu_sample* c, int64_t t, vec3 w) {
  double u = (double)vf_imu_span(a->t_ns, t) / (double)vf_imu_span(a->t_ns, c->t_ns);
  for (int i = 0; i < 3; ++i) w[i] = (float)(a->gyro[i] + u * (c->gyro[i] - a->gyro[i]));
}

/* dest = p q (Hamilton product, cglm's x, y, z, w order). Written out rather than glm_quat_mul:
 * cglm 0.8's NEON version (Debian 12's, taken on AArch64) loses the unit norm by 6e-6 a step. */
static void vf_quat_mul(const versor p, const versor q, versor dest) {
  const float x = p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1];
  const float y = p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0];
  const float z = p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3];
  const float w = p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2];
  dest[0] = x;
  dest[1] = y;
  dest[2] = z;
  dest[3] = w;
}

vf_status vf_imu_buffer_rotation(const vf_imu_buffer* b, int64_t t0, int64_t t1, double R[9]) {
  if (b == NULL || R == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_imu_buffer_rotation: %s is NULL",
                   b == NULL ? "buffer" : "R");
  }
  vf_error* err = (vf_error*)&b->err; /* the message slot is not part of the logical state */
  if (t1 < t0) {
    return vf_fail(err, VF_ERR_INVALID_ARG, "vf_imu_buffer_rotation: t1 %lld before t0 %lld",
                   (long long)t1, (long long)t0);
  }
  if (b->size < 2 || vf_imu_at(b, 0)->t_ns > t0 || vf_imu_at(b, b->size - 1)->t_ns < t1) {
    return vf_fail(err, VF_ERR_STATE,
                   "vf_imu_buffer_rotation: IMU samples do not cover [%lld, %lld] ns",
                   (long long)t0, (long long)t1);
  }
  versor q;
  glm_quat_identity(q);
  for (int i = 0; i + 1 < b->size; ++i) {
    const vf_imu_sample* a = vf_imu_at(b, i);
    const vf_imu_sample* c = vf_imu_at(b, i + 1);
    if (c->t_ns <= t0 || a->t_ns >= t1) continue;
    if (vf_imu_span(a->t_ns, c->t_ns) > (uint64_t)b->max_gap_ns) {
      return vf_fail(err, VF_ERR_STATE, "vf_imu_buffer_rotation: IMU gap of %llu ns at %lld ns",
                     (unsigned long long)vf_imu_span(a->t_ns, c->t_ns), (long long)a->t_ns);
    }
    int64_t lo = a->t_ns > t0 ? a->t_ns : t0, hi = c->t_ns < t1 ? c->t_ns : t1;
    vec3 w0, w1, w;
    vf_imu_rate_at(a, c, lo, w0);
    vf_imu_rate_at(a, c, hi, w1);
    glm_vec3_add(w0, w1, w);
    glm_vec3_scale(w, 0.5f * (float)((double)vf_imu_span(lo, hi) * 1e-9), w); /* rotation vector */
    float angle = glm_vec3_norm(w);
    if (angle < 1e-12f) continue;
    versor dq;
    glm_quatv(dq, angle, w); /* normalizes the axis */
    vf_quat_mul(q, dq, q);   /* body-frame increments compose on the right */
  }
  glm_quat_normalize(q);
  mat3 m; /* cglm matrices are column-major: m[col][row] */
  glm_quat_mat3(q, m);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) R[3 * r + c] = m[c][r];
  }
  return VF_OK;
}

const char* vf_imu_buffer_last_error(const vf_imu_buffer* b) {
  return b != NULL ? b->err.message : "vf_imu_buffer_last_error: buffer is NULL";
}
