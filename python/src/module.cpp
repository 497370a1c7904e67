// SPDX-License-Identifier: BSD-3-Clause
/* The module viofront._viofront: status checking and the exception translator, the enums, the
 * context (backend choice, log callback into Python) and version queries. */
#include <cstddef>

#include "common.h"

void fail(vf_status status, const std::string& message) { throw VfError{status, message}; }

void check(vf_status status, const char* handle_message) {
  if (status == VF_OK) return;
  const char* msg = vf_last_error_message();
  if ((!msg || !*msg) && handle_message) msg = handle_message;
  if (!msg || !*msg) msg = vf_status_str(status);
  throw VfError{status, msg};
}

Context::~Context() { vf_context_destroy(ctx); }

/* Runs on the thread that made the call (with or without the GIL held); a callback that raises
 * is reported as unraisable: the library cannot take an exception. */
static void log_trampoline(vf_log_level level, const char* message, void* user) {
  nb::gil_scoped_acquire gil;
  Context* self = static_cast<Context*>(user);
  if (self->log.is_none()) return;
  try {
    self->log(level, message);
  } catch (nb::python_error& e) {
    e.discard_as_unraisable("viofront log callback");
  }
}

static vf_backend backend_from(nb::handle h) {
  if (nb::isinstance<nb::str>(h)) {
    std::string s = nb::cast<std::string>(h);
    if (s == "auto") return VF_BACKEND_AUTO;
    if (s == "cpu") return VF_BACKEND_CPU;
    if (s == "cuda") return VF_BACKEND_CUDA;
    fail(VF_ERR_INVALID_ARG, "backend must be 'auto', 'cpu' or 'cuda', not '" + s + "'");
  }
  return nb::cast<vf_backend>(h);
}

static void context_init(Context* self, nb::handle config, nb::handle backend, nb::handle log,
                         nb::handle log_level) {
  new (self) Context();
  vf_context_config cc =
      config.is_none() ? vf_context_config_default() : nb::cast<vf_context_config>(config);
  if (!backend.is_none()) cc.backend = backend_from(backend);
  if (!log_level.is_none()) cc.log_level = nb::cast<vf_log_level>(log_level);
  if (nb::isinstance<nb::str>(log) && nb::cast<std::string>(log) == "logging") {
    self->log = nb::module_::import_("viofront._logging").attr("to_logging");
  } else if (!log.is_none()) {
    if (!PyCallable_Check(log.ptr()))
      fail(VF_ERR_INVALID_ARG, "log must be 'logging', None or a callable");
    self->log = nb::borrow(log);
  } else {
    self->log = nb::none();
  }
  if (!self->log.is_none()) {
    cc.log_fn = log_trampoline;
    cc.log_user = self;
    if (cc.log_level == VF_LOG_SILENT) cc.log_level = VF_LOG_WARN;
  }
  self->cuda_device = cc.cuda_device;
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_context_create(&cc, &self->ctx);
  }
  if (s != VF_OK) {
    self->~Context(); /* a failed __init__ leaves the instance unconstructed */
    check(s);
  }
}

static void register_enums(nb::module_& m) {
  nb::enum_<vf_status>(m, "Status", "Result code of a viofront call (vf_status).")
      .value("OK", VF_OK)
      .value("INVALID_ARG", VF_ERR_INVALID_ARG)
      .value("NOMEM", VF_ERR_NOMEM)
      .value("IO", VF_ERR_IO)
      .value("FORMAT", VF_ERR_FORMAT)
      .value("CUDA", VF_ERR_CUDA)
      .value("NO_DEVICE", VF_ERR_NO_DEVICE)
      .value("UNSUPPORTED", VF_ERR_UNSUPPORTED)
      .value("STATE", VF_ERR_STATE)
      .value("TIMESTAMP", VF_ERR_TIMESTAMP);
  nb::enum_<vf_backend>(m, "Backend", "Where the work runs (AUTO: CUDA when a device is present).")
      .value("AUTO", VF_BACKEND_AUTO)
      .value("CPU", VF_BACKEND_CPU)
      .value("CUDA", VF_BACKEND_CUDA);
  nb::enum_<vf_log_level>(m, "LogLevel", "Level of a library message; SILENT as a threshold.")
      .value("SILENT", VF_LOG_SILENT)
      .value("ERROR", VF_LOG_ERROR)
      .value("WARN", VF_LOG_WARN)
      .value("INFO", VF_LOG_INFO)
      .value("DEBUG", VF_LOG_DEBUG);
  nb::enum_<vf_memory>(m, "Memory", "Host or CUDA device memory.")
      .value("HOST", VF_MEMORY_HOST)
      .value("DEVICE", VF_MEMORY_DEVICE);
  nb::enum_<vf_fast_score>(m, "FastScore", "Response of a FAST corner.")
      .value("SAD_CIRCLE", VF_FAST_SCORE_SAD_CIRCLE)
      .value("SAD_ARC", VF_FAST_SCORE_SAD_ARC)
      .value("MAX_THRESHOLD", VF_FAST_SCORE_MAX_THRESHOLD);
  nb::enum_<vf_template_mode>(m, "TemplateMode", "Where the tracker takes its templates from.")
      .value("PREVIOUS_FRAME", VF_TEMPLATE_PREVIOUS_FRAME)
      .value("FIRST_OBSERVATION", VF_TEMPLATE_FIRST_OBSERVATION);
  nb::enum_<vf_track_status>(m, "TrackStatus", "Outcome of one tracked feature.")
      .value("CONVERGED", VF_TRACK_CONVERGED)
      .value("OUT_OF_IMAGE", VF_TRACK_OUT_OF_IMAGE)
      .value("DIVERGED", VF_TRACK_DIVERGED)
      .value("RESIDUAL_TOO_LARGE", VF_TRACK_RESIDUAL_TOO_LARGE)
      .value("INVALID", VF_TRACK_INVALID)
      .value("INCONSISTENT", VF_TRACK_INCONSISTENT);
  nb::enum_<vf_stereo_method>(m, "StereoMethod", "Dense stereo method.")
      .value("SGM", VF_STEREO_SGM)
      .value("ZNCC_FASTDT", VF_STEREO_ZNCC_FASTDT)
      .value("CYCLOPS2", VF_STEREO_CYCLOPS2)
      .value("HSGM", VF_STEREO_HSGM)
      .value("CENSUS_FASTDT", VF_STEREO_CENSUS_FASTDT)
      .value("ZNCC_SGM", VF_STEREO_ZNCC_SGM);
  nb::enum_<vf_frontend_stereo_mode>(m, "StereoMode",
                                     "How the frontend finds each feature's stereo match.")
      .value("DENSE", VF_FRONTEND_STEREO_DENSE)
      .value("SPARSE", VF_FRONTEND_STEREO_SPARSE);
  nb::enum_<vf_census_type>(m, "CensusType", "Census window of the SGM cost.")
      .value("CS_9X7", VF_CENSUS_CS_9X7)
      .value("FULL_9X7", VF_CENSUS_FULL_9X7);
  nb::enum_<vf_zncc_sums>(m, "ZnccSums", "How ZNCC window sums are made.")
      .value("AUTO", VF_ZNCC_SUMS_AUTO)
      .value("DIRECT", VF_ZNCC_SUMS_DIRECT)
      .value("INTEGRAL", VF_ZNCC_SUMS_INTEGRAL);
  nb::enum_<vf_cyclops_weight>(m, "CyclopsWeight", "Cyclops2 weight function.")
      .value("MD", VF_CYCLOPS_MD)
      .value("RMA", VF_CYCLOPS_RMA)
      .value("MNS", VF_CYCLOPS_MNS);
  nb::enum_<vf_cyclops_memory>(m, "CyclopsMemory", "Cyclops2 CUDA kernel variant.")
      .value("SHARED_ROW", VF_CYCLOPS_SHARED_ROW)
      .value("GLOBAL", VF_CYCLOPS_GLOBAL);
  nb::enum_<vf_rectify_focal_rule>(m, "FocalRule", "Focal length rule of the rectification.")
      .value("OPENCV4", VF_RECTIFY_FOCAL_OPENCV4)
      .value("OPENCV2", VF_RECTIFY_FOCAL_OPENCV2);
  nb::enum_<vf_distortion_model>(m, "Distortion", "Camera distortion model.")
      .value("NONE", VF_DISTORTION_NONE)
      .value("RADTAN", VF_DISTORTION_RADTAN)
      .value("EQUIDISTANT", VF_DISTORTION_EQUIDISTANT);
  nb::enum_<vf_right_missing>(m, "RightMissing", "Why a left feature has no camera-1 record.")
      .value("NO_DISPARITY", VF_RIGHT_NO_DISPARITY)
      .value("OCCLUDED", VF_RIGHT_OCCLUDED)
      .value("OUTSIDE", VF_RIGHT_OUTSIDE)
      .value("AMBIGUOUS", VF_RIGHT_AMBIGUOUS)
      .value("LOW_CORRELATION", VF_RIGHT_LOW_CORRELATION)
      .value("NO_IMAGE", VF_RIGHT_NO_IMAGE);
}

/* The log callable may refer back to its context: let the garbage collector see through it. */
static int context_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  Py_VISIT(nb::inst_ptr<Context>(self)->log.ptr());
  return 0;
}

static int context_clear(PyObject* self) {
  nb::inst_ptr<Context>(self)->log = nb::none();
  return 0;
}

static PyType_Slot context_slots[] = {
    {Py_tp_traverse, (void*)context_traverse}, {Py_tp_clear, (void*)context_clear}, {0, nullptr}};

static void register_context(nb::module_& m) {
  nb::class_<vf_context_config>(m, "ContextConfig",
                                "Backend, CUDA device and stream, CPU threads, log threshold "
                                "(vf_context_config); defaults from vf_context_config_default().")
      .def("__init__",
           [](vf_context_config* c) { new (c) vf_context_config(vf_context_config_default()); })
      .def_rw("backend", &vf_context_config::backend)
      .def_rw("cuda_device", &vf_context_config::cuda_device)
      .def_prop_rw(
          "cuda_stream", [](const vf_context_config& c) { return (uintptr_t)c.cuda_stream; },
          [](vf_context_config& c, uintptr_t s) { c.cuda_stream = (void*)s; },
          "A cudaStream_t of the caller's as an integer (e.g. torch.cuda.current_stream()."
          "cuda_stream, cupy.cuda.get_current_stream().ptr), or 0: the context makes one.")
      .def_rw("cpu_threads", &vf_context_config::cpu_threads)
      .def_rw("log_level", &vf_context_config::log_level);

  nb::class_<Context>(m, "Context",
                      "The backend (CPU or CUDA), its device and stream, CPU threads and the log "
                      "callback. Every stage is made from a context and keeps it alive.",
                      nb::type_slots(context_slots))
      .def("__init__", &context_init, nb::arg("config").none() = nb::none(), nb::kw_only(),
           nb::arg("backend").none() = nb::none(), nb::arg("log").none() = "logging",
           nb::arg("log_level").none() = nb::none(),
           "config: a ContextConfig (None: the defaults). backend: 'auto', 'cpu', 'cuda' or a "
           "Backend, over the config's. log: 'logging' (the 'viofront' logger), a callable "
           "log(level: LogLevel, message: str), or None (silent). log_level: the threshold "
           "(default WARN).")
      .def_prop_ro(
          "backend", [](const Context& c) { return vf_context_backend(c.ctx); },
          "The backend in use (never AUTO).")
      .def_prop_ro(
          "device_info",
          [](const Context& c) {
            vf_device_info info;
            check(vf_context_device_info(c.ctx, &info), vf_context_last_error(c.ctx));
            nb::dict d;
            d["name"] = info.name;
            d["compute_capability"] = nb::make_tuple(info.compute_major, info.compute_minor);
            d["multiprocessors"] = info.multiprocessors;
            d["cuda_runtime_version"] = info.cuda_runtime_version;
            d["cuda_driver_version"] = info.cuda_driver_version;
            return d;
          },
          "Device name, compute capability, SMs (or CPU threads), CUDA versions.")
      .def_prop_ro(
          "cuda_stream", [](const Context& c) { return (uintptr_t)vf_context_cuda_stream(c.ctx); },
          "The CUDA stream of this context's work as an integer (0 on the CPU).")
      .def_prop_ro("cuda_device", [](const Context& c) { return c.cuda_device; })
      .def(
          "synchronize",
          [](Context& c) {
            vf_status s;
            {
              nb::gil_scoped_release release;
              s = vf_context_synchronize(c.ctx);
            }
            check(s, vf_context_last_error(c.ctx));
          },
          "Waits until all queued work is done.")
      .def_prop_ro("last_error", [](const Context& c) { return vf_context_last_error(c.ctx); });
}

NB_MODULE(_viofront, m) {
  m.doc() = "viofront C library bindings (use the viofront package).";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const VfError& e) {
      nb::object cls = nb::module_::import_("viofront._errors").attr("error_class")((int)e.status);
      nb::object exc = cls(e.message, (int)e.status);
      PyErr_SetObject(cls.ptr(), exc.ptr());
    }
  });
  register_enums(m);
  register_context(m);
  m.def("version", &vf_version, "Version of the linked C library, e.g. '0.1.0'.");
  m.def(
      "built_with_cuda", []() { return vf_built_with_cuda() != 0; },
      "True when the library was built with the CUDA backend.");
  m.def("cuda_device_count", &vf_cuda_device_count, "Usable CUDA devices (0 without CUDA).");
  m.def("status_str", &vf_status_str, nb::arg("status"), "Short description of a status.");
  m.def("last_error_message", &vf_last_error_message,
        "The calling thread's last viofront error message ('' when none).");
  m.def("backend_name", &vf_backend_name, nb::arg("backend"));
  m.def("track_status_str", &vf_track_status_str, nb::arg("status"));
  register_arrays(m);
  register_configs(m);
  register_camera(m);
  register_stages(m);
  register_stereo(m);
  register_frontend(m);
  register_euroc(m);
  register_rig(m);
}
