// SPDX-License-Identifier: BSD-3-Clause
/* Cyclops2 on the CPU backend: MD, RMA and MNS against brute-force searches written from their
 * definitions, known disparities (random dots, an intensity offset that only MNS cancels, sparse
 * kernels, disparity steps, a slanted plane), the median filter, and accuracy on Cones. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo_local_util.h"
#include "vf_test.h"

static vf_context* ctx;

static vf_stereo_local_config cyclops_config(int w, int h, int nd, vf_cyclops_weight weight) {
  vf_stereo_local_config c = vf_stereo_local_config_default();
  c.method = VF_STEREO_LOCAL_CYCLOPS2;
  c.width = w;
  c.height = h;
  c.disparities = nd;
  c.cyclops.weight = weight;
  c.median = 0;
  return c;
}

static int pix(const uint8_t* img, const test_pair* p, int x, int y) {
  y = y < 0 ? 0 : y >= p->h ? p->h - 1 : y;
  return img[(size_t)y * p->w + x];
}

/* The weight function of candidate d at (x, y) from its definition, in double (mean values);
 * < 0 when the candidate does not exist. */
static double cost_ref(const test_pair* p, const vf_cyclops_config* c, int x, int y, int d) {
  if (c->weight == VF_CYCLOPS_MD) {
    return x - d >= 0 ? abs(pix(p->left, p, x, y) - pix(p->right, p, x - d, y)) : -1.0;
  }
  if (c->weight == VF_CYCLOPS_RMA) {
    if (x - d < 0) return -1.0;
    int n = 0;
    while (n < c->rma_max_log2 && x - (2 << n) - d > 0) ++n;
    double sum = 0.0;
    for (int i = 0; i < (1 << n); ++i) {
      sum += abs(pix(p->left, p, x - i, y) - pix(p->right, p, x - d - i, y));
    }
    return sum / (1 << n);
  }
  const int hx = c->mns_width / 2, hy = c->mns_height / 2, ks = c->kernel_step;
  if (x - hx - d < 0 || x + hx >= p->w) return -1.0;
  double ml = 0.0, mr = 0.0, n = 0.0, sum = 0.0;
  for (int dy = -hy; dy <= hy; dy += ks) {
    for (int dx = -hx; dx <= hx; dx += ks) {
      ml += pix(p->left, p, x + dx, y + dy);
      mr += pix(p->right, p, x + dx - d, y + dy);
      n += 1.0;
    }
  }
  ml /= n;
  mr /= n;
  for (int dy = -hy; dy <= hy; dy += ks) {
    for (int dx = -hx; dx <= hx; dx += ks) {
      sum += fabs(pix(p->left, p, x + dx, y + dy) - pix(p->right, p, x + dx - d, y + dy) - ml + mr);
    }
  }
  return sum / n;
}

/* Every pixel's result is a candidate of minimal cost, the first such (or INVALID when none). */
static void check_definition(const vf_stereo_local_config* c, const test_pair* p,
                             const char* what) {
  uint16_t* disp = malloc((size_t)p->w * p->h * 2);
  CHECK_OK(test_run(ctx, c, p, 0, disp));
  int bad = 0;
  for (int y = 0; y < p->h; ++y) {
    for (int x = 0; x < p->w; ++x) {
      double best = -1.0;
      int arg = VF_STEREO_LOCAL_INVALID;
      for (int d = 0; d < c->disparities; d += c->cyclops.disparity_step) {
        double v = cost_ref(p, &c->cyclops, x, y, d);
        /* Means are compared with a margin far below one grey level over 2^8 pixels. */
        if (v >= 0.0 && (best < 0.0 || v < best - 1e-9)) {
          best = v;
          arg = d;
        }
      }
      bad += disp[(size_t)y * p->w + x] != arg;
    }
  }
  if (bad) fprintf(stderr, "%s: %d pixels differ from the definition\n", what, bad);
  CHECK(bad == 0);
  free(disp);
}

static double share_exact(const test_pair* p, const uint16_t* disp, int x0, int x1, int d) {
  long n = 0, good = 0;
  for (int y = 0; y < p->h; ++y) {
    for (int x = x0; x < x1; ++x, ++n) good += disp[(size_t)y * p->w + x] == d;
  }
  return n ? (double)good / n : 0.0;
}

/* Dots at disparity 9 with the right image 25 grey levels brighter: MNS finds 9 wherever its
 * block has a match, with dense or sparse kernels (the means cancel the offset). */
static void check_offset(void) {
  test_pair p;
  CHECK(test_pair_plane(&p, 120, 40, 9.0f, 0.0f, 0.0f, 1.0f, 0.0f, 31u));
  /* The same integer map on both images, then the offset: right(x) = left(x + 9) + 25 exactly. */
  for (int i = 0; i < p.w * p.h; ++i) {
    p.left[i] = (uint8_t)(p.left[i] * 3 / 4);
    p.right[i] = (uint8_t)(p.right[i] * 3 / 4 + 25);
  }
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  vf_stereo_local_config c = cyclops_config(p.w, p.h, 32, VF_CYCLOPS_MNS);
  /* Odd kernel steps: the dots are 2 pixels wide, an even step would see a shifted copy too. */
  static const int blocks[][3] = {{5, 5, 1}, {7, 7, 3}, {13, 1, 3}};
  for (int i = 0; i < 3; ++i) {
    c.cyclops.mns_width = blocks[i][0];
    c.cyclops.mns_height = blocks[i][1];
    c.cyclops.kernel_step = blocks[i][2];
    CHECK_OK(test_run(ctx, &c, &p, 0, disp));
    double share = share_exact(&p, disp, 9 + blocks[i][0] / 2, p.w - blocks[i][0] / 2, 9);
    printf("offset +25: MNS %dx%d step %d finds disparity 9 at %.2f%% of the pixels\n",
           blocks[i][0], blocks[i][1], blocks[i][2], 100 * share);
    CHECK(share == 1.0);
  }
  /* Candidates 0, 4, 8, ...: 8 sees half of every 2-pixel dot, most often the best left. */
  c.cyclops.mns_width = c.cyclops.mns_height = 5;
  c.cyclops.kernel_step = 1;
  c.cyclops.disparity_step = 4;
  CHECK_OK(test_run(ctx, &c, &p, 0, disp));
  double at8 = share_exact(&p, disp, 14, p.w - 2, 8);
  printf("disparity step 4: %.2f%% at 8\n", 100 * at8);
  CHECK(at8 >= 0.9);
  free(disp);
  test_pair_free(&p);
}

/* Without an offset RMA finds the disparity once its run of pixels has grown. */
static void check_rma_dots(void) {
  test_pair p;
  CHECK(test_pair_plane(&p, 150, 30, 6.0f, 0.0f, 0.0f, 1.0f, 0.0f, 8u));
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  vf_stereo_local_config c = cyclops_config(p.w, p.h, 40, VF_CYCLOPS_RMA);
  c.cyclops.rma_max_log2 = 4;
  CHECK_OK(test_run(ctx, &c, &p, 0, disp));
  /* From x = 6 + 40 on, every candidate averages 16 pixels. */
  double share = share_exact(&p, disp, 46, p.w, 6);
  printf("RMA (16 pixels) on dots at disparity 6: %.2f%%\n", 100 * share);
  CHECK(share == 1.0);
  free(disp);
  test_pair_free(&p);
}

/* The median stage equals a 3x3 median of the unfiltered map. */
static void check_median(void) {
  test_pair p;
  CHECK(test_pair_plane(&p, 64, 48, 4.0f, 0.06f, 0.0f, 1.0f, 0.0f, 99u));
  const size_t n = (size_t)p.w * p.h;
  uint16_t* raw = malloc(n * 2);
  uint16_t* med = malloc(n * 2);
  vf_stereo_local_config c = cyclops_config(p.w, p.h, 16, VF_CYCLOPS_MD);
  CHECK_OK(test_run(ctx, &c, &p, 0, raw));
  c.median = 1;
  CHECK_OK(test_run(ctx, &c, &p, 0, med));
  int bad = 0;
  for (int y = 0; y < p.h; ++y) {
    for (int x = 0; x < p.w; ++x) {
      int below = 0, above = 0;
      uint16_t m = med[(size_t)y * p.w + x];
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          int yy = y + dy < 0 ? 0 : y + dy >= p.h ? p.h - 1 : y + dy;
          int xx = x + dx < 0 ? 0 : x + dx >= p.w ? p.w - 1 : x + dx;
          uint16_t v = raw[(size_t)yy * p.w + xx];
          below += v < m;
          above += v > m;
        }
      }
      bad += below > 4 || above > 4; /* m is the median iff at most 4 lie on each side */
    }
  }
  CHECK(bad == 0);
  free(raw);
  free(med);
  test_pair_free(&p);
}

static void check_plane_and_cones(void) {
  test_pair p;
  CHECK(test_pair_plane(&p, 160, 100, 5.0f, 0.04f, 0.05f, 1.0f, 0.0f, 4u));
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  vf_stereo_local_config c = cyclops_config(p.w, p.h, 32, VF_CYCLOPS_MNS);
  c.median = 1;
  CHECK_OK(test_run(ctx, &c, &p, 0, disp));
  long n = 0, good = 0;
  for (int y = 2; y < p.h - 2; ++y) {
    for (int x = 24; x < p.w - 2; ++x, ++n) {
      good += fabs(disp[(size_t)y * p.w + x] - p.truth[(size_t)y * p.w + x]) <= 1.0;
    }
  }
  printf("slanted plane, MNS 5x5 + median: %.2f%% within 1 px\n", 100.0 * good / n);
  CHECK(good >= 0.97 * n);
  free(disp);
  test_pair_free(&p);

  if (!test_pair_cones(&p)) {
    printf("middlebury/cones absent: accuracy skipped\n");
    return;
  }
  disp = malloc((size_t)p.w * p.h * 2);
  static const struct {
    vf_cyclops_weight weight;
    int median;
    double max_bad2;
  } runs[] = {{VF_CYCLOPS_MD, 1, 0.72},
              {VF_CYCLOPS_RMA, 1, 0.23},
              {VF_CYCLOPS_MNS, 0, 0.12},
              {VF_CYCLOPS_MNS, 1, 0.08}};
  static const char* names[] = {"MD", "RMA", "MNS"};
  for (int i = 0; i < 4; ++i) {
    c = cyclops_config(p.w, p.h, 64, runs[i].weight);
    c.median = runs[i].median;
    CHECK_OK(test_run(ctx, &c, &p, 0, disp));
    char what[80];
    snprintf(what, sizeof what, "Cones Cyclops2 %s%s", names[runs[i].weight],
             runs[i].median ? " + median" : "");
    test_score s = test_score_report(&p, disp, what);
    CHECK(s.bad[2] <= runs[i].max_bad2);
  }
  free(disp);
  test_pair_free(&p);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  test_pair p;
  CHECK(test_pair_plane(&p, 70, 21, 7.0f, 0.03f, 0.05f, 1.1f, -9.0f, 3u));
  vf_stereo_local_config c = cyclops_config(p.w, p.h, 20, VF_CYCLOPS_MD);
  check_definition(&c, &p, "MD");
  c.cyclops.disparity_step = 3;
  check_definition(&c, &p, "MD step 3");
  c = cyclops_config(p.w, p.h, 20, VF_CYCLOPS_RMA);
  for (c.cyclops.rma_max_log2 = 0; c.cyclops.rma_max_log2 <= 6; c.cyclops.rma_max_log2 += 3) {
    check_definition(&c, &p, "RMA");
  }
  c = cyclops_config(p.w, p.h, 20, VF_CYCLOPS_MNS);
  check_definition(&c, &p, "MNS 5x5");
  c.cyclops.mns_width = 7;
  c.cyclops.mns_height = 3;
  c.cyclops.kernel_step = 2;
  check_definition(&c, &p, "MNS 7x3 step 2");
  test_pair_free(&p);
  check_offset();
  check_rma_dots();
  check_median();
  check_plane_and_cones();
  vf_context_destroy(ctx);
  VF_TEST_END("test_stereo_local_cyclops");
}
