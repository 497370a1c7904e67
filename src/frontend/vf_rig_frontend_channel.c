// SPDX-License-Identifier: BSD-3-Clause
/* The rig frontend's back channel: a backend's predictions and rejections by rig id, routed to
 * the unit in the id's top bits with the unit's own id. All ids are checked before any is
 * applied, so a bad list changes nothing. */
#include <math.h>

#include "frontend/vf_rig_frontend_internal.h"

static const uint64_t vf_rig_unit_id_mask = (1ull << VF_RIG_FRONTEND_ID_SHIFT) - 1;

static vf_status vf_rig_check_ids(vf_rig_frontend* fe, const char* fn, const uint64_t* ids,
                                  int count) {
  if (count < 0) return vf_fail(&fe->err, VF_ERR_INVALID_ARG, "%s: count %d < 0", fn, count);
  if (count > 0 && ids == NULL) return vf_fail(&fe->err, VF_ERR_INVALID_ARG, "%s: ids is NULL", fn);
  for (int i = 0; i < count; ++i) {
    const int unit = vf_rig_frontend_id_unit(ids[i]);
    if (unit >= fe->unit_count)
      return vf_fail(&fe->err, VF_ERR_INVALID_ARG,
                     "%s: ids[%d] names unit %d; the rig frontend has %d", fn, i, unit,
                     fe->unit_count);
  }
  return VF_OK;
}

vf_status vf_rig_frontend_predict(vf_rig_frontend* fe, const uint64_t* ids, const float* uv,
                                  int count) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  const char* fn = "vf_rig_frontend_predict";
  vf_status s = vf_rig_check_ids(fe, fn, ids, count);
  if (s == VF_OK && count > 0 && uv == NULL)
    s = vf_fail(&fe->err, VF_ERR_INVALID_ARG, "%s: uv is NULL", fn);
  /* vf_frontend_predict's own rule, checked for the whole list before any unit gets a part. */
  for (int i = 0; s == VF_OK && i < count; ++i) {
    if (!isfinite(uv[2 * i]) || !isfinite(uv[2 * i + 1]))
      s = vf_fail(&fe->err, VF_ERR_INVALID_ARG, "%s: uv[%d] is not finite", fn, i);
  }
  for (int i = 0; s == VF_OK && i < count; ++i) {
    vf_rig_slot* u = &fe->units[vf_rig_frontend_id_unit(ids[i])];
    const uint64_t id = ids[i] & vf_rig_unit_id_mask;
    s = vf_frontend_predict(u->fe, &id, &uv[2 * i], 1);
    if (s != VF_OK) s = vf_fail(&fe->err, s, "%s: %s", fn, vf_frontend_last_error(u->fe));
  }
  return s;
}

vf_status vf_rig_frontend_reject(vf_rig_frontend* fe, const uint64_t* ids, int count) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  const char* fn = "vf_rig_frontend_reject";
  vf_status s = vf_rig_check_ids(fe, fn, ids, count);
  for (int i = 0; s == VF_OK && i < count; ++i) {
    vf_rig_slot* u = &fe->units[vf_rig_frontend_id_unit(ids[i])];
    const uint64_t id = ids[i] & vf_rig_unit_id_mask;
    s = vf_frontend_reject(u->fe, &id, 1);
    if (s != VF_OK) s = vf_fail(&fe->err, s, "%s: %s", fn, vf_frontend_last_error(u->fe));
  }
  return s;
}
