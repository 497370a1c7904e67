// SPDX-License-Identifier: BSD-3-Clause
/* Accuracy on Middlebury Cones (../shared/data, rule of ../shared/docs/DATA.md): bad-1/2/4 over
 * non-occluded pixels for SGM with 4, 8 and 16 paths and hierarchical SGM (3 levels) with 8 and
 * 16 paths, all with libSGM's settings (CS census, P1 10, P2 120, uniqueness 0.95, LR check 1,
 * sub-pixel, median), and ZNCC + SGM (its defaults, 4 paths). bad-2 must not exceed libSGM's
 * figures of ../shared/docs/TARGETS.md (12.95% with 4 paths, 12.15% with 8; 16 paths and HSGM are
 * held to the 8-path figure). Skips without the data. */
#include <viofront/viofront.h>

#include "stereo_eval.h"
#include "vf_test.h"

int main(int argc, char** argv) {
  vf_backend backend = argc > 1 && strcmp(argv[1], "cuda") == 0 ? VF_BACKEND_CUDA : VF_BACKEND_CPU;
  char pl[1024], pr[1024], pgl[1024], pgr[1024];
  if (vf_test_data_path("middlebury/cones/im2.png", pl, sizeof pl) == NULL ||
      vf_test_data_path("middlebury/cones/im6.png", pr, sizeof pr) == NULL ||
      vf_test_data_path("middlebury/cones/disp2.png", pgl, sizeof pgl) == NULL ||
      vf_test_data_path("middlebury/cones/disp6.png", pgr, sizeof pgr) == NULL) {
    VF_TEST_SKIP("Middlebury Cones not found under %s", VF_DATA_DIR);
  }
  if (backend == VF_BACKEND_CUDA) VF_TEST_REQUIRE_CUDA();
  vf_image l, r, gl, gr;
  CHECK_OK(vf_png_read_gray8(pl, &l));
  CHECK_OK(vf_png_read_gray8(pr, &r));
  CHECK_OK(stereo_read_truth(pgl, 4.0f, &gl));
  CHECK_OK(stereo_read_truth(pgr, 4.0f, &gr));
  vf_context_config cc = vf_context_config_default();
  cc.backend = backend;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  static const struct {
    vf_stereo_method method;
    int paths;
    double limit_bad2;
  } rows[] = {{VF_STEREO_SGM, 4, 12.95},   {VF_STEREO_SGM, 8, 12.15},
              {VF_STEREO_SGM, 16, 12.15},  {VF_STEREO_HSGM, 8, 12.15},
              {VF_STEREO_HSGM, 16, 12.15}, {VF_STEREO_ZNCC_SGM, 4, 12.95}};
  printf("Cones %dx%d, 64 disparities, %s backend\n", l.width, l.height, vf_backend_name(backend));
  printf(
      "| method | paths | bad-1 | bad-2 | bad-3 | bad-4 | bad-2 valid | density | MAE | limit "
      "bad-2 |\n");
  for (int i = 0; i < 6; ++i) {
    vf_stereo_config c = vf_stereo_config_default_for(rows[i].method);
    c.width = l.width;
    c.height = l.height;
    c.paths = rows[i].paths;
    vf_stereo* s = NULL;
    vf_image d16, df;
    CHECK_OK(vf_stereo_create(ctx, &c, &s));
    CHECK_OK(vf_image_alloc(&d16, l.width, l.height, VF_PIXEL_U16, VF_MEMORY_HOST));
    CHECK_OK(vf_image_alloc(&df, l.width, l.height, VF_PIXEL_F32, VF_MEMORY_HOST));
    CHECK_OK(vf_stereo_compute(s, &l, &r, &d16, &df));
    stereo_eval e;
    CHECK_OK(stereo_evaluate(&df, &gl, &gr, &e));
    printf("| %s | %d | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.1f%% | %.3f | %.2f%% |\n",
           c.method == VF_STEREO_HSGM       ? "HSGM 3 levels"
           : c.method == VF_STEREO_ZNCC_SGM ? "ZNCC 3x3 + SGM"
                                            : "SGM",
           c.paths, e.bad[1], e.bad[2], e.bad[3], e.bad[4], e.bad2_valid, e.density, e.mae,
           rows[i].limit_bad2);
    CHECK(e.pixels > 100000);
    CHECK(e.bad[2] <= rows[i].limit_bad2);
    vf_image_free(&d16);
    vf_image_free(&df);
    vf_stereo_destroy(s);
  }
  vf_context_destroy(ctx);
  vf_image_free(&l);
  vf_image_free(&r);
  vf_image_free(&gl);
  vf_image_free(&gr);
  VF_TEST_END("test_stereo_cones");
}
