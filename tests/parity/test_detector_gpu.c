// SPDX-License-Identifier: BSD-3-Clause
/* GPU detector equals the CPU reference bit for bit (same cells, x, y, level, score): random,
 * low-contrast and blocky images of many sizes (tiny and odd ones included), flat images, every
 * score type and arc length, several grids, borders and level ranges, host and device masks,
 * device-only results, and the real images of the shared data. Skips without a device. */
#include <dirent.h>

#include "test_detector_util.h"

static vf_context* cpu_ctx;
static vf_context* gpu_ctx;
static int compared, total_keypoints;

static void report_first_difference(const det_result* a, const det_result* b, const char* what) {
  fprintf(stderr, "%s: CPU %d keypoints, GPU %d\n", what, a->count, b->count);
  for (int i = 0; i < a->count && i < b->count; ++i) {
    const vf_keypoint *p = &a->kp[i], *q = &b->kp[i];
    if (memcmp(p, q, sizeof *p) != 0) {
      fprintf(stderr,
              "  #%d CPU cell %d (%.1f, %.1f) L%d s %.1f | GPU cell %d (%.1f, %.1f) L%d s %.1f\n",
              i, p->cell, p->x, p->y, p->level, p->score, q->cell, q->x, q->y, q->level, q->score);
      return;
    }
  }
}

static void compare(const vf_image* img, const vf_detector_config* c, const uint8_t* mask,
                    const char* what) {
  det_result a = det_run(cpu_ctx, img, c, mask), b = det_run(gpu_ctx, img, c, mask);
  CHECK_OK(a.status);
  CHECK_OK(b.status);
  int same = a.count == b.count &&
             (a.count == 0 || memcmp(a.kp, b.kp, (size_t)a.count * sizeof *a.kp) == 0);
  if (!same) report_first_difference(&a, &b, what);
  CHECK(same);
  compared++;
  total_keypoints += a.count;
  det_free(&a);
  det_free(&b);
}

static vf_detector_config sized(const vf_image* img) {
  vf_detector_config c = vf_detector_config_default();
  c.width = img->width;
  c.height = img->height;
  while ((c.width >> c.max_level) < 1 || (c.height >> c.max_level) < 1) c.max_level--;
  return c;
}

/* Every configuration knob on one image. */
static void compare_configs(const vf_image* img, const char* what) {
  vf_detector_config c = sized(img);
  compare(img, &c, NULL, what);
  for (int n = 9; n <= 12; ++n) {
    for (int score = 0; score < 3; ++score) {
      c = sized(img);
      c.arc_length = n;
      c.score = (vf_fast_score)score;
      c.threshold = 5 + 7 * (n - 9);
      compare(img, &c, NULL, what);
    }
  }
  static const int grids[][6] = {/* cell w, h, min, max level, border, threshold */
                                 {64, 48, 0, 3, 8, 10},   {96, 40, 0, 2, 3, 1},
                                 {128, 32, 1, 2, 21, 20}, {32, 32, 0, 0, 4, 60},
                                 {32, 8, 0, 3, 5, 2},     {256, 256, 2, 4, 3, 10}};
  for (int i = 0; i < 6; ++i) {
    c = sized(img);
    c.cell_width = grids[i][0];
    c.cell_height = grids[i][1];
    c.min_level = grids[i][2];
    c.max_level = grids[i][3];
    c.border = grids[i][4];
    c.threshold = grids[i][5];
    if ((img->width >> c.max_level) < 1 || (img->height >> c.max_level) < 1) continue;
    compare(img, &c, NULL, what);
  }
}

static void compare_random(int w, int h, unsigned seed) {
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  char what[64];
  snprintf(what, sizeof what, "random %dx%d", w, h);
  det_fill_random(&img, seed, 0, 256);
  compare_configs(&img, what);
  det_fill_random(&img, seed + 1, 100, 12); /* low contrast: many equal scores */
  compare_configs(&img, what);
  det_fill_blocks(&img, seed + 2, 5);
  compare_configs(&img, what);
  det_fill(&img, 128);
  vf_detector_config c = sized(&img);
  compare(&img, &c, NULL, "flat");
  vf_image_free(&img);
}

/* Device mask, device-only results and a second frame on the same detector: the whole cell
 * array (empty cells included) equals the CPU's. */
static void compare_device_paths(const vf_image* img) {
  vf_detector_config c = sized(img);
  c.host_results = 0;
  vf_pyramid_config pc = {img->width, img->height, c.max_level + 1};
  vf_pyramid *pc_cpu = NULL, *pc_gpu = NULL;
  vf_detector *d_cpu = NULL, *d_gpu = NULL;
  CHECK_OK(vf_pyramid_create(cpu_ctx, &pc, &pc_cpu));
  CHECK_OK(vf_pyramid_create(gpu_ctx, &pc, &pc_gpu));
  CHECK_OK(vf_detector_create(cpu_ctx, &c, &d_cpu));
  CHECK_OK(vf_detector_create(gpu_ctx, &c, &d_gpu));
  if (d_cpu == NULL || d_gpu == NULL) return;
  vf_grid g;
  CHECK_OK(vf_detector_grid(d_gpu, &g));
  int cells = g.cols * g.rows;
  size_t bytes = (size_t)cells * sizeof(vf_keypoint);
  uint8_t* mask = malloc((size_t)cells);
  unsigned seed = 4;
  for (int i = 0; i < cells; ++i) mask[i] = vf_test_rand(&seed) % 3u == 0u;
  vf_image host_mask = vf_image_view(mask, cells, 1, (size_t)cells, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image dev_mask;
  CHECK_OK(vf_image_alloc(&dev_mask, cells, 1, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_copy(&host_mask, &dev_mask));
  vf_image noise;
  CHECK_OK(vf_image_alloc(&noise, img->width, img->height, VF_PIXEL_U8, VF_MEMORY_HOST));
  det_fill_random(&noise, 8, 0, 256);
  /* Frame 1 (noise, no mask) then frame 2 (the image, device mask). */
  CHECK_OK(vf_pyramid_build(pc_gpu, &noise));
  CHECK_OK(vf_detector_detect(d_gpu, pc_gpu, NULL, VF_MEMORY_HOST));
  CHECK_OK(vf_pyramid_build(pc_gpu, img));
  CHECK_OK(vf_detector_detect(d_gpu, pc_gpu, dev_mask.data, VF_MEMORY_DEVICE));
  const vf_keypoint *kp = NULL, *cpu_cells = NULL, *gpu_cells = NULL;
  int count = 0;
  CHECK_FAILS(vf_detector_keypoints(d_gpu, &kp, &count), VF_ERR_STATE);
  CHECK_OK(vf_detector_cells(d_gpu, &gpu_cells));
  CHECK_OK(vf_context_synchronize(gpu_ctx));
  vf_keypoint* copied = malloc(bytes);
  vf_image from =
      vf_image_view((void*)gpu_cells, (int)bytes, 1, bytes, VF_MEMORY_DEVICE, VF_PIXEL_U8);
  vf_image to = vf_image_view(copied, (int)bytes, 1, bytes, VF_MEMORY_HOST, VF_PIXEL_U8);
  CHECK_OK(vf_image_copy(&from, &to));
  CHECK_OK(vf_pyramid_build(pc_cpu, img));
  CHECK_OK(vf_detector_detect(d_cpu, pc_cpu, mask, VF_MEMORY_HOST));
  CHECK_OK(vf_detector_cells(d_cpu, &cpu_cells));
  CHECK(memcmp(copied, cpu_cells, bytes) == 0);
  int found = 0;
  for (int i = 0; i < cells; ++i) found += cpu_cells[i].level >= 0;
  CHECK(found > 0);
  for (int i = 0; i < cells; ++i) CHECK(!mask[i] || cpu_cells[i].level == -1);
  printf("device paths: %d of %d cells, device mask, device-only results: equal\n", found, cells);
  free(copied);
  free(mask);
  /* With host results the GPU keeps no device cell array: asking for it is refused, never
   * answered with a stale one. */
  vf_detector* d_host = NULL;
  c.host_results = 1;
  CHECK_OK(vf_detector_create(gpu_ctx, &c, &d_host));
  CHECK_OK(vf_detector_detect(d_host, pc_gpu, NULL, VF_MEMORY_HOST));
  CHECK_OK(vf_detector_keypoints(d_host, &kp, &count));
  CHECK_FAILS(vf_detector_cells(d_host, &gpu_cells), VF_ERR_STATE);
  vf_detector_destroy(d_host);
  vf_image_free(&noise);
  vf_image_free(&dev_mask);
  vf_detector_destroy(d_cpu);
  vf_detector_destroy(d_gpu);
  vf_pyramid_destroy(pc_cpu);
  vf_pyramid_destroy(pc_gpu);
}

static void compare_real(const char* rel, int all_configs) {
  char path[1024];
  if (vf_test_data_path(rel, path, sizeof path) == NULL) {
    printf("real image %s absent: skipped\n", rel);
    return;
  }
  vf_image img;
  CHECK_OK(vf_png_read_gray8(path, &img));
  if (all_configs) {
    compare_configs(&img, rel);
    uint8_t mask[4096];
    unsigned seed = 21;
    for (int i = 0; i < 4096; ++i) mask[i] = vf_test_rand(&seed) % 4u == 0u;
    vf_detector_config c = sized(&img);
    if (c.width <= 64 * 32 && c.height <= 64 * 32) compare(&img, &c, mask, rel);
    /* The frontend's birth bands (32x8 cells, levels 0-2): several rows of cells a block, with
     * masks that differ between the rows and columns of a block. */
    c.cell_height = 8;
    if (c.width <= 64 * 32 && c.height <= 64 * 8) compare(&img, &c, mask, rel);
  } else {
    vf_detector_config c = sized(&img);
    compare(&img, &c, NULL, rel);
  }
  vf_image_free(&img);
}

/* Up to `limit` frames of the EuRoC excerpt's left camera. */
static void compare_euroc(int limit) {
  const char* dir_rel = "euroc/V1_01_easy_micro/mav0/cam0/data";
  char dir_path[1024];
  snprintf(dir_path, sizeof dir_path, "%s/%s", VF_DATA_DIR, dir_rel);
  DIR* dir = opendir(dir_path);
  if (dir == NULL) {
    printf("EuRoC frames absent: skipped\n");
    return;
  }
  int n = 0;
  for (struct dirent* e = readdir(dir); e != NULL && n < limit; e = readdir(dir)) {
    if (strstr(e->d_name, ".png") == NULL) continue;
    char rel[512];
    snprintf(rel, sizeof rel, "%s/%s", dir_rel, e->d_name);
    compare_real(rel, n == 0);
    n++;
  }
  closedir(dir);
  printf("EuRoC frames compared: %d\n", n);
}

int main(void) {
  VF_TEST_GPU_CONTEXTS(cpu_ctx, gpu_ctx);

  static const int sizes[][2] = {{752, 480}, {753, 481}, {96, 64}, {65, 33},    {31, 17},
                                 {8, 8},     {1, 1},     {40, 23}, {1920, 1080}};
  for (int i = 0; i < 9; ++i) compare_random(sizes[i][0], sizes[i][1], 10u + (unsigned)i);
  compare_real("images/birds_752x480.png", 1);
  compare_real("images/peru_640x480.png", 1);
  compare_real("middlebury/cones/im2.png", 1);
  compare_euroc(20);
  char path[1024];
  if (vf_test_data_path("images/birds_752x480.png", path, sizeof path) != NULL) {
    vf_image img;
    CHECK_OK(vf_png_read_gray8(path, &img));
    compare_device_paths(&img);
    vf_image_free(&img);
  }
  printf("%d detections compared, %d keypoints in all\n", compared, total_keypoints);
  vf_context_destroy(gpu_ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_detector_gpu");
}
