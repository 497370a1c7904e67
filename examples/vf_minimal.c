// SPDX-License-Identifier: BSD-3-Clause
/* The smallest viofront program: build a 3-level pyramid of a generated image on the best
 * backend available and print the size of each level. */
#include <stdio.h>
#include <stdlib.h>
#include <viofront/viofront.h>

#include "example_log.h"

int main(void) {
  vf_context* ctx = NULL;
  vf_context_config cc = vf_context_config_default(); /* AUTO: CUDA if present, else CPU */
  example_log_install(&cc, "vf_minimal", 0);
  if (vf_context_create(&cc, &ctx) != VF_OK) {
    fprintf(stderr, "context: %s\n", vf_last_error_message());
    return 1;
  }
  enum { W = 640, H = 480 };
  unsigned char* pixels = malloc(W * H);
  if (pixels == NULL) return 1;
  for (int i = 0; i < W * H; ++i) pixels[i] = (unsigned char)((i % W) ^ (i / W));
  vf_image image = vf_image_view(pixels, W, H, W, VF_MEMORY_HOST, VF_PIXEL_U8);

  vf_pyramid_config pc = vf_pyramid_config_default();
  pc.width = W;
  pc.height = H;
  pc.levels = 3;
  vf_pyramid* pyramid = NULL;
  vf_status s = vf_pyramid_create(ctx, &pc, &pyramid);
  if (s == VF_OK) s = vf_pyramid_build(pyramid, &image);
  for (int k = 0; s == VF_OK && k < vf_pyramid_levels(pyramid); ++k) {
    vf_image level;
    s = vf_pyramid_level(pyramid, k, &level);
    if (s == VF_OK) printf("level %d: %dx%d\n", k, level.width, level.height);
  }
  if (s != VF_OK) fprintf(stderr, "pyramid: %s: %s\n", vf_status_str(s), vf_last_error_message());
  printf("viofront %s, %s backend\n", vf_version(), vf_backend_name(vf_context_backend(ctx)));
  vf_pyramid_destroy(pyramid);
  vf_context_destroy(ctx);
  free(pixels);
  return s == VF_OK ? 0 : 1;
}
