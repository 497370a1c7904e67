// SPDX-License-Identifier: BSD-3-Clause
/* EuRoC MAV reader: calibration, the time-ordered IMU/stereo event stream (a Python iterator),
 * pairs loaded on demand and the ground truth. Stream images are copied out of the reader's
 * buffers by default (they are reused by the next event); copy=False gives read-only views. */
#include "fields.h"
#include "stages.h"

#define RW(T, f) def_rw(#f, &T::f)

struct ImuEvent {
  int64_t t_ns = 0;
  nb::object gyro, acc;
};

struct StereoEvent {
  int64_t t_ns = 0;
  int pair = 0;
  nb::object left, right;
};

static nb::object image_copy(const vf_image& img) {
  ImageArg out = image_new(img.width, img.height, img.format, VF_MEMORY_HOST, 0);
  check(vf_image_copy(&img, &out.image));
  return out.keep;
}

/* A new host image made by the library (vf_image_alloc), handed to NumPy without a copy. */
static nb::object adopt(vf_image img) {
  vf_image* owned = new vf_image(img);
  nb::capsule cap(owned, [](void* p) noexcept {
    vf_image_free(static_cast<vf_image*>(p));
    delete static_cast<vf_image*>(p);
  });
  return image_view(img, cap, false, 0);
}

static nb::object euroc_next(nb::handle self_h, bool copy) {
  EurocReader& self = nb::cast<EurocReader&>(self_h);
  vf_euroc_event ev;
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_euroc_next(self.r, &ev);
  }
  check(s, vf_euroc_last_error(self.r));
  if (ev.type == VF_EUROC_END) return nb::none();
  if (ev.type == VF_EUROC_IMU) {
    ImuEvent e;
    e.t_ns = ev.t_ns;
    e.gyro = doubles_out(ev.imu.gyro, 3, 1);
    e.acc = doubles_out(ev.imu.acc, 3, 1);
    return nb::cast(std::move(e));
  }
  StereoEvent e;
  e.t_ns = ev.t_ns;
  e.pair = ev.pair;
  e.left = copy ? image_copy(ev.left) : image_view(ev.left, self_h, true, 0);
  e.right = copy ? image_copy(ev.right) : image_view(ev.right, self_h, true, 0);
  return nb::cast(std::move(e));
}

static nb::dict info_dict(const vf_euroc_info& i) {
  nb::dict d;
  d["stereo_pairs"] = i.stereo_pairs;
  d["cam_rows"] = nb::make_tuple(i.cam_rows[0], i.cam_rows[1]);
  d["cam_missing"] = nb::make_tuple(i.cam_missing[0], i.cam_missing[1]);
  d["cam_unpaired"] = nb::make_tuple(i.cam_unpaired[0], i.cam_unpaired[1]);
  d["imu_rows"] = i.imu_rows;
  d["imu_replayed"] = i.imu_replayed;
  d["imu_skipped"] = i.imu_skipped;
  d["groundtruth_rows"] = i.groundtruth_rows;
  d["t_first_ns"] = i.t_first_ns;
  d["t_last_ns"] = i.t_last_ns;
  return d;
}

void register_euroc(nb::module_& m) {
  auto st = nb::class_<vf_euroc_state>(m, "EurocState",
                                       "A ground-truth state: position, orientation (w x y z), "
                                       "velocity, biases (vf_euroc_state).");
  st.def(nb::init<>()).RW(vf_euroc_state, t_ns);
  def_array(st, "p", &vf_euroc_state::p, 1, 3, "Position, m.");
  def_array(st, "q", &vf_euroc_state::q, 1, 4, "Orientation body -> world, w x y z.");
  def_array(st, "v", &vf_euroc_state::v, 1, 3, "Velocity, m/s.");
  def_array(st, "bg", &vf_euroc_state::bg, 1, 3, "Gyroscope bias, rad/s.");
  def_array(st, "ba", &vf_euroc_state::ba, 1, 3, "Accelerometer bias, m/s^2.");

  nb::class_<ImuEvent>(m, "ImuEvent", "An IMU sample of the stream.")
      .def_ro("t_ns", &ImuEvent::t_ns)
      .def_ro("gyro", &ImuEvent::gyro)
      .def_ro("acc", &ImuEvent::acc);
  nb::class_<StereoEvent>(m, "StereoEvent", "A stereo pair of the stream (8-bit images).")
      .def_ro("t_ns", &StereoEvent::t_ns)
      .def_ro("pair", &StereoEvent::pair)
      .def_ro("left", &StereoEvent::left)
      .def_ro("right", &StereoEvent::right);

  nb::class_<EurocReader>(m, "EurocReader",
                          "EuRoC MAV ASL folder reader (vf_euroc). Iterating gives ImuEvent and "
                          "StereoEvent in time order (IMU first at equal times).")
      .def(
          "__init__",
          [](EurocReader* self, const char* path, const vf_euroc_config* cfg, nb::handle log) {
            vf_euroc_config c = cfg ? *cfg : vf_euroc_config_default();
            const vf_context* lc = log.is_none() ? nullptr : nb::cast<Context&>(log).ctx;
            vf_euroc* r = nullptr;
            vf_status s;
            {
              nb::gil_scoped_release release;
              s = vf_euroc_open(path, &c, lc, &r);
            }
            check(s);
            new (self) EurocReader();
            self->r = r;
            self->log_obj = nb::borrow(log);
          },
          nb::arg("path"), nb::arg("config").none() = nb::none(),
          nb::arg("log").none() = nb::none(),
          "path: the folder holding mav0 (or mav0). log: a Context whose log callback gets the "
          "reader's warnings (e.g. images listed but missing).")
      .def_prop_ro("info",
                   [](const EurocReader& r) {
                     vf_euroc_info i;
                     check(vf_euroc_get_info(r.r, &i), vf_euroc_last_error(r.r));
                     return info_dict(i);
                   })
      .def(
          "camera",
          [](const EurocReader& r, int which) {
            vf_camera c;
            check(vf_euroc_camera(r.r, which, &c), vf_euroc_last_error(r.r));
            return c;
          },
          nb::arg("which"), "Calibration of camera 0 or 1.")
      .def("imu_calib",
           [](const EurocReader& r) {
             vf_imu_calib c;
             check(vf_euroc_imu_calib(r.r, &c), vf_euroc_last_error(r.r));
             return c;
           })
      .def("next", &euroc_next, nb::arg("copy") = true,
           "The next event, or None at the end. copy=False: stereo images are read-only views "
           "valid until the next call.")
      .def("__iter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__next__",
           [](nb::handle self) {
             nb::object e = euroc_next(self, true);
             if (e.is_none()) throw nb::stop_iteration();
             return e;
           })
      .def("rewind", [](EurocReader& r) { check(vf_euroc_rewind(r.r), vf_euroc_last_error(r.r)); })
      .def(
          "load_pair",
          [](const EurocReader& r, int pair) {
            int64_t t = 0;
            vf_image l{}, rt{};
            vf_status s;
            {
              nb::gil_scoped_release release;
              s = vf_euroc_load_pair(r.r, pair, &t, &l, &rt);
            }
            check(s, vf_euroc_last_error(r.r));
            return nb::make_tuple(t, adopt(l), adopt(rt));
          },
          nb::arg("pair"), "(t_ns, left, right) of pair `pair`, new NumPy arrays.")
      .def_prop_ro("groundtruth_count",
                   [](const EurocReader& r) { return vf_euroc_groundtruth_count(r.r); })
      .def(
          "groundtruth",
          [](const EurocReader& r, int i) {
            vf_euroc_state st;
            check(vf_euroc_groundtruth(r.r, i, &st), vf_euroc_last_error(r.r));
            return st;
          },
          nb::arg("index"))
      .def(
          "groundtruth_at",
          [](const EurocReader& r, int64_t t) {
            vf_euroc_state st;
            check(vf_euroc_groundtruth_at(r.r, t, &st), vf_euroc_last_error(r.r));
            return st;
          },
          nb::arg("t_ns"), "The state at any time inside the file's span (interpolated).")
      .def_prop_ro("last_error", [](const EurocReader& r) { return vf_euroc_last_error(r.r); });

  m.def(
      "euroc_vi_sensor",
      []() {
        vf_camera cams[2];
        vf_imu_calib imu;
        vf_euroc_vi_sensor(cams, &imu);
        return nb::make_tuple(cams[0], cams[1], imu);
      },
      "EuRoC's VI-Sensor calibration: (cam0, cam1, imu).");
}
