// SPDX-License-Identifier: BSD-3-Clause
/* Stage wrappers shared between source files: each holds its handle and its context's Python
 * object (so the context outlives the stage); the callback machinery of the frontends. */
#ifndef VF_PY_STAGES_H
#define VF_PY_STAGES_H

#include <memory>

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

/* A stage whose results go to Python callables (on_features, on_disparity) from inside a call
 * made without the GIL. Each callback takes the GIL and runs through guard(), which keeps the
 * first exception it raises; raise_kept() re-raises it once the call is done (the library itself
 * cannot take exceptions). */
struct CallbackStage : Stage {
  nb::object on_features, on_disparity;
  std::unique_ptr<nb::python_error> error;
  using Stage::Stage;
  template <typename F>
  void guard(F&& call) {
    try {
      call();
    } catch (nb::python_error& e) {
      keep(e);
    } catch (const VfError& e) {
      keep(e);
    }
  }
  void keep(nb::python_error& e);
  void keep(const VfError& e);
  void raise_kept();
};

/* Garbage-collector support for a CallbackStage type T: a callback that refers to its stage (to
 * call predict or reject) makes a reference cycle, which the collector can only break by seeing
 * through the callbacks. */
template <typename T>
int callbacks_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  CallbackStage* s = nb::inst_ptr<T>(self);
  Py_VISIT(s->on_features.ptr());
  Py_VISIT(s->on_disparity.ptr());
  Py_VISIT(s->ctx_obj.ptr());
  return 0;
}

template <typename T>
int callbacks_clear(PyObject* self) {
  CallbackStage* s = nb::inst_ptr<T>(self);
  s->on_features = nb::none();
  s->on_disparity = nb::none();
  return 0;
}

template <typename T>
PyType_Slot callback_slots[] = {{Py_tp_traverse, (void*)callbacks_traverse<T>},
                                {Py_tp_clear, (void*)callbacks_clear<T>},
                                {0, nullptr}};

/* push_imu of a frontend wrapper W whose handle (member Field) takes samples through Push. */
template <typename W, typename H, H* W::*Field,
          vf_status (*Push)(H*, int64_t, const double*, const double*),
          const char* (*Last)(const H*)>
void push_imu(W& self, int64_t t_ns, nb::handle gyro, nb::handle acc) {
  double g[3], a[3];
  doubles_in(gyro, g, 3, "gyro");
  doubles_in(acc, a, 3, "acc");
  check(Push(self.*Field, t_ns, g, a), Last(self.*Field));
}

/* The back channel of a frontend wrapper W (handle member Field): predictions (ids with an
 * (n, 2) array of pixels) through Predict, rejections through Reject. */
template <typename W, typename H, H* W::*Field,
          vf_status (*Predict)(H*, const uint64_t*, const float*, int),
          const char* (*Last)(const H*)>
void predict_tracks(W& self, nb::handle ids, nb::handle uv) {
  uint64_t* id = nullptr;
  size_t n = 0, m2 = 0;
  float* p = nullptr;
  nb::object k1 = ids_in(ids, "ids", &id, &n);
  nb::object k2 = floats_in(uv, "uv", &p, &m2, 2);
  if (n != m2) fail(VF_ERR_INVALID_ARG, "ids and uv must have the same length");
  check(Predict(self.*Field, id, p, (int)n), Last(self.*Field));
}

template <typename W, typename H, H* W::*Field, vf_status (*Reject)(H*, const uint64_t*, int),
          const char* (*Last)(const H*)>
void reject_tracks(W& self, nb::handle ids) {
  uint64_t* id = nullptr;
  size_t n = 0;
  nb::object k = ids_in(ids, "ids", &id, &n);
  check(Reject(self.*Field, id, (int)n), Last(self.*Field));
}

/* A frame of the frontend as a FeatureFrame (the records copied) or a DisparityFrame (read-only
 * views of the frontend's buffers, kept alive by `owner`, valid during the callback). */
nb::object feature_frame(const vf_feature_frame* frame);
nb::object disparity_frame(const vf_disparity_frame* frame, nb::handle owner, int device);

struct EurocReader {
  vf_euroc* r = nullptr;
  nb::object log_obj;
  ~EurocReader() {
    nb::gil_scoped_release release; /* closing joins the prefetch thread, which may log */
    vf_euroc_close(r);
  }
};

struct Pyramid : Stage {
  vf_pyramid* p = nullptr;
  using Stage::Stage;
  ~Pyramid() { vf_pyramid_destroy(p); }
};

#endif
