/* CPU census transform 9x7, centre-symmetric (31 pairs) or full (62 neighbours); pixels outside
 * the image replicate the nearest edge. Bit order as in cuda/vf_census.cu. */
#include "vf_parallel.h"
#include "vf_stereo_cpu.h"

typedef struct vf_census_job {
  const uint8_t* img;
  size_t stride;
  int w, h, full;
  uint64_t* out;
} vf_census_job;

static int vf_clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static void vf_census_rows(int begin, int end, void* arg) {
  const vf_census_job* j = arg;
  for (int y = begin; y < end; ++y) {
    for (int x = 0; x < j->w; ++x) {
#define PX(dx, dy)                                              \
  j->img[(size_t)vf_clampi(y + (dy), 0, j->h - 1) * j->stride + \
         (size_t)vf_clampi(x + (dx), 0, j->w - 1)]
      uint64_t bits = 0;
      int n = 0;
      if (j->full) {
        /* Bit set where the neighbour is darker than the centre, row-major order. */
        int c = PX(0, 0);
        for (int dy = -VF_CENSUS_RY; dy <= VF_CENSUS_RY; ++dy) {
          for (int dx = -VF_CENSUS_RX; dx <= VF_CENSUS_RX; ++dx) {
            if (dx == 0 && dy == 0) continue;
            bits |= (uint64_t)(PX(dx, dy) < c) << n++;
          }
        }
      } else {
        /* Pairs mirrored about the centre, first half of the window in row-major order. */
        for (int dy = -VF_CENSUS_RY; dy <= 0; ++dy) {
          for (int dx = -VF_CENSUS_RX; dx <= VF_CENSUS_RX; ++dx) {
            if (dy == 0 && dx >= 0) break;
            bits |= (uint64_t)(PX(dx, dy) > PX(-dx, -dy)) << n++;
          }
        }
      }
#undef PX
      j->out[(size_t)y * j->w + x] = bits;
    }
  }
}

void vf_cpu_census(const uint8_t* img, size_t stride, int w, int h, int full, uint64_t* out,
                   int threads) {
  vf_census_job job = {img, stride, w, h, full, out};
  int useful = w * h / 32768;
  vf_parallel_for(h, useful < threads ? useful : threads, vf_census_rows, &job);
}
