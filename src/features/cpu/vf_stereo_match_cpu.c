// SPDX-License-Identifier: BSD-3-Clause
/* The sparse stereo match of points of a rectified pair on the CPU (the reference of
 * cuda/features/vf_stereo_match.cu): per point the whole-pixel search and its checks, then the
 * sub-pixel matching. */
#include "features/kernels/vf_stereo_match_cpu.h"

#include "features/kernels/vf_sample_cpu.h"

/* The whole-pixel searches, correlations and texture tests in vector lanes (the rules'
 * vf_match_run, vf_match_zncc and vf_match_textured: the same results). */
#define VF_MATCH_RUN(f, fs, m, ms, width, xf, y, sign, lo, hi, w, lane) \
  vf_cpu_match_run(f, fs, m, ms, width, xf, y, sign, lo, hi, w)
#define VF_MATCH_ZNCC(a, sa, xa, b, sb, xb, y, w, lane) \
  vf_cpu_match_zncc(a, sa, xa, b, sb, xb, y, w)
#define VF_MATCH_TEXTURED(img, stride, x, y, r, lane) vf_cpu_match_textured(img, stride, x, y, r)
#define VF_MATCH_CELLS(left, ls, right, rs, width, xi, yi, d, cr, cell, valid, lane) \
  vf_cpu_match_cells(left, ls, right, rs, width, xi, yi, d, cr, cell, valid)
#include "features/kernels/vf_stereo_match_point.h"

typedef struct vf_match_job {
  const uint8_t *left, *right;
  size_t left_stride, right_stride;
  int width, height;
  const float *xy, *prior;
  const vf_stereo_match_config* c;
  vf_stereo_match* out;
} vf_match_job;

static void vf_match_item(int i, void* arg) {
  const vf_match_job* j = arg;
  const float x = j->xy[2 * i], y = j->xy[2 * i + 1];
  const float prior = j->prior != NULL ? j->prior[i] : NAN;
  float start;
  vf_stereo_match* o = &j->out[i];
  vf_match_point_whole(j->left, j->left_stride, j->right, j->right_stride, j->width, j->height, x,
                       y, prior, j->c, o, &start, 0);
  if (o->result != VF_STEREO_MATCH_OK) return;
  const float d = vf_cpu_disparity_refine_point(j->left, j->left_stride, j->right, j->right_stride,
                                                j->width, j->height, x, y, start, &j->c->refine);
  vf_match_point_finish(d, o);
}

void vf_cpu_match_stereo(const uint8_t* left, size_t left_stride, const uint8_t* right,
                         size_t right_stride, int width, int height, const float* xy,
                         const float* prior, int count, const vf_stereo_match_config* c,
                         vf_stereo_match* out, vf_pool* pool) {
  const int threads = vf_pool_threads(pool);
  vf_match_job job = {left, right, left_stride, right_stride, width, height, xy, prior, c, out};
  /* A point costs some 10-40 us (the search and the refinement): 16 points a thread at least.
   * Taken in blocks of 4 from a shared counter: the points that search the whole range (new
   * tracks, failed priors) cost several times the others and come in runs (births are added
   * last), which equal shares would leave to one thread. */
  const int useful = count / 16;
  vf_parallel_items(pool, count, useful < threads ? useful : threads, 4, vf_match_item, &job);
}
