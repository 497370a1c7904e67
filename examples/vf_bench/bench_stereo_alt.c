/* vf_bench: the alternative stereo methods of issue 8 (ZNCC + FastDT, Cyclops2) on a textured
 * pair at a known disparity, device-resident input and output on CUDA (host on the CPU). Until
 * vf_stereo offers these methods this calls the internal stage API (src/vf_stereo_alt.h). */
#include <stdint.h>
#include <string.h>

#include "bench.h"
#include "vf_stereo_alt.h"

typedef struct alt_job {
  vf_stereo_alt* stereo;
  vf_image left, right, disparity;
} alt_job;

static vf_status alt_step(void* arg) {
  alt_job* j = arg;
  return vf_stereo_alt_compute(j->stereo, &j->left, &j->right, &j->disparity);
}

typedef struct alt_method {
  const char* name;
  vf_stereo_alt_method method;
  int window, fastdt, pack8;
  vf_cyclops_weight weight;
  vf_cyclops_memory memory;
} alt_method;

static const alt_method alt_methods[] = {
    {"zncc5+fastdt", VF_STEREO_ALT_ZNCC, 5, 1, 1, VF_CYCLOPS_MD, VF_CYCLOPS_SHARED_ROW},
    {"zncc5+fastdt16", VF_STEREO_ALT_ZNCC, 5, 1, 0, VF_CYCLOPS_MD, VF_CYCLOPS_SHARED_ROW},
    {"zncc9+fastdt", VF_STEREO_ALT_ZNCC, 9, 1, 1, VF_CYCLOPS_MD, VF_CYCLOPS_SHARED_ROW},
    {"zncc9", VF_STEREO_ALT_ZNCC, 9, 0, 1, VF_CYCLOPS_MD, VF_CYCLOPS_SHARED_ROW},
    {"cyclops-md", VF_STEREO_ALT_CYCLOPS2, 0, 0, 0, VF_CYCLOPS_MD, VF_CYCLOPS_SHARED_ROW},
    {"cyclops-rma", VF_STEREO_ALT_CYCLOPS2, 0, 0, 0, VF_CYCLOPS_RMA, VF_CYCLOPS_SHARED_ROW},
    {"cyclops-mns", VF_STEREO_ALT_CYCLOPS2, 0, 0, 0, VF_CYCLOPS_MNS, VF_CYCLOPS_SHARED_ROW},
    {"cyclops-mns-gm", VF_STEREO_ALT_CYCLOPS2, 0, 0, 0, VF_CYCLOPS_MNS, VF_CYCLOPS_GLOBAL},
};

/* A pair at disparity 17: right(x - 17) = left(x). */
static vf_status alt_make_pair(int w, int h, vf_memory where, alt_job* j) {
  vf_image tex = {0};
  vf_status s = bench_make_texture(w + 17, h, 11, &tex);
  if (s == VF_OK) s = vf_image_alloc(&j->left, w, h, VF_PIXEL_U8, where);
  if (s == VF_OK) s = vf_image_alloc(&j->right, w, h, VF_PIXEL_U8, where);
  if (s == VF_OK) s = vf_image_alloc(&j->disparity, w, h, VF_PIXEL_U16, where);
  if (s == VF_OK) {
    vf_image l = tex, r = tex;
    l.width = r.width = w;
    r.data = (uint8_t*)tex.data + 17;
    s = vf_image_copy(&l, &j->left);
    if (s == VF_OK) s = vf_image_copy(&r, &j->right);
  }
  vf_image_free(&tex);
  return s;
}

static int bench_alt_size(vf_context* ctx, const bench_options* opt, bench_out* out, int w, int h,
                          int nd) {
  alt_job job;
  memset(&job, 0, sizeof job);
  vf_memory where = vf_context_backend(ctx) == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  vf_status s = alt_make_pair(w, h, where, &job);
  int failed = s != VF_OK;
  for (size_t i = 0; s == VF_OK && i < sizeof alt_methods / sizeof alt_methods[0]; ++i) {
    const alt_method* m = &alt_methods[i];
    vf_stereo_alt_config c = vf_stereo_alt_config_default();
    c.width = w;
    c.height = h;
    c.max_disparity = nd;
    c.method = m->method;
    c.zncc.window = m->window > 0 ? m->window : c.zncc.window;
    c.fastdt.enabled = m->fastdt;
    c.fastdt.pack8 = m->pack8;
    c.cyclops.weight = m->weight;
    c.cyclops.memory = m->memory;
    bench_stats st = {0};
    vf_status r = vf_stereo_alt_create(ctx, &c, &job.stereo);
    if (r == VF_OK) r = bench_time(ctx, opt, alt_step, &job, &st);
    if (r == VF_OK) {
      bench_result_begin(out, "stereo_alt", w, h, &st);
      bench_result_str(out, "method", m->name);
      bench_result_int(out, "disparities", nd);
      bench_result_str(out, "input", where == VF_MEMORY_DEVICE ? "device" : "host");
      bench_result_end(out);
    } else {
      fprintf(stderr, "stereo_alt %s %dx%d: %s: %s\n", m->name, w, h, vf_status_str(r),
              vf_last_error_message());
      failed = 1;
    }
    vf_stereo_alt_destroy(job.stereo);
    job.stereo = NULL;
  }
  if (s != VF_OK) fprintf(stderr, "stereo_alt %dx%d: %s\n", w, h, vf_last_error_message());
  vf_image_free(&job.left);
  vf_image_free(&job.right);
  vf_image_free(&job.disparity);
  return failed;
}

int bench_stereo_alt(vf_context* ctx, const bench_options* opt, bench_out* out) {
  if (opt->width > 0) return bench_alt_size(ctx, opt, out, opt->width, opt->height, 64);
  /* Cones, EuRoC, and (GPU only: seconds per frame on a CPU) 720p with 128 disparities. */
  static const int sizes[][3] = {{450, 375, 64}, {752, 480, 64}, {1280, 720, 128}};
  int n = vf_context_backend(ctx) == VF_BACKEND_CUDA ? 3 : 2, failed = 0;
  for (int i = 0; i < n; ++i) {
    failed |= bench_alt_size(ctx, opt, out, sizes[i][0], sizes[i][1], sizes[i][2]);
  }
  return failed;
}
