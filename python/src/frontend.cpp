// SPDX-License-Identifier: BSD-3-Clause
/* The frontend with Python callables as callbacks. process() runs without the GIL; the
 * callbacks take it, get a FeatureFrame (features as a FEATURE_DTYPE array, a copy) or a
 * DisparityFrame (the map and the rectified left image as read-only views valid during the
 * callback), and may call predict/reject. An exception raised by a callback is re-raised by
 * process() once the frame is done (the library itself cannot take exceptions). The frame
 * classes and that machinery serve the rig frontend (rig.cpp) too. */
#include <cstring>

#include "stages.h"

struct FeatureFrame {
  int64_t t_ns = 0;
  uint64_t sequence = 0;
  nb::object features, right_missing, R1, R2, times;
  int tracked = 0, detected = 0, lost = 0;
  double f = 0, cx = 0, cy = 0, baseline_m = 0;
};

struct DisparityFrame {
  int64_t t_ns = 0;
  uint64_t sequence = 0;
  nb::object disparity, rectified_left;
  int fractional_bits = 0, min_disparity = 0, max_disparity = 0;
  double f = 0, cx = 0, cy = 0, baseline_m = 0;
};

void CallbackStage::keep(nb::python_error& e) {
  if (!error) error.reset(new nb::python_error(std::move(e)));
}

void CallbackStage::keep(const VfError& e) {
  nb::object cls = nb::module_::import_("viofront._errors").attr("error_class")((int)e.status);
  PyErr_SetObject(cls.ptr(), cls(e.message, (int)e.status).ptr());
  nb::python_error pe;
  keep(pe);
}

void CallbackStage::raise_kept() {
  if (!error) return;
  std::unique_ptr<nb::python_error> e = std::move(error);
  throw *e;
}

struct Frontend : CallbackStage {
  vf_frontend* fe = nullptr;
  using CallbackStage::CallbackStage;
  ~Frontend() { vf_frontend_destroy(fe); }
};

nb::object feature_frame(const vf_feature_frame* fr) {
  FeatureFrame out;
  out.t_ns = fr->t_ns;
  out.sequence = fr->sequence;
  void* data;
  out.features = records_new("FEATURE_DTYPE", (size_t)fr->count, &data);
  if (fr->count) std::memcpy(data, fr->features, (size_t)fr->count * sizeof(vf_feature));
  out.tracked = fr->tracked;
  out.detected = fr->detected;
  out.lost = fr->lost;
  nb::dict missing;
  missing["no_disparity"] = fr->right_missing[VF_RIGHT_NO_DISPARITY];
  missing["occluded"] = fr->right_missing[VF_RIGHT_OCCLUDED];
  missing["outside"] = fr->right_missing[VF_RIGHT_OUTSIDE];
  missing["ambiguous"] = fr->right_missing[VF_RIGHT_AMBIGUOUS];
  missing["low_correlation"] = fr->right_missing[VF_RIGHT_LOW_CORRELATION];
  missing["no_image"] = fr->right_missing[VF_RIGHT_NO_IMAGE];
  out.right_missing = missing;
  out.f = fr->f;
  out.cx = fr->cx;
  out.cy = fr->cy;
  out.baseline_m = fr->baseline_m;
  out.R1 = doubles_out(fr->R1, 3, 3);
  out.R2 = doubles_out(fr->R2, 3, 3);
  nb::dict t;
  t["rectify_ms"] = fr->times.rectify_ms;
  t["pyramid_ms"] = fr->times.pyramid_ms;
  t["track_ms"] = fr->times.track_ms;
  t["detect_ms"] = fr->times.detect_ms;
  t["stereo_ms"] = fr->times.stereo_ms;
  t["features_ms"] = fr->times.features_ms;
  t["total_ms"] = fr->times.total_ms;
  out.times = t;
  return nb::cast(std::move(out));
}

nb::object disparity_frame(const vf_disparity_frame* frame, nb::handle owner, int device) {
  DisparityFrame out;
  out.t_ns = frame->t_ns;
  out.sequence = frame->sequence;
  out.disparity = image_view(frame->disparity, owner, true, device);
  out.rectified_left = image_view(frame->rectified_left, owner, true, device);
  out.fractional_bits = frame->fractional_bits;
  out.min_disparity = frame->min_disparity;
  out.max_disparity = frame->max_disparity;
  out.f = frame->f;
  out.cx = frame->cx;
  out.cy = frame->cy;
  out.baseline_m = frame->baseline_m;
  return nb::cast(std::move(out));
}

static void on_features_cb(const vf_feature_frame* frame, void* user) {
  nb::gil_scoped_acquire gil;
  Frontend* self = static_cast<Frontend*>(user);
  if (self->on_features.is_none()) return; /* cleared by the garbage collector */
  self->guard([&] { self->on_features(feature_frame(frame)); });
}

static void on_disparity_cb(const vf_disparity_frame* frame, void* user) {
  nb::gil_scoped_acquire gil;
  Frontend* self = static_cast<Frontend*>(user);
  if (self->on_disparity.is_none()) return;
  self->guard(
      [&] { self->on_disparity(disparity_frame(frame, nb::find(self), self->ctx->cuda_device)); });
}

static void frontend_init(Frontend* self, Context& ctx, const vf_frontend_config& cfg,
                          nb::handle on_features, nb::handle on_disparity) {
  new (self) Frontend(ctx);
  self->on_features = nb::borrow(on_features);
  self->on_disparity = nb::borrow(on_disparity);
  vf_frontend_callbacks cb{};
  cb.on_features = on_features.is_none() ? nullptr : on_features_cb;
  cb.on_disparity = on_disparity.is_none() ? nullptr : on_disparity_cb;
  cb.user = self;
  vf_status s = vf_frontend_create(ctx.ctx, &cfg, &cb, &self->fe);
  if (s != VF_OK) {
    self->~Frontend();
    check(s);
  }
}

static void frontend_process(Frontend& self, int64_t t_ns, nb::handle left, nb::handle right) {
  ImageArg l = image_in(left, VF_PIXEL_U8, "left");
  ImageArg r = image_in(right, VF_PIXEL_U8, "right");
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_frontend_process(self.fe, t_ns, &l.image, &r.image);
  }
  self.raise_kept();
  check(s, vf_frontend_last_error(self.fe));
}

static nb::tuple load_config(const char* path, const Context* log, const vf_frontend_config* base) {
  vf_frontend_config c = base ? *base : vf_frontend_config_default();
  int has_cameras = 0;
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_frontend_config_load(path, log ? log->ctx : nullptr, &c, &has_cameras);
  }
  check(s);
  return nb::make_tuple(c, has_cameras != 0);
}

void register_frontend(nb::module_& m) {
  nb::class_<FeatureFrame>(m, "FeatureFrame",
                           "One frame's feature records (vf_feature_frame): features is a "
                           "FEATURE_DTYPE array (camera 0 records first, then camera 1; from a "
                           "RigFrontend, rig camera indices).")
      .def_ro("t_ns", &FeatureFrame::t_ns)
      .def_ro("sequence", &FeatureFrame::sequence)
      .def_ro("features", &FeatureFrame::features)
      .def_ro("tracked", &FeatureFrame::tracked)
      .def_ro("detected", &FeatureFrame::detected)
      .def_ro("lost", &FeatureFrame::lost)
      .def_ro("right_missing", &FeatureFrame::right_missing,
              "Left features without a camera-1 record, by reason.")
      .def_ro("f", &FeatureFrame::f)
      .def_ro("cx", &FeatureFrame::cx)
      .def_ro("cy", &FeatureFrame::cy)
      .def_ro("baseline_m", &FeatureFrame::baseline_m)
      .def_ro("R1", &FeatureFrame::R1)
      .def_ro("R2", &FeatureFrame::R2)
      .def_ro("times", &FeatureFrame::times, "Per-stage milliseconds.");
  nb::class_<DisparityFrame>(m, "DisparityFrame",
                             "The disparity map of a frame (vf_disparity_frame). disparity "
                             "(uint16) and rectified_left (uint8) are read-only views of the "
                             "frontend's buffers, valid during the callback: copy to keep.")
      .def_ro("t_ns", &DisparityFrame::t_ns)
      .def_ro("sequence", &DisparityFrame::sequence)
      .def_ro("disparity", &DisparityFrame::disparity)
      .def_ro("rectified_left", &DisparityFrame::rectified_left)
      .def_ro("fractional_bits", &DisparityFrame::fractional_bits)
      .def_ro("min_disparity", &DisparityFrame::min_disparity)
      .def_ro("max_disparity", &DisparityFrame::max_disparity)
      .def_ro("f", &DisparityFrame::f)
      .def_ro("cx", &DisparityFrame::cx)
      .def_ro("cy", &DisparityFrame::cy)
      .def_ro("baseline_m", &DisparityFrame::baseline_m);

  nb::class_<Frontend>(m, "Frontend",
                       "Stereo frames and IMU samples in, features and disparity out through "
                       "callbacks (vf_frontend). Used by one thread at a time.",
                       nb::type_slots(callback_slots<Frontend>))
      .def("__init__", &frontend_init, nb::arg("context"), nb::arg("config"),
           nb::arg("on_features").none() = nb::none(), nb::arg("on_disparity").none() = nb::none(),
           "on_features(FeatureFrame) and on_disparity(DisparityFrame) run inside process(); "
           "without on_disparity no map is handed out.")
      .def("push_imu",
           &push_imu<Frontend, vf_frontend, &Frontend::fe, vf_frontend_push_imu,
                     vf_frontend_last_error>,
           nb::arg("t_ns"), nb::arg("gyro"), nb::arg("acc"),
           "One IMU sample (rad/s, m/s^2, body frame); timestamps increase strictly.")
      .def("process", &frontend_process, nb::arg("t_ns"), nb::arg("left"), nb::arg("right"),
           "Processes one stereo frame (8-bit raw images; host, or device on CUDA) and runs the "
           "callbacks before returning.")
      .def("predict",
           &predict_tracks<Frontend, vf_frontend, &Frontend::fe, vf_frontend_predict,
                           vf_frontend_last_error>,
           nb::arg("ids"), nb::arg("uv"),
           "Predicted raw left pixels (n, 2) of tracks for the next frame; unknown ids ignored.")
      .def("reject",
           &reject_tracks<Frontend, vf_frontend, &Frontend::fe, vf_frontend_reject,
                          vf_frontend_last_error>,
           nb::arg("ids"), "Drops these tracks now (outliers); also from inside a callback.")
      .def("rectification",
           [](const Frontend& self) {
             vf_stereo_rectification r;
             check(vf_frontend_rectification(self.fe, &r), vf_frontend_last_error(self.fe));
             return r;
           })
      .def_prop_ro(
          "imu_lead_ns", [](const Frontend& self) { return vf_frontend_imu_lead_ns(self.fe); },
          "How far past a frame's time (ns) the IMU must reach before process: "
          "imu_timeshift_s when positive, else 0.")
      .def_prop_ro("last_error",
                   [](const Frontend& self) { return vf_frontend_last_error(self.fe); });

  m.def("load_frontend_config", &load_config, nb::arg("path"), nb::arg("log").none() = nb::none(),
        nb::arg("config").none() = nb::none(),
        "Reads a viofront YAML file over the defaults (vf_frontend_config_load); the cameras of "
        "`config` are kept unless the file gives both. Unknown keys are warned about through the "
        "log of context `log`. Returns (config, has_cameras).");
}
