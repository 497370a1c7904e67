// SPDX-License-Identifier: BSD-3-Clause
/* CPU detector: known answers (isolated dots with exact scores, the tie rule across levels, a
 * rectangle's corners), uniform and smooth images give nothing, the occupancy mask removes
 * exactly the masked cells (also on a detector reused over images whose masks change), at most one
 * keypoint per cell inside its cell and border, the result does not depend on the thread count, and
 * on random images every cell's keypoint is the one a pixel-by-pixel walk of the definition picks.
 */
#include "test_detector_util.h"

static vf_context* ctx;

static vf_detector_config small_config(int w, int h, int min_level, int max_level) {
  vf_detector_config c = vf_detector_config_default();
  c.width = w;
  c.height = h;
  c.min_level = min_level;
  c.max_level = max_level;
  return c;
}

/* Single-pixel dots of contrast +-60 on grey 100: every circle pixel differs by 60, so the
 * scores are known exactly; the dot's neighbours are no corners. */
static void test_dots(void) {
  static const int dots[][3] = {{40, 40, 160}, {77, 13, 40}, {100, 70, 160}, {20, 80, 40}};
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, 128, 96, VF_PIXEL_U8, VF_MEMORY_HOST));
  det_fill(&img, 100);
  for (int i = 0; i < 4; ++i) *det_pixel(&img, dots[i][0], dots[i][1]) = (uint8_t)dots[i][2];
  *det_pixel(&img, 5, 50) = 160; /* inside the border: never reported */
  for (int n = 9; n <= 12; ++n) {
    for (int score = 0; score < 3; ++score) {
      vf_detector_config c = small_config(128, 96, 0, 0);
      c.arc_length = n;
      c.score = (vf_fast_score)score;
      det_result r = det_run(ctx, &img, &c, NULL);
      CHECK_OK(r.status);
      CHECK(r.count == 4);
      const float expect[3] = {16.0f * 60, 16.0f * (60 - 10), 59.0f};
      for (int i = 0; i < 4; ++i) {
        int cell = (dots[i][1] / 32) * 4 + dots[i][0] / 32;
        const vf_keypoint* k = det_find_cell(&r, cell);
        CHECK(k != NULL);
        if (k == NULL) continue;
        CHECK(k->x == (float)dots[i][0] && k->y == (float)dots[i][1] && k->level == 0);
        CHECK(k->score == expect[score]);
      }
      det_free(&r);
    }
  }
  vf_image_free(&img);
}

/* A 2x2 dot at even coordinates: four equal maxima on level 0, the same score again as one
 * pixel on level 1. The tie rule picks level 0, then the top-left pixel; level 1 alone maps
 * its pixel (32, 16) back to the block's centre (64.5, 32.5). */
static void test_tie_rule_and_levels(void) {
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, 128, 96, VF_PIXEL_U8, VF_MEMORY_HOST));
  det_fill(&img, 100);
  for (int y = 32; y < 34; ++y) memset(det_pixel(&img, 64, y), 160, 2);
  vf_detector_config c = small_config(128, 96, 0, 1);
  c.score = VF_FAST_SCORE_SAD_CIRCLE;
  det_result r = det_run(ctx, &img, &c, NULL);
  CHECK_OK(r.status);
  CHECK(r.count == 1);
  if (r.count == 1) {
    CHECK(r.kp[0].x == 64.0f && r.kp[0].y == 32.0f && r.kp[0].level == 0);
    CHECK(r.kp[0].score == 960.0f && r.kp[0].cell == 1 * 4 + 2);
  }
  det_free(&r);
  c = small_config(128, 96, 1, 1);
  c.score = VF_FAST_SCORE_SAD_CIRCLE;
  r = det_run(ctx, &img, &c, NULL);
  CHECK(r.count == 1);
  if (r.count == 1) {
    CHECK(r.kp[0].x == 64.5f && r.kp[0].y == 32.5f && r.kp[0].level == 1);
    CHECK(r.kp[0].score == 960.0f);
  }
  det_free(&r);
  vf_image_free(&img);
}

/* A bright rectangle: its four corners, each well inside a cell, are the only keypoints. */
static void test_rectangle(void) {
  static const int corner[4][2] = {{44, 44}, {83, 44}, {44, 75}, {83, 75}};
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, 128, 112, VF_PIXEL_U8, VF_MEMORY_HOST));
  det_fill(&img, 50);
  for (int y = 44; y < 76; ++y) memset(det_pixel(&img, 44, y), 200, 40);
  for (int score = 0; score < 3; ++score) {
    vf_detector_config c = small_config(128, 112, 0, 0);
    c.score = (vf_fast_score)score;
    det_result r = det_run(ctx, &img, &c, NULL);
    CHECK(r.count == 4);
    for (int i = 0; i < 4; ++i) {
      int cell = (corner[i][1] / 32) * 4 + corner[i][0] / 32;
      const vf_keypoint* k = det_find_cell(&r, cell);
      CHECK(k != NULL);
      if (k != NULL) {
        CHECK(fabsf(k->x - (float)corner[i][0]) <= 2.0f);
        CHECK(fabsf(k->y - (float)corner[i][1]) <= 2.0f);
      }
    }
    det_free(&r);
  }
  vf_image_free(&img);
}

static void test_nothing_to_find(void) {
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, 200, 150, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int v = 0; v < 256; v += 85) {
    det_fill(&img, (uint8_t)v);
    vf_detector_config c = small_config(200, 150, 0, 2);
    det_result r = det_run(ctx, &img, &c, NULL);
    CHECK_OK(r.status);
    CHECK(r.count == 0);
    det_free(&r);
  }
  /* A ramp of one grey level per pixel: circle differences stay within 3 < threshold 10. */
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) *det_pixel(&img, x, y) = (uint8_t)((x + y) / 2);
  }
  vf_detector_config c = small_config(200, 150, 0, 2);
  det_result r = det_run(ctx, &img, &c, NULL);
  CHECK(r.count == 0);
  det_free(&r);
  vf_image_free(&img);
}

/* Every keypoint lies in its own cell and inside the border of its level; cells strictly
 * increase (so at most one keypoint per cell). */
static void check_layout(const det_result* r, const vf_detector_config* c, const vf_grid* g) {
  int bad = 0, prev = -1;
  for (int i = 0; i < r->count; ++i) {
    const vf_keypoint* k = &r->kp[i];
    int s = 1 << k->level;
    float u = (k->x + 0.5f) / (float)s - 0.5f, v = (k->y + 0.5f) / (float)s - 0.5f;
    int col = (int)(k->x / (float)c->cell_width), row = (int)(k->y / (float)c->cell_height);
    bad += k->cell <= prev || k->cell != row * g->cols + col || k->score <= 0.0f;
    bad += k->level < c->min_level || k->level > c->max_level;
    bad += u < (float)c->border || u >= (float)((c->width >> k->level) - c->border);
    bad += v < (float)c->border || v >= (float)((c->height >> k->level) - c->border);
    prev = k->cell;
  }
  if (bad) fprintf(stderr, "layout: %d problems in %d keypoints\n", bad, r->count);
  CHECK(bad == 0);
}

static void test_mask_and_layout(void) {
  const int w = 333, h = 250;
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  det_fill_blocks(&img, 5, 7);
  vf_detector_config c = small_config(w, h, 0, 2);
  c.cell_width = 64;
  c.cell_height = 40;
  vf_detector* d = NULL;
  vf_grid g;
  CHECK_OK(vf_detector_create(ctx, &c, &d));
  CHECK_OK(vf_detector_grid(d, &g));
  CHECK(g.cols == 6 && g.rows == 7 && g.cell_width == 64 && g.cell_height == 40);
  vf_detector_destroy(d);
  det_result all = det_run(ctx, &img, &c, NULL);
  CHECK(all.count > g.cols * g.rows / 2);
  check_layout(&all, &c, &g);
  int levels_seen[3] = {0, 0, 0};
  for (int i = 0; i < all.count; ++i) levels_seen[all.kp[i].level]++;
  printf("mask image: %d keypoints (levels 0/1/2: %d/%d/%d)\n", all.count, levels_seen[0],
         levels_seen[1], levels_seen[2]);

  uint8_t mask[42];
  unsigned seed = 9;
  for (int i = 0; i < 42; ++i) mask[i] = (uint8_t)(vf_test_rand(&seed) % 5u < 2u ? 1 + i : 0);
  det_result part = det_run(ctx, &img, &c, mask);
  int wrong = 0;
  for (int cell = 0; cell < 42; ++cell) {
    const vf_keypoint* a = det_find_cell(&all, cell);
    const vf_keypoint* b = det_find_cell(&part, cell);
    if (mask[cell]) {
      wrong += b != NULL;
    } else {
      wrong += (a == NULL) != (b == NULL) || (a != NULL && memcmp(a, b, sizeof *a) != 0);
    }
  }
  CHECK(wrong == 0);
  memset(mask, 1, sizeof mask);
  det_result none = det_run(ctx, &img, &c, mask);
  CHECK(none.count == 0);
  det_free(&none);
  det_free(&part);
  det_free(&all);
  vf_image_free(&img);
}

/* One detector over a sequence of images with changing masks, as the frontend runs it: the CPU
 * computes responses only near empty cells, so pixels elsewhere keep an earlier image's values.
 * Every empty cell's keypoint must still be a fresh detector's on that image alone. */
static void test_mask_sequence(void) {
  /* Small cells (32 x 8: a quarter of the rows border another cell row) and noise images, so
   * that many cells' best pixels sit next to a neighbouring cell. */
  const int w = 333, h = 250;
  vf_detector_config c = small_config(w, h, 0, 2);
  c.cell_width = 32;
  c.cell_height = 8;
  const int cells = ((w + 31) / 32) * ((h + 7) / 8);
  vf_pyramid_config pc = {w, h, c.max_level + 1};
  vf_pyramid* p = NULL;
  vf_detector* d = NULL;
  vf_image img;
  uint8_t* mask = malloc((size_t)cells);
  CHECK(mask != NULL);
  CHECK_OK(vf_image_alloc(&img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p));
  CHECK_OK(vf_detector_create(ctx, &c, &d));
  unsigned seed = 31;
  int wrong = 0, compared = 0;
  for (int frame = 0; frame < 8 && d != NULL && p != NULL && mask != NULL; ++frame) {
    det_fill_random(&img, 40u + (unsigned)frame, 60, 120);
    /* Frame 0 without a mask (every response computed), then about 3 cells in 4 occupied. */
    for (int i = 0; i < cells; ++i) mask[i] = (uint8_t)(vf_test_rand(&seed) % 4u != 0u);
    CHECK_OK(vf_pyramid_build(p, &img));
    CHECK_OK(vf_detector_detect(d, p, frame == 0 ? NULL : mask, VF_MEMORY_HOST));
    const vf_keypoint* kp = NULL;
    int count = 0;
    CHECK_OK(vf_detector_keypoints(d, &kp, &count));
    det_result got = {(vf_keypoint*)kp, count, VF_OK};
    det_result fresh = det_run(ctx, &img, &c, NULL);
    for (int cell = 0; cell < cells; ++cell) {
      if (frame != 0 && mask[cell]) {
        wrong += det_find_cell(&got, cell) != NULL;
        continue;
      }
      const vf_keypoint* a = det_find_cell(&fresh, cell);
      const vf_keypoint* b = det_find_cell(&got, cell);
      wrong += (a == NULL) != (b == NULL) || (a != NULL && memcmp(a, b, sizeof *a) != 0);
      compared += a != NULL;
    }
    det_free(&fresh);
  }
  printf("mask sequence: %d keypoints of empty cells compared, %d wrong\n", compared, wrong);
  CHECK(compared > 300);
  CHECK(wrong == 0);
  free(mask);
  vf_detector_destroy(d);
  vf_pyramid_destroy(p);
  vf_image_free(&img);
}

/* The segment test and score written out here, pixel by pixel, as the definition reads: the
 * library tests 16 pixels at once with vector masks and sums. */
static const int walk_circle[16][2] = {{0, -3}, {1, -3},  {2, -2},  {3, -1}, {3, 0},  {3, 1},
                                       {2, 2},  {1, 3},   {0, 3},   {-1, 3}, {-2, 2}, {-3, 1},
                                       {-3, 0}, {-3, -1}, {-2, -2}, {-1, -3}};

static int walk_arc(const int d[16], int side, int t, int n) {
  for (int start = 0; start < 16; ++start) {
    int k = 0;
    while (k < n && side * d[(start + k) % 16] > t) ++k;
    if (k == n) return 1;
  }
  return 0;
}

static float walk_response(vf_image* img, int x, int y, const vf_detector_config* c) {
  int d[16];
  const int centre = *det_pixel(img, x, y), t = c->threshold, n = c->arc_length;
  for (int k = 0; k < 16; ++k)
    d[k] = *det_pixel(img, x + walk_circle[k][0], y + walk_circle[k][1]) - centre;
  const int side = walk_arc(d, 1, t, n) ? 1 : walk_arc(d, -1, t, n) ? -1 : 0;
  if (side == 0) return 0.0f;
  int score = 0;
  if (c->score == VF_FAST_SCORE_MAX_THRESHOLD) {
    score = t;
    while (score + 1 <= 254 && walk_arc(d, side, score + 1, n)) ++score;
  }
  for (int k = 0; k < 16 && c->score != VF_FAST_SCORE_MAX_THRESHOLD; ++k)
    score +=
        c->score == VF_FAST_SCORE_SAD_CIRCLE ? abs(d[k]) : (side * d[k] > t ? side * d[k] - t : 0);
  return (float)score;
}

/* Random images (full range and low contrast) on one level, cells of 32 x 2 pixels: every cell's
 * keypoint is the best local maximum (the raster tie rule) of the walked responses, for every
 * arc length and score. */
static void test_random_against_walk(void) {
  enum { W = 203, H = 131 };
  static float resp[H][W];
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  int wrong = 0, found = 0;
  for (int image = 0; image < 2; ++image) {
    if (image == 0) det_fill_random(&img, 31, 0, 256);
    if (image == 1) det_fill_random(&img, 32, 90, 40);
    for (int n = 9; n <= 12; ++n) {
      for (int score = 0; score < 3; ++score) {
        vf_detector_config c = small_config(W, H, 0, 0);
        c.arc_length = n;
        c.score = (vf_fast_score)score;
        c.threshold = image == 0 ? 20 : 4;
        c.cell_height = 2; /* many small cells: weak corners win some */
        const int m = c.border - 1 > 3 ? c.border - 1 : 3, b = c.border;
        for (int y = 0; y < H; ++y)
          for (int x = 0; x < W; ++x)
            resp[y][x] =
                x >= m && x < W - m && y >= m && y < H - m ? walk_response(&img, x, y, &c) : 0.0f;
        det_result r = det_run(ctx, &img, &c, NULL);
        CHECK_OK(r.status);
        const int cols = (W + c.cell_width - 1) / c.cell_width;
        const int rows = (H + c.cell_height - 1) / c.cell_height;
        for (int cell = 0; cell < cols * rows; ++cell) {
          const int cx = cell % cols, cy = cell / cols;
          float best = 0.0f;
          int bx = -1, by = -1;
          for (int y = cy * c.cell_height; y < (cy + 1) * c.cell_height && y < H - b; ++y)
            for (int x = cx * c.cell_width; x < (cx + 1) * c.cell_width && x < W - b; ++x) {
              if (x < b || y < b || !(resp[y][x] > best)) continue;
              const float v = resp[y][x];
              if (v > resp[y - 1][x - 1] && v > resp[y - 1][x] && v > resp[y - 1][x + 1] &&
                  v > resp[y][x - 1] && v >= resp[y][x + 1] && v >= resp[y + 1][x - 1] &&
                  v >= resp[y + 1][x] && v >= resp[y + 1][x + 1]) {
                best = v;
                bx = x;
                by = y;
              }
            }
          const vf_keypoint* k = det_find_cell(&r, cell);
          found += k != NULL;
          wrong += (k != NULL) != (bx >= 0) ||
                   (k != NULL && (k->x != (float)bx || k->y != (float)by || k->score != best));
        }
        det_free(&r);
      }
    }
  }
  CHECK(found > 1000);
  CHECK(wrong == 0);
  vf_image_free(&img);
}

/* One thread and several give the same list, byte for byte, on noise with many equal scores. */
static void test_threads(void) {
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, 301, 203, VF_PIXEL_U8, VF_MEMORY_HOST));
  det_fill_random(&img, 77, 90, 40);
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 1;
  vf_context* one = NULL;
  CHECK_OK(vf_context_create(&cc, &one));
  for (int score = 0; score < 3; ++score) {
    vf_detector_config c = small_config(301, 203, 0, 2);
    c.threshold = 3;
    c.score = (vf_fast_score)score;
    det_result a = det_run(one, &img, &c, NULL), b = det_run(ctx, &img, &c, NULL);
    CHECK(a.count > 0 && a.count == b.count);
    CHECK(a.count == b.count && memcmp(a.kp, b.kp, (size_t)a.count * sizeof *a.kp) == 0);
    det_free(&a);
    det_free(&b);
  }
  vf_context_destroy(one);
  vf_image_free(&img);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 3;
  CHECK_OK(vf_context_create(&cc, &ctx));
  test_dots();
  test_tie_rule_and_levels();
  test_rectangle();
  test_nothing_to_find();
  test_mask_and_layout();
  test_mask_sequence();
  test_threads();
  test_random_against_walk();
  vf_context_destroy(ctx);
  VF_TEST_END("test_detector");
}
