// SPDX-License-Identifier: BSD-3-Clause
/* Camera rigs (vf_rig: a plain value, read from a Kalibr camchain file or built in code) and the
 * rig frontend (vf_rig_frontend) with Python callables as callbacks, as the stereo Frontend has
 * them (frontend.cpp): on_features(unit, FeatureFrame) and on_disparity(pair, DisparityFrame) run
 * inside process(), on the calling thread, in unit order; an exception one raises is re-raised
 * by process() once the image set is done. */
#include <nanobind/stl/optional.h>

#include <optional>
#include <string>
#include <vector>

#include "stages.h"

/* A getter of the list of value(rig, camera) over the rig's cameras. */
template <typename F>
static auto per_camera(F value) {
  return [value](const vf_rig& rig) {
    nb::list out;
    for (int i = 0; i < rig.camera_count; ++i) out.append(value(rig, i));
    return out;
  };
}

static nb::list camera_overlaps(const vf_rig& rig, int i) {
  nb::list cams;
  for (int j = 0; j < VF_RIG_MAX_CAMERAS; ++j)
    if (rig.overlaps[i] & (1u << j)) cams.append(j);
  return cams;
}

static vf_rig load_camchain(const char* path, const Context* log) {
  vf_rig rig;
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_rig_load_camchain(path, log ? log->ctx : nullptr, &rig);
  }
  check(s);
  return rig;
}

static vf_rig parse_camchain(const std::string& text, const char* name, const Context* log) {
  vf_rig rig;
  check(vf_rig_parse_camchain(text.data(), text.size(), name, log ? log->ctx : nullptr, &rig));
  return rig;
}

static std::string rig_repr(const vf_rig& rig) {
  std::string out = "Rig(names=[";
  for (int i = 0; i < rig.camera_count; ++i)
    out += (i ? ", '" : "'") + std::string(rig.names[i]) + "'";
  out += "], pairs=[";
  for (int p = 0; p < rig.pair_count; ++p)
    out += (p ? ", (" : "(") + std::to_string(rig.pairs[p].left) + ", " +
           std::to_string(rig.pairs[p].right) + ")";
  return out + "])";
}

static void register_rig_class(nb::module_& m) {
  nb::class_<vf_rig>(m, "Rig",
                     "A camera rig (vf_rig, a plain value): 1 to RIG_MAX_CAMERAS calibrated "
                     "cameras with names and poses in the body frame (Camera.T_BS), and the "
                     "stereo pairs among them. Rig() is empty; add_camera and add_pair build one, "
                     "Rig.load_camchain reads a Kalibr camchain file (docs/rig.md).")
      .def("__init__", [](vf_rig* self) { new (self) vf_rig(vf_rig_default()); })
      .def_static("load_camchain", &load_camchain, nb::arg("path"),
                  nb::arg("log").none() = nb::none(),
                  "Reads a Kalibr camchain YAML file with the optional stereo_pairs key "
                  "(vf_rig_load_camchain). Errors name the file, the line and the key; unknown "
                  "keys are warned about through the log of context `log`.")
      .def_static("parse_camchain", &parse_camchain, nb::arg("text"), nb::arg("name") = "<string>",
                  nb::arg("log").none() = nb::none(),
                  "The same from text; `name` stands for the file in messages.")
      .def_static(
          "from_euroc",
          [](const EurocReader& reader) {
            vf_rig rig;
            check(vf_rig_from_euroc(reader.r, &rig), vf_euroc_last_error(reader.r));
            return rig;
          },
          nb::arg("reader"), "The two cameras of an open EuRoC sequence with the pair (0, 1).")
      .def(
          "add_camera",
          [](vf_rig& rig, const vf_camera& camera, const std::optional<std::string>& name) {
            check(vf_rig_add_camera(&rig, name ? name->c_str() : nullptr, &camera));
            return rig.camera_count - 1;
          },
          nb::arg("camera"), nb::arg("name").none() = nb::none(),
          "Appends a copy of the camera (checked) under `name` (None: 'cam<index>'); returns its "
          "index.")
      .def(
          "add_pair",
          [](vf_rig& rig, int left, int right) { check(vf_rig_add_pair(&rig, left, right)); },
          nb::arg("left"), nb::arg("right"),
          "Appends the stereo pair (left: tracked, right: gives depth); both in the rig, in no "
          "other pair, their centres apart.")
      .def(
          "check", [](const vf_rig& rig) { check(vf_rig_check(&rig)); },
          "Raises InvalidArgumentError naming the camera or pair and the field.")
      .def_prop_ro("cameras", per_camera([](const vf_rig& rig, int i) { return rig.cameras[i]; }),
                   "The cameras (copies), in rig order.")
      .def_prop_ro("names", per_camera([](const vf_rig& rig, int i) { return rig.names[i]; }),
                   "The cameras' names.")
      .def_prop_ro(
          "pairs",
          [](const vf_rig& rig) {
            nb::list out;
            for (int p = 0; p < rig.pair_count; ++p)
              out.append(nb::make_tuple(rig.pairs[p].left, rig.pairs[p].right));
            return out;
          },
          "The stereo pairs as (left, right) camera indices.")
      .def_prop_ro("timeshift_s",
                   per_camera([](const vf_rig& rig, int i) { return rig.timeshift_s[i]; }),
                   "Kalibr's timeshift_cam_imu per camera: t_imu = t_cam + shift.")
      .def_prop_ro("overlaps", per_camera(camera_overlaps),
                   "Per camera, the cameras the file's cam_overlaps lists for it.")
      .def_prop_ro(
          "imu_extrinsics", [](const vf_rig& rig) { return rig.imu_extrinsics != 0; },
          "True: the body frame is the IMU's (T_cam_imu given); False: camera 0's.")
      .def("__len__", [](const vf_rig& rig) { return rig.camera_count; })
      .def("__repr__", &rig_repr)
      .def("__copy__", [](const vf_rig& rig) { return vf_rig(rig); })
      .def(
          "__deepcopy__", [](const vf_rig& rig, nb::handle) { return vf_rig(rig); },
          nb::arg("memo"));
  m.attr("RIG_MAX_CAMERAS") = VF_RIG_MAX_CAMERAS;
  m.attr("RIG_FRONTEND_ID_SHIFT") = VF_RIG_FRONTEND_ID_SHIFT;
}

struct RigFrontend : CallbackStage {
  vf_rig_frontend* fe = nullptr;
  vf_rig rig{};
  using CallbackStage::CallbackStage;
  ~RigFrontend() { vf_rig_frontend_destroy(fe); }
};

static void on_features_cb(int unit, const vf_feature_frame* frame, void* user) {
  nb::gil_scoped_acquire gil;
  RigFrontend* self = static_cast<RigFrontend*>(user);
  if (self->on_features.is_none()) return; /* cleared by the garbage collector */
  self->guard([&] { self->on_features(unit, feature_frame(frame)); });
}

static void on_disparity_cb(int pair, const vf_disparity_frame* frame, void* user) {
  nb::gil_scoped_acquire gil;
  RigFrontend* self = static_cast<RigFrontend*>(user);
  if (self->on_disparity.is_none()) return;
  self->guard([&] {
    self->on_disparity(pair, disparity_frame(frame, nb::find(self), self->ctx->cuda_device));
  });
}

static void rig_frontend_init(RigFrontend* self, Context& ctx, const vf_rig& rig,
                              const vf_frontend_config& cfg, nb::handle on_features,
                              nb::handle on_disparity) {
  new (self) RigFrontend(ctx);
  self->rig = rig;
  self->on_features = nb::borrow(on_features);
  self->on_disparity = nb::borrow(on_disparity);
  vf_rig_frontend_callbacks cb{};
  cb.on_features = on_features.is_none() ? nullptr : on_features_cb;
  cb.on_disparity = on_disparity.is_none() ? nullptr : on_disparity_cb;
  cb.user = self;
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_rig_frontend_create(ctx.ctx, &rig, &cfg, &self->fe);
  }
  if (s == VF_OK) s = vf_rig_frontend_set_callbacks(self->fe, &cb);
  if (s != VF_OK) {
    self->~RigFrontend();
    check(s);
  }
}

static void rig_frontend_process(RigFrontend& self, int64_t t_ns, nb::handle images) {
  const int n = self.rig.camera_count;
  if (nb::len(images) != (size_t)n)
    fail(VF_ERR_INVALID_ARG, "images must hold one entry per camera of the rig (" +
                                 std::to_string(n) + "), got " + std::to_string(nb::len(images)));
  std::vector<ImageArg> args((size_t)n);
  std::vector<const vf_image*> set((size_t)n, nullptr);
  for (int c = 0; c < n; ++c) {
    nb::object item = images[c];
    if (item.is_none()) continue;
    std::string what = "images[" + std::to_string(c) + "]";
    args[(size_t)c] = image_in(item, VF_PIXEL_U8, what.c_str());
    set[(size_t)c] = &args[(size_t)c].image;
  }
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_rig_frontend_process(self.fe, t_ns, set.data());
  }
  self.raise_kept();
  check(s, vf_rig_frontend_last_error(self.fe));
}

static nb::list rig_frontend_units(const RigFrontend& self) {
  nb::list out;
  for (int k = 0; k < vf_rig_frontend_unit_count(self.fe); ++k) {
    vf_rig_unit u;
    check(vf_rig_frontend_unit(self.fe, k, &u), vf_rig_frontend_last_error(self.fe));
    out.append(nb::make_tuple(u.camera, u.right_camera, u.pair));
  }
  return out;
}

static void register_rig_frontend(nb::module_& m) {
  nb::class_<RigFrontend>(m, "RigFrontend",
                          "One frontend over a camera rig (vf_rig_frontend): one unit per stereo "
                          "pair and one per camera in no pair (units: pairs first, pair p is unit "
                          "p), synchronized image sets and IMU samples in, features and disparity "
                          "out through callbacks. Used by one thread at a time.",
                          nb::type_slots(callback_slots<RigFrontend>))
      .def("__init__", &rig_frontend_init, nb::arg("context"), nb::arg("rig"), nb::arg("config"),
           nb::arg("on_features").none() = nb::none(), nb::arg("on_disparity").none() = nb::none(),
           "config serves every unit, its cam0 and cam1 replaced by the unit's cameras (a mono "
           "unit has stereo and camera-1 records off). on_features(unit, FeatureFrame) and "
           "on_disparity(pair, DisparityFrame) run inside process(); without on_disparity no map "
           "is handed out. A FeatureFrame's features carry rig camera indices in 'camera' and "
           "ids unique across the rig (the unit from bit RIG_FRONTEND_ID_SHIFT up).")
      .def("push_imu",
           &push_imu<RigFrontend, vf_rig_frontend, &RigFrontend::fe, vf_rig_frontend_add_imu,
                     vf_rig_frontend_last_error>,
           nb::arg("t_ns"), nb::arg("gyro"), nb::arg("acc"),
           "One IMU sample (rad/s, m/s^2, body frame) for every unit; timestamps increase "
           "strictly.")
      .def("process", &rig_frontend_process, nb::arg("t_ns"), nb::arg("images"),
           "Processes one synchronized image set: one 8-bit raw image per camera of the rig "
           "(host, or device on CUDA), None for a camera without one this time (its unit is "
           "skipped with a warning; its tracks go on at its next frame). Every image and the "
           "time are checked before any unit runs; the callbacks run before returning.")
      .def(
          "predict",
          &predict_tracks<RigFrontend, vf_rig_frontend, &RigFrontend::fe, vf_rig_frontend_predict,
                          vf_rig_frontend_last_error>,
          nb::arg("ids"), nb::arg("uv"),
          "Predicted raw pixels (n, 2) of the tracked cameras for tracks named by rig ids, for the "
          "next frame; an id of no unit refuses the whole list.")
      .def("reject",
           &reject_tracks<RigFrontend, vf_rig_frontend, &RigFrontend::fe, vf_rig_frontend_reject,
                          vf_rig_frontend_last_error>,
           nb::arg("ids"), "Drops these tracks (rig ids) now; also from inside a callback.")
      .def_prop_ro(
          "rig", [](const RigFrontend& self) { return self.rig; }, "A copy of the rig.")
      .def_prop_ro("units", &rig_frontend_units,
                   "Per unit: (tracked camera, right camera or -1, pair or -1).")
      .def_prop_ro(
          "imu_lead_ns",
          [](const RigFrontend& self) { return vf_rig_frontend_imu_lead_ns(self.fe); },
          "How far past a set's time (ns) the IMU must reach before process: the largest "
          "camera time shift, 0 when none is positive.")
      .def_prop_ro("last_error",
                   [](const RigFrontend& self) { return vf_rig_frontend_last_error(self.fe); });
}

void register_rig(nb::module_& m) {
  register_rig_class(m);
  register_rig_frontend(m);
}
