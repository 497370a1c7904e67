// SPDX-License-Identifier: BSD-3-Clause
/* Independent pyramid reference for the tests: every level straight from the definition. */
#ifndef VF_PYRAMID_REFERENCE_H
#define VF_PYRAMID_REFERENCE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Level k of a w x h image as a tight (w >> k) x (h >> k) buffer (caller frees). */
static inline uint8_t* ref_pyramid_level(const uint8_t* img, int w, int h, int k) {
  uint8_t* cur = malloc((size_t)w * h);
  if (cur == NULL) return NULL;
  memcpy(cur, img, (size_t)w * h);
  for (int l = 1; l <= k; ++l) {
    int nw = w / 2, nh = h / 2;
    uint8_t* next = malloc((size_t)(nw > 0 ? nw : 1) * (nh > 0 ? nh : 1));
    if (next == NULL) {
      free(cur);
      return NULL;
    }
    for (int y = 0; y < nh; ++y) {
      for (int x = 0; x < nw; ++x) {
        int s = cur[2 * y * w + 2 * x] + cur[2 * y * w + 2 * x + 1] + cur[(2 * y + 1) * w + 2 * x] +
                cur[(2 * y + 1) * w + 2 * x + 1];
        next[y * nw + x] = (uint8_t)((s + 2) / 4);
      }
    }
    free(cur);
    cur = next;
    w = nw;
    h = nh;
  }
  return cur;
}

#endif
