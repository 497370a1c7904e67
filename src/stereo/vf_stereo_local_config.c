// SPDX-License-Identifier: BSD-3-Clause
/* Configuration of the local stereo methods: defaults, validation with messages that name
 * the field, and the translation from a vf_stereo configuration. */
#include <string.h>

#include "core/vf_error.h"
#include "stereo/kernels/vf_local_rules.h"
#include "stereo/vf_stereo_local.h"
#include "stereo/vf_stereo_local_internal.h"

void vf_stereo_local_defaults(vf_zncc_config* zncc, vf_fastdt_config* fastdt,
                              vf_cyclops_config* cyclops) {
  zncc->window = 5;
  zncc->sums = VF_ZNCC_SUMS_AUTO;
  fastdt->enabled = 1;
  fastdt->sigma_s = 20.0f;
  fastdt->sigma_r = 15.0f;
  fastdt->pack8 = 1;
  cyclops->weight = VF_CYCLOPS_MNS;
  cyclops->memory = VF_CYCLOPS_SHARED_ROW;
  cyclops->rma_max_log2 = 4;
  cyclops->mns_height = 5;
  cyclops->mns_width = 5;
  cyclops->kernel_step = 1;
  cyclops->disparity_step = 1;
}

vf_stereo_local_config vf_stereo_local_config_default(void) {
  vf_stereo_local_config c;
  memset(&c, 0, sizeof c);
  c.width = 752;
  c.height = 480;
  c.disparities = 64;
  c.method = VF_STEREO_LOCAL_ZNCC;
  vf_stereo_local_defaults(&c.zncc, &c.fastdt, &c.cyclops);
  return c;
}

#define VF_LOCAL_FAIL(...) vf_fail(NULL, VF_ERR_INVALID_ARG, __VA_ARGS__)

static int vf_flag_ok(int v) { return v == 0 || v == 1; }

static int vf_odd_in(int v, int lo, int hi) { return v >= lo && v <= hi && v % 2 == 1; }

static vf_status vf_validate_fastdt(const vf_stereo_local_config* c, const char* what) {
  const vf_fastdt_config* f = &c->fastdt;
  if (c->disparities > VF_STEREO_LOCAL_MAX_DISPARITY) {
    return VF_LOCAL_FAIL("%s: disparities %d is above %d, the cost volume's depth", what,
                         c->disparities, VF_STEREO_LOCAL_MAX_DISPARITY);
  }
  if (!vf_flag_ok(f->enabled)) {
    return VF_LOCAL_FAIL("%s: fastdt.enabled %d is not 0 or 1", what, f->enabled);
  }
  if (!vf_flag_ok(f->pack8))
    return VF_LOCAL_FAIL("%s: fastdt.pack8 %d is not 0 or 1", what, f->pack8);
  /* Written so that NaN fails too. */
  if (!(f->sigma_s >= 0.5f && f->sigma_s <= 1000.0f)) {
    return VF_LOCAL_FAIL("%s: fastdt.sigma_s %g is outside 0.5..1000 pixels", what,
                         (double)f->sigma_s);
  }
  if (!(f->sigma_r >= 0.5f && f->sigma_r <= 1000.0f)) {
    return VF_LOCAL_FAIL("%s: fastdt.sigma_r %g is outside 0.5..1000 grey levels", what,
                         (double)f->sigma_r);
  }
  return VF_OK;
}

static vf_status vf_validate_zncc(const vf_stereo_local_config* c, const char* what) {
  if (!vf_odd_in(c->zncc.window, 3, 15)) {
    return VF_LOCAL_FAIL("%s: zncc.window %d must be odd, 3..15", what, c->zncc.window);
  }
  if (c->zncc.window > c->width || c->zncc.window > c->height) {
    return VF_LOCAL_FAIL("%s: zncc.window %d does not fit the %dx%d image", what, c->zncc.window,
                         c->width, c->height);
  }
  if (c->zncc.sums < VF_ZNCC_SUMS_AUTO || c->zncc.sums > VF_ZNCC_SUMS_INTEGRAL) {
    return VF_LOCAL_FAIL("%s: zncc.sums %d is not AUTO, DIRECT or INTEGRAL", what,
                         (int)c->zncc.sums);
  }
  return vf_validate_fastdt(c, what);
}

static vf_status vf_validate_cyclops(const vf_stereo_local_config* c, const char* what) {
  const vf_cyclops_config* y = &c->cyclops;
  if (c->disparities > c->width) {
    return VF_LOCAL_FAIL("%s: disparities %d is above the width %d (a full scan line)", what,
                         c->disparities, c->width);
  }
  if (y->weight < VF_CYCLOPS_MD || y->weight > VF_CYCLOPS_MNS) {
    return VF_LOCAL_FAIL("%s: cyclops.weight %d is not MD, RMA or MNS", what, (int)y->weight);
  }
  if (y->memory != VF_CYCLOPS_SHARED_ROW && y->memory != VF_CYCLOPS_GLOBAL) {
    return VF_LOCAL_FAIL("%s: cyclops.memory %d is not SHARED_ROW or GLOBAL", what, (int)y->memory);
  }
  if (y->rma_max_log2 < 0 || y->rma_max_log2 > 8) {
    return VF_LOCAL_FAIL("%s: cyclops.rma_max_log2 %d is outside 0..8", what, y->rma_max_log2);
  }
  if (!vf_odd_in(y->mns_height, 1, 31) || !vf_odd_in(y->mns_width, 1, 31)) {
    return VF_LOCAL_FAIL("%s: cyclops MNS block %dx%d (mns_width x mns_height) must be odd, 1..31",
                         what, y->mns_width, y->mns_height);
  }
  if (y->mns_width > c->width) {
    return VF_LOCAL_FAIL("%s: cyclops.mns_width %d is wider than the image (%d)", what,
                         y->mns_width, c->width);
  }
  if (y->kernel_step < 1 || (y->mns_height - 1) % y->kernel_step != 0 ||
      (y->mns_width - 1) % y->kernel_step != 0) {
    return VF_LOCAL_FAIL(
        "%s: cyclops.kernel_step %d must be >= 1 and divide mns_width-1 (%d) and "
        "mns_height-1 (%d)",
        what, y->kernel_step, y->mns_width - 1, y->mns_height - 1);
  }
  if (y->disparity_step < 1 || y->disparity_step > c->disparities) {
    return VF_LOCAL_FAIL("%s: cyclops.disparity_step %d is outside 1..disparities (%d)", what,
                         y->disparity_step, c->disparities);
  }
  size_t rows = y->weight == VF_CYCLOPS_MNS ? (size_t)y->mns_height : 1;
  size_t shared = rows * (size_t)c->width * 2;
  if (y->memory == VF_CYCLOPS_SHARED_ROW && shared > VF_LOCAL_SHARED_ROW_BYTES) {
    return VF_LOCAL_FAIL(
        "%s: cyclops.memory SHARED_ROW needs %zu rows x %d pixels x 2 images = %zu "
        "bytes of shared memory, more than %d: use GLOBAL",
        what, rows, c->width, shared, VF_LOCAL_SHARED_ROW_BYTES);
  }
  return VF_OK;
}

vf_status vf_stereo_local_validate(const vf_stereo_local_config* c, const char* what) {
  if (c->width < 1 || c->height < 1 || c->width > 32768 || c->height > 32768) {
    return VF_LOCAL_FAIL("%s: size %dx%d is outside 1..32768", what, c->width, c->height);
  }
  if (c->disparities < 1) {
    return VF_LOCAL_FAIL("%s: disparities %d is below 1", what, c->disparities);
  }
  if (!vf_flag_ok(c->median)) return VF_LOCAL_FAIL("%s: median %d is not 0 or 1", what, c->median);
  switch (c->method) {
    case VF_STEREO_LOCAL_ZNCC: return vf_validate_zncc(c, what);
    case VF_STEREO_LOCAL_CYCLOPS2: return vf_validate_cyclops(c, what);
    case VF_STEREO_LOCAL_CENSUS:
      if (!vf_flag_ok(c->census_full)) {
        return VF_LOCAL_FAIL("%s: census_full %d is not 0 or 1", what, c->census_full);
      }
      return vf_validate_fastdt(c, what);
  }
  return VF_LOCAL_FAIL("%s: method %d is not ZNCC, CENSUS or CYCLOPS2", what, (int)c->method);
}

vf_status vf_stereo_local_config_from_stereo(const vf_stereo_config* c, vf_stereo_local_config* out,
                                             const char* what) {
  vf_stereo_local_config a = vf_stereo_local_config_default();
  switch (c->method) {
    case VF_STEREO_ZNCC_FASTDT: a.method = VF_STEREO_LOCAL_ZNCC; break;
    case VF_STEREO_CENSUS_FASTDT: a.method = VF_STEREO_LOCAL_CENSUS; break;
    case VF_STEREO_CYCLOPS2: a.method = VF_STEREO_LOCAL_CYCLOPS2; break;
    default:
      return VF_LOCAL_FAIL("%s: method %d is not ZNCC_FASTDT, CENSUS_FASTDT or CYCLOPS2", what,
                           (int)c->method);
  }
  if (c->width <= 0 || c->height <= 0 || c->width > 4096 || c->height > 4096) {
    return VF_LOCAL_FAIL("%s: width x height %dx%d is outside 1..4096", what, c->width, c->height);
  }
  /* What only SGM offers is refused, not ignored: the output would not mean what it says. */
  if (c->min_disparity != 0) {
    return vf_fail(NULL, VF_ERR_UNSUPPORTED,
                   "%s: min_disparity %d: this method searches from 0 (only SGM takes a minimum)",
                   what, c->min_disparity);
  }
  if (c->subpixel != 0) {
    return vf_fail(NULL, VF_ERR_UNSUPPORTED,
                   "%s: subpixel must be 0: this method gives whole pixels (only SGM refines)",
                   what);
  }
  if (c->lr_check != 0) {
    return vf_fail(NULL, VF_ERR_UNSUPPORTED,
                   "%s: lr_check must be 0: this method computes no right-image disparity", what);
  }
  if (c->uniqueness != 1.0f) {
    return vf_fail(NULL, VF_ERR_UNSUPPORTED,
                   "%s: uniqueness %g must be 1 (off): only SGM has the uniqueness check", what,
                   (double)c->uniqueness);
  }
  if (c->method == VF_STEREO_CENSUS_FASTDT && c->census != VF_CENSUS_CS_9X7 &&
      c->census != VF_CENSUS_FULL_9X7) {
    return VF_LOCAL_FAIL("%s: census %d is unknown", what, (int)c->census);
  }
  a.width = c->width;
  a.height = c->height;
  a.disparities = c->disparities;
  a.census_full = c->census == VF_CENSUS_FULL_9X7;
  a.zncc = c->zncc;
  a.fastdt = c->fastdt;
  a.cyclops = c->cyclops;
  a.median = c->median;
  vf_status st = vf_stereo_local_validate(&a, what);
  if (st == VF_OK) *out = a;
  return st;
}

void vf_local_cyclops_params(const vf_stereo_local_config* c, vf_local_cyclops* out) {
  out->weight = (int)c->cyclops.weight;
  out->rma_max_log2 = c->cyclops.rma_max_log2;
  out->mns_height = c->cyclops.mns_height;
  out->mns_width = c->cyclops.mns_width;
  out->kernel_step = c->cyclops.kernel_step;
  out->disparity_step = c->cyclops.disparity_step;
}
