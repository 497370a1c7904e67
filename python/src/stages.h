// SPDX-License-Identifier: BSD-3-Clause
/* Stage wrappers shared between source files: each holds its handle and its context's Python
 * object (so the context outlives the stage). */
#ifndef VF_PY_STAGES_H
#define VF_PY_STAGES_H

#include "common.h"

struct Stage {
  nb::object ctx_obj;
  Context* ctx = nullptr;
  explicit Stage(Context& c) : ctx_obj(nb::find(&c)), ctx(&c) {}
  /* After queuing CUDA work: wait, so that the caller's arrays may go and results are ready. */
  void finish(vf_status s, const char* (*last)(const void*), const void* handle) const;
};

/* __init__ of a stage wrapper W: creates its handle (member Field) with Create from the config,
 * or from Default() when the config is None. */
template <typename W, typename H, typename C, vf_status (*Create)(vf_context*, const C*, H**),
          C (*Default)(void), H* W::*Field>
void stage_init(W* self, Context& ctx, const C* cfg) {
  C c = cfg ? *cfg : Default();
  H* h = nullptr;
  check(Create(ctx.ctx, &c, &h));
  new (self) W(ctx);
  self->*Field = h;
}

struct Pyramid : Stage {
  vf_pyramid* p = nullptr;
  using Stage::Stage;
  ~Pyramid() { vf_pyramid_destroy(p); }
};

#endif
