/* CPU disparity selection from the summed costs S: winner takes all (smallest index on ties),
 * uniqueness against the best cost outside +-1 of the winner, right-image disparities
 * argmin_k S(xr + min + k, k) for the left-right check, parabola sub-pixel (src/vf_stereo_rules.h),
 * and the 3x3 median. Rows run in parallel. */
#include "vf_parallel.h"
#include "vf_stereo_cpu.h"
#include "viofront/vf_stereo.h"

typedef struct vf_select_job {
  const vf_sgm_params* p;
  const uint16_t* sum;
  int16_t* right_k;
  uint16_t* out;
} vf_select_job;

static void vf_right_rows(int begin, int end, void* arg) {
  const vf_select_job* j = arg;
  const vf_sgm_params* p = j->p;
  int w = p->width, D = p->disparities;
  for (int y = begin; y < end; ++y) {
    for (int xr = 0; xr < w; ++xr) {
      uint32_t best = UINT32_MAX;
      for (int k = 0; k < D; ++k) {
        int x = xr + p->min_disparity + k;
        if (x >= w) break;
        uint32_t v = vf_sgm_pack(j->sum[((size_t)y * w + x) * D + k], (uint32_t)k);
        if (v < best) best = v;
      }
      j->right_k[(size_t)y * w + xr] = best == UINT32_MAX ? -1 : (int16_t)(best & 0xFF);
    }
  }
}

/* The output value of left pixel (x, y) before the median. */
static uint16_t vf_select_pixel(const vf_select_job* j, int x, int y) {
  const vf_sgm_params* p = j->p;
  int w = p->width, D = p->disparities;
  if (x < p->min_disparity) return VF_STEREO_INVALID;
  const uint16_t* s = j->sum + ((size_t)y * w + x) * D;
  int k_best = 0;
  for (int k = 1; k < D; ++k) {
    if (s[k] < s[k_best]) k_best = k;
  }
  int second = 1 << 30;
  for (int k = 0; k < D; ++k) {
    if ((k < k_best - 1 || k > k_best + 1) && s[k] < second) second = s[k];
  }
  if ((long)s[k_best] * VF_UNIQUENESS_ONE > (long)second * p->uniqueness_q) {
    return VF_STEREO_INVALID;
  }
  if (p->lr_check) {
    int xr = x - p->min_disparity - k_best;
    int kr = xr >= 0 ? j->right_k[(size_t)y * w + xr] : -1;
    int diff = kr > k_best ? kr - k_best : k_best - kr;
    if (kr < 0 || diff > p->lr_max_diff) return VF_STEREO_INVALID;
  }
  int d = p->min_disparity + k_best;
  if (!p->subpixel) return (uint16_t)d;
  int off = 0;
  if (k_best > 0 && k_best < D - 1)
    off = vf_sgm_subpixel16(s[k_best - 1], s[k_best], s[k_best + 1]);
  return (uint16_t)(d * 16 + off);
}

static void vf_left_rows(int begin, int end, void* arg) {
  const vf_select_job* j = arg;
  for (int y = begin; y < end; ++y) {
    for (int x = 0; x < j->p->width; ++x)
      j->out[(size_t)y * j->p->width + x] = vf_select_pixel(j, x, y);
  }
}

void vf_cpu_sgm_select(const vf_sgm_params* p, const uint16_t* sum, int16_t* right_k, uint16_t* out,
                       int threads) {
  vf_select_job job = {p, sum, right_k, out};
  int useful = (int)((size_t)p->width * p->height * p->disparities / 262144);
  if (useful > threads) useful = threads;
  if (p->lr_check) vf_parallel_for(p->height, useful, vf_right_rows, &job);
  vf_parallel_for(p->height, useful, vf_left_rows, &job);
}

typedef struct vf_median_job {
  const uint16_t* in;
  int w, h;
  uint16_t* out;
  size_t out_stride;
} vf_median_job;

static void vf_median_rows(int begin, int end, void* arg) {
  const vf_median_job* j = arg;
  for (int y = begin; y < end; ++y) {
    uint16_t* row = (uint16_t*)((uint8_t*)j->out + (size_t)y * j->out_stride);
    for (int x = 0; x < j->w; ++x) {
      uint16_t v[9];
      int n = 0;
      for (int dy = -1; dy <= 1; ++dy) {
        int yy = y + dy < 0 ? 0 : y + dy >= j->h ? j->h - 1 : y + dy;
        for (int dx = -1; dx <= 1; ++dx) {
          int xx = x + dx < 0 ? 0 : x + dx >= j->w ? j->w - 1 : x + dx;
          v[n++] = j->in[(size_t)yy * j->w + xx];
        }
      }
      for (int a = 1; a < 9; ++a) {
        uint16_t t = v[a];
        int b = a;
        for (; b > 0 && v[b - 1] > t; --b) v[b] = v[b - 1];
        v[b] = t;
      }
      row[x] = v[4];
    }
  }
}

void vf_cpu_median3(const uint16_t* in, int w, int h, uint16_t* out, size_t out_stride,
                    int threads) {
  vf_median_job job = {in, w, h, out, out_stride};
  int useful = w * h / 65536;
  vf_parallel_for(h, useful < threads ? useful : threads, vf_median_rows, &job);
}
