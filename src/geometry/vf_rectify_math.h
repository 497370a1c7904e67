// SPDX-License-Identifier: BSD-3-Clause
/* Small double-precision 3x3 helpers (row-major) for the camera and rectification code. cglm is
 * float-only: its 24-bit mantissa (6e-8 relative) cannot reproduce rectification fixtures to
 * 1e-6 relative on entries of order 1e-3, so this code stays in double. */
#ifndef VF_RECTIFY_MATH_H
#define VF_RECTIFY_MATH_H

#include "viofront/vf_status.h"

/* c = a b */
void vf_m3_mul(const double a[9], const double b[9], double c[9]);
/* c = a b^T */
void vf_m3_mul_bt(const double a[9], const double b[9], double c[9]);
/* c = a^T b */
void vf_m3_mul_at(const double a[9], const double b[9], double c[9]);
/* y = a x (y may not alias x) */
void vf_m3_mulv(const double a[9], const double x[3], double y[3]);
/* y = a^T x (y may not alias x) */
void vf_m3_mulv_t(const double a[9], const double x[3], double y[3]);
double vf_v3_norm(const double v[3]);
/* inv = a^-1; returns 0 when a is singular (|det| below 1e-300 or not finite). */
int vf_m3_inverse(const double a[9], double inv[9]);

/* Rotation vector <-> matrix, as OpenCV's cvRodrigues2 computes them (same branches), so that
 * stereoRectify reproduces OpenCV to the last digits. */
void vf_rodrigues_to_matrix(const double r[3], double R[9]);
void vf_rodrigues_from_matrix(const double R[9], double r[3]);

/* Largest deviation of R^T R from the identity. */
double vf_m3_orthonormality_error(const double R[9]);

/* 1 when all n values are finite. */
int vf_all_finite(const double* v, int n);

/* VF_OK when a row-major 4x4 is a rigid transform (finite, last row 0 0 0 1, rotation
 * orthonormal to 1e-6 with determinant +1); else VF_ERR_INVALID_ARG naming `what`. */
vf_status vf_rigid_check(const double T[16], const char* what);

#endif
