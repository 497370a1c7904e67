// SPDX-License-Identifier: BSD-3-Clause
/* Cameras, stereo rectification (OpenCV's stereoRectify with CALIB_ZERO_DISPARITY) and remap
 * configs: plain values with attributes, and the point functions of vf_camera.h / vf_rectify.h. */
#include "common.h"
#include "fields.h"

#define RW(T, f) def_rw(#f, &T::f)

static nb::object point_call(vf_status (*fn)(const vf_camera*, const double*, double*),
                             const vf_camera& cam, nb::handle in, size_t n_in, size_t n_out,
                             const char* what) {
  double a[3], b[3];
  doubles_in(in, a, n_in, what);
  check(fn(&cam, a, b));
  return doubles_out(b, n_out, 1);
}

static void register_camera_class(nb::module_& m) {
  auto c = config_class<vf_camera>(m, "Camera", vf_camera_default,
                                   "Pinhole camera with radial-tangential or equidistant "
                                   "distortion (vf_camera); defaults: 752x480, f 458, no "
                                   "distortion, T_BS identity, 20 Hz.");
  c.RW(vf_camera, width)
      .RW(vf_camera, height)
      .RW(vf_camera, fx)
      .RW(vf_camera, fy)
      .RW(vf_camera, cx)
      .RW(vf_camera, cy)
      .RW(vf_camera, distortion)
      .RW(vf_camera, rate_hz)
      .def(
          "check", [](const vf_camera& cam) { check(vf_camera_check(&cam)); },
          "Raises InvalidArgumentError naming the first bad field.")
      .def(
          "distort",
          [](const vf_camera& cam, nb::handle xy) {
            return point_call(vf_camera_distort, cam, xy, 2, 2, "xy");
          },
          nb::arg("xy"), "Normalized undistorted (x, y) -> normalized distorted.")
      .def(
          "undistort",
          [](const vf_camera& cam, nb::handle xy) {
            return point_call(vf_camera_undistort, cam, xy, 2, 2, "xy");
          },
          nb::arg("xy_distorted"), "Normalized distorted -> undistorted (Gauss-Newton).")
      .def(
          "project",
          [](const vf_camera& cam, nb::handle p) {
            return point_call(vf_camera_project, cam, p, 3, 2, "p_c");
          },
          nb::arg("p_c"), "Camera-frame point -> pixel (u, v).")
      .def(
          "unproject",
          [](const vf_camera& cam, nb::handle uv) {
            return point_call(vf_camera_unproject, cam, uv, 2, 3, "uv");
          },
          nb::arg("uv"), "Pixel -> ray (x, y, 1).")
      .def(
          "relative_pose",
          [](const vf_camera& a, const vf_camera& b) {
            double R[9], T[3];
            check(vf_camera_relative_pose(&a, &b, R, T));
            return nb::make_tuple(doubles_out(R, 3, 3), doubles_out(T, 3, 1));
          },
          nb::arg("other"), "(R, T) with X_other = R X_self + T, from the two T_BS.");
  def_array(c, "k", &vf_camera::k, 1, 5,
            "Distortion coefficients (radtan k1 k2 p1 p2 k3, "
            "equidistant k1..k4).");
  def_array(c, "T_BS", &vf_camera::T_BS, 4, 4, "Row-major 4x4 sensor-to-body transform.");
}

static void register_rectification(nb::module_& m) {
  config_class<vf_rectify_config>(
      m, "RectifyConfig", vf_rectify_config_default,
      "Rectification alpha, output size, focal rule (vf_rectify_config).")
      .RW(vf_rectify_config, alpha)
      .RW(vf_rectify_config, out_width)
      .RW(vf_rectify_config, out_height)
      .RW(vf_rectify_config, focal_rule);

  auto r = nb::class_<vf_stereo_rectification>(
      m, "StereoRectification",
      "The result of stereo_rectify (vf_stereo_rectification): R1, R2 raw -> rectified, "
      "P1, P2 projections, Q reprojection, f, cx, cy, baseline_m.");
  r.def(nb::init<>())
      .RW(vf_stereo_rectification, width)
      .RW(vf_stereo_rectification, height)
      .RW(vf_stereo_rectification, f)
      .RW(vf_stereo_rectification, cx)
      .RW(vf_stereo_rectification, cy)
      .RW(vf_stereo_rectification, baseline_m)
      .RW(vf_stereo_rectification, vertical);
  def_array(r, "R", &vf_stereo_rectification::R, 3, 3, "Input: X_1 = R X_0 + T.");
  def_array(r, "T", &vf_stereo_rectification::T, 1, 3, "Input translation.");
  def_array(r, "R1", &vf_stereo_rectification::R1, 3, 3, "Raw camera 0 -> rectified.");
  def_array(r, "R2", &vf_stereo_rectification::R2, 3, 3, "Raw camera 1 -> rectified.");
  def_array(r, "P1", &vf_stereo_rectification::P1, 3, 4, "Projection of rectified camera 0.");
  def_array(r, "P2", &vf_stereo_rectification::P2, 3, 4, "Projection of rectified camera 1.");
  def_array(r, "Q", &vf_stereo_rectification::Q, 4, 4, "[u v d 1] -> homogeneous 3-D point.");

  m.def(
      "stereo_rectify",
      [](const vf_camera& cam0, const vf_camera& cam1, const vf_rectify_config* cfg) {
        vf_rectify_config c = cfg ? *cfg : vf_rectify_config_default();
        vf_stereo_rectification out;
        check(vf_stereo_rectify(&cam0, &cam1, &c, &out));
        return out;
      },
      nb::arg("cam0"), nb::arg("cam1"), nb::arg("config").none() = nb::none(),
      "Rectifies a stereo pair whose relative pose comes from the cameras' T_BS.");
  m.def(
      "stereo_rectify_pose",
      [](const vf_camera& cam0, const vf_camera& cam1, nb::handle R, nb::handle T,
         const vf_rectify_config* cfg) {
        double r[9], t[3];
        doubles_in(R, r, 9, "R");
        doubles_in(T, t, 3, "T");
        vf_rectify_config c = cfg ? *cfg : vf_rectify_config_default();
        vf_stereo_rectification out;
        check(vf_stereo_rectify_pose(&cam0, &cam1, r, t, &c, &out));
        return out;
      },
      nb::arg("cam0"), nb::arg("cam1"), nb::arg("R"), nb::arg("T"),
      nb::arg("config").none() = nb::none(),
      "The same with an explicit relative pose X_1 = R X_0 + T.");
  m.def(
      "rectify_point",
      [](const vf_camera& cam, nb::handle R, nb::handle P, nb::handle uv) {
        double r[9], p[12], in[2], out[2];
        doubles_in(R, r, 9, "R");
        doubles_in(P, p, 12, "P");
        doubles_in(uv, in, 2, "uv");
        check(vf_rectify_point(&cam, r, p, in, out));
        return doubles_out(out, 2, 1);
      },
      nb::arg("camera"), nb::arg("R"), nb::arg("P"), nb::arg("uv"),
      "Raw pixel -> rectified pixel (OpenCV's undistortPoints with R and P).");

  auto rc = nb::class_<vf_remap_config>(
      m, "RemapConfig",
      "A rectify or undistort map (vf_remap_config): source camera, rotation R, projection P, "
      "output size, fill value. Made by RemapConfig.rectify or RemapConfig.undistort.");
  rc.def("__init__",
         [](vf_remap_config* self) {
           vf_remap_config c{};
           c.camera = vf_camera_default();
           check(vf_remap_config_undistort(&c.camera, &c));
           new (self) vf_remap_config(c);
         })
      .def_static(
          "rectify",
          [](const vf_camera& cam, const vf_stereo_rectification& rect, int which) {
            vf_remap_config c;
            check(vf_remap_config_rectify(&cam, &rect, which, &c));
            return c;
          },
          nb::arg("camera"), nb::arg("rectification"), nb::arg("which"),
          "The map of camera `which` (0 or 1) of a rectification.")
      .def_static(
          "undistort",
          [](const vf_camera& cam) {
            vf_remap_config c;
            check(vf_remap_config_undistort(&cam, &c));
            return c;
          },
          nb::arg("camera"), "A map that only undistorts (same size, P = K).")
      .RW(vf_remap_config, camera)
      .RW(vf_remap_config, out_width)
      .RW(vf_remap_config, out_height)
      .RW(vf_remap_config, fill)
      .def("__copy__", [](const vf_remap_config& c) { return vf_remap_config(c); });
  def_array(rc, "R", &vf_remap_config::R, 3, 3, "Rotation raw -> output camera.");
  def_array(rc, "P", &vf_remap_config::P, 3, 4, "Projection of the output camera.");
}

static void register_imu_calib(nb::module_& m) {
  auto c = nb::class_<vf_imu_calib>(m, "ImuCalib",
                                    "IMU calibration from imu0/sensor.yaml (vf_imu_calib).");
  c.def(nb::init<>())
      .RW(vf_imu_calib, rate_hz)
      .RW(vf_imu_calib, gyro_noise_density)
      .RW(vf_imu_calib, gyro_random_walk)
      .RW(vf_imu_calib, acc_noise_density)
      .RW(vf_imu_calib, acc_random_walk);
  def_array(c, "T_BS", &vf_imu_calib::T_BS, 4, 4, "Row-major 4x4 IMU-to-body transform.");
}

void register_camera(nb::module_& m) {
  register_camera_class(m);
  register_rectification(m);
  register_imu_calib(m);
}
