// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: SGM stereo on the configurations of ../shared/docs/TARGETS.md (libSGM's table),
 * 8-bit input resident in the context's memory, synchronous per-frame time. Reports median/min,
 * libSGM's time beside ours, the cell rate (pixels x disparities x paths per second) and the
 * DRAM traffic the CUDA pipeline moves (each path's byte costs written once and read once,
 * census words, images, output) divided by the median time. The CPU backend runs only the rows
 * up to 640x480; --size WxH runs one row at any size (bench_stereo_size_row). Then the other
 * methods (ZNCC + FastDT, census + FastDT, Cyclops2) with their defaults on the Cones, EuRoC and
 * (GPU only) 720p sizes, and hierarchical SGM and 16 paths (bench_hsgm.c). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef bench_stereo_job stereo_job;

vf_status bench_stereo_step(void* arg) {
  stereo_job* j = arg;
  return vf_stereo_compute(j->stereo, &j->left, &j->right, &j->out, NULL);
}

vf_status bench_stereo_job_make(vf_context* ctx, const vf_stereo_config* c, const vf_image* hl,
                                const vf_image* hr, stereo_job* job) {
  vf_memory where = vf_context_backend(ctx) == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  memset(job, 0, sizeof *job);
  vf_status s = vf_image_alloc(&job->left, c->width, c->height, VF_PIXEL_U8, where);
  if (s == VF_OK) s = vf_image_alloc(&job->right, c->width, c->height, VF_PIXEL_U8, where);
  if (s == VF_OK) s = vf_image_alloc(&job->out, c->width, c->height, VF_PIXEL_U16, where);
  if (s == VF_OK) s = vf_image_copy(hl, &job->left);
  if (s == VF_OK) s = vf_image_copy(hr, &job->right);
  if (s == VF_OK) s = vf_stereo_create(ctx, c, &job->stereo);
  return s;
}

typedef struct stereo_row {
  int w, h, disparities, paths, subpixel;
  double libsgm_ms;
} stereo_row;

static const stereo_row rows[] = {
    {450, 375, 64, 4, 1, 0.61},   {450, 375, 64, 8, 1, 0.73},   {640, 480, 128, 4, 0, 0.82},
    {640, 480, 128, 8, 0, 1.10},  {752, 480, 64, 4, 0, 0.78},   {1024, 440, 128, 4, 1, 1.13},
    {1242, 375, 128, 8, 1, 1.71}, {1920, 1080, 256, 8, 1, 6.6}, {3840, 2160, 256, 8, 1, 20.8},
};

vf_status bench_stereo_job_synthetic(vf_context* ctx, const vf_stereo_config* c, int shift,
                                     stereo_job* job) {
  const int w = c->width, h = c->height;
  vf_image hl = {0}, hr = {0};
  memset(job, 0, sizeof *job);
  vf_status s = bench_make_texture(w, h, 7, &hl);
  if (s == VF_OK) s = vf_image_alloc(&hr, w, h, VF_PIXEL_U8, VF_MEMORY_HOST);
  if (s == VF_OK) {
    for (int y = 0; y < h; ++y) {
      const unsigned char* a = (const unsigned char*)hl.data + (size_t)y * hl.stride_bytes;
      unsigned char* b = (unsigned char*)hr.data + (size_t)y * hr.stride_bytes;
      for (int x = 0; x < w; ++x) b[x] = a[x + shift < w ? x + shift : w - 1];
    }
  }
  if (s == VF_OK) s = bench_stereo_job_make(ctx, c, &hl, &hr, job);
  vf_image_free(&hl);
  vf_image_free(&hr);
  return s;
}

void bench_stereo_job_free(stereo_job* job) {
  vf_stereo_destroy(job->stereo);
  vf_image_free(&job->left);
  vf_image_free(&job->right);
  vf_image_free(&job->out);
}

/* The row --size WxH runs: libSGM's row of that size with 4 paths and sub-pixel where its table
 * has one (450x375: 64 disparities; 1024x440: 128), its time beside ours; at any other size the
 * first row's settings (64 disparities, 4 paths, sub-pixel), the image at least 64 wide.
 * VF_BENCH_STEREO_ROW=table takes the table's first row of that size whatever its paths and
 * sub-pixel setting (1920x1080 and 3840x2160: 256 disparities and 8 paths, to count one row). */
static stereo_row bench_stereo_size_row(int w, int h) {
  stereo_row row = rows[0];
  const char* pick = getenv("VF_BENCH_STEREO_ROW");
  const int any = pick != NULL && strcmp(pick, "table") == 0;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
    if (rows[i].w == w && rows[i].h == h &&
        (any || (rows[i].paths == row.paths && rows[i].subpixel == row.subpixel)))
      return rows[i];
  }
  row.w = w < row.disparities ? row.disparities : w;
  row.h = h;
  return row;
}

static int bench_stereo_row(vf_context* ctx, const bench_options* opt, bench_out* out,
                            const stereo_row* row) {
  const int w = row->w, h = row->h;
  vf_memory where = vf_context_backend(ctx) == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  stereo_job job;
  vf_stereo_config c = vf_stereo_config_default(); /* CS census, P1 10, P2 120, uniq 0.95, LR 1 */
  c.width = w;
  c.height = h;
  c.disparities = row->disparities;
  c.paths = row->paths;
  c.subpixel = row->subpixel;
  c.median = 1;
  /* The right view is the left texture shifted by a quarter of the range: a plausible load. */
  vf_status s = bench_stereo_job_synthetic(ctx, &c, row->disparities / 4, &job);
  bench_stats st = {0};
  if (s == VF_OK) s = bench_time(ctx, opt, bench_stereo_step, &job, &st);
  if (s == VF_OK) {
    double cells = (double)w * h * row->disparities;
    /* Path costs: one byte per cell and path, written and read; census 4 bytes x 2 images
     * written and read; 2 input images; 16-bit output before and after the median. */
    double bytes = 2.0 * row->paths * cells + 24.0 * w * h;
    bench_result_begin(out, "stereo", w, h, &st);
    bench_result_str(out, "method", "sgm");
    bench_result_int(out, "disparities", row->disparities);
    bench_result_int(out, "paths", row->paths);
    bench_result_int(out, "subpixel", row->subpixel);
    bench_result_str(out, "input", where == VF_MEMORY_DEVICE ? "device" : "host");
    bench_result_num(out, "libsgm_ms", row->libsgm_ms);
    bench_result_num(out, "speedup_vs_libsgm", row->libsgm_ms / st.median_ms);
    bench_result_num(out, "gcells_per_s", cells * row->paths / (st.median_ms * 1e6));
    bench_result_num(out, "dram_gb_per_s", bytes / (st.median_ms * 1e6));
    bench_result_end(out);
  } else if (s == VF_ERR_NOMEM) {
    /* 3840x2160 with 8 paths of 256 disparities keeps 17 GB of path costs: a smaller GPU skips
     * the row rather than failing the run. */
    fprintf(stderr, "stereo %dx%d: skipped, not enough memory: %s\n", w, h,
            vf_last_error_message());
    s = VF_OK;
  } else {
    fprintf(stderr, "stereo %dx%d: %s: %s\n", w, h, vf_status_str(s), vf_last_error_message());
  }
  bench_stereo_job_free(&job);
  return s == VF_OK ? 0 : 1;
}

/* The other methods of issue 8, each with the defaults of vf_stereo_config_default_for. */
typedef struct method_row {
  const char* name;
  vf_stereo_method method;
  int pack8; /* FastDT storage */
  vf_cyclops_weight weight;
  vf_cyclops_memory memory;
} method_row;

static const method_row method_rows[] = {
    {"zncc5+fastdt", VF_STEREO_ZNCC_FASTDT, 1, VF_CYCLOPS_MNS, VF_CYCLOPS_SHARED_ROW},
    {"zncc5+fastdt16", VF_STEREO_ZNCC_FASTDT, 0, VF_CYCLOPS_MNS, VF_CYCLOPS_SHARED_ROW},
    {"census+fastdt", VF_STEREO_CENSUS_FASTDT, 1, VF_CYCLOPS_MNS, VF_CYCLOPS_SHARED_ROW},
    {"cyclops-md", VF_STEREO_CYCLOPS2, 1, VF_CYCLOPS_MD, VF_CYCLOPS_SHARED_ROW},
    {"cyclops-rma", VF_STEREO_CYCLOPS2, 1, VF_CYCLOPS_RMA, VF_CYCLOPS_SHARED_ROW},
    {"cyclops-mns", VF_STEREO_CYCLOPS2, 1, VF_CYCLOPS_MNS, VF_CYCLOPS_SHARED_ROW},
    {"cyclops-mns-gm", VF_STEREO_CYCLOPS2, 1, VF_CYCLOPS_MNS, VF_CYCLOPS_GLOBAL},
};

static int bench_method_row(vf_context* ctx, const bench_options* opt, bench_out* out,
                            const method_row* m, int w, int h, int disparities) {
  vf_memory where = vf_context_backend(ctx) == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  vf_stereo_config c = vf_stereo_config_default_for(m->method);
  c.width = w;
  c.height = h;
  c.disparities = disparities;
  c.fastdt.pack8 = m->pack8;
  c.cyclops.weight = m->weight;
  c.cyclops.memory = m->memory;
  stereo_job job;
  vf_status s = bench_stereo_job_synthetic(ctx, &c, disparities / 4, &job);
  bench_stats st = {0};
  if (s == VF_OK) s = bench_time(ctx, opt, bench_stereo_step, &job, &st);
  if (s == VF_OK) {
    bench_result_begin(out, "stereo", w, h, &st);
    bench_result_str(out, "method", m->name);
    bench_result_int(out, "disparities", disparities);
    bench_result_int(out, "median", c.median);
    bench_result_str(out, "input", where == VF_MEMORY_DEVICE ? "device" : "host");
    bench_result_end(out);
  } else {
    fprintf(stderr, "stereo %s %dx%d: %s: %s\n", m->name, w, h, vf_status_str(s),
            vf_last_error_message());
  }
  bench_stereo_job_free(&job);
  return s == VF_OK ? 0 : 1;
}

int bench_stereo(vf_context* ctx, const bench_options* opt, bench_out* out) {
  int failed = 0;
  int cpu = vf_context_backend(ctx) != VF_BACKEND_CUDA;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
    stereo_row row = rows[i];
    if (opt->width > 0) {
      if (i > 0) break; /* --size: one row */
      row = bench_stereo_size_row(opt->width, opt->height);
    } else if (cpu && row.w * row.h > 640 * 480) {
      continue;
    }
    failed |= bench_stereo_row(ctx, opt, out, &row);
  }
  /* VF_BENCH_STEREO=sgm: these SGM rows alone (scripts/tx2_profile.sh counts their kernels). */
  const char* only = getenv("VF_BENCH_STEREO");
  if (only != NULL && strcmp(only, "sgm") == 0) return failed;
  /* Cones, EuRoC, and 720p with 128 disparities (GPU only: seconds per frame on a CPU). */
  static const int sizes[][3] = {{450, 375, 64}, {752, 480, 64}, {1280, 720, 128}};
  for (int i = 0; i < 3; ++i) {
    int w = sizes[i][0], h = sizes[i][1], nd = sizes[i][2];
    if (opt->width > 0) {
      if (i > 0) break;
      w = opt->width;
      h = opt->height;
      nd = nd < w ? nd : w;
    } else if (cpu && w * h > 752 * 480) {
      continue;
    }
    for (size_t k = 0; k < sizeof method_rows / sizeof method_rows[0]; ++k) {
      failed |= bench_method_row(ctx, opt, out, &method_rows[k], w, h, nd);
    }
  }
  return failed | bench_stereo_hsgm(ctx, opt, out);
}
