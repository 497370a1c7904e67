// SPDX-License-Identifier: BSD-3-Clause
/* The single stages: pyramid, FAST detector, Lucas-Kanade tracker, remap (rectify/undistort),
 * and the IMU buffer with the tracker's rotation predictions. Calls that queue CUDA work wait for
 * it before returning, so Python arrays passed in may be dropped and results are complete. */
#include <cstring>
#include <vector>

#include "fields.h"
#include "stages.h"

void Stage::finish(vf_status s, const char* (*last)(const void*), const void* handle) const {
  if (s == VF_OK && ctx->on_cuda()) {
    nb::gil_scoped_release release;
    s = vf_context_synchronize(ctx->ctx);
  }
  check(s, last ? last(handle) : nullptr);
}

template <typename H, const char* (*F)(const H*)>
static const char* last_of(const void* h) {
  return F(static_cast<const H*>(h));
}

/* --- pyramid --- */

static void pyramid_build(Pyramid& self, nb::handle image) {
  ImageArg a = image_in(image, VF_PIXEL_U8, "image");
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_pyramid_build(self.p, &a.image);
  }
  self.finish(s, last_of<vf_pyramid, vf_pyramid_last_error>, self.p);
}

static nb::object pyramid_level(nb::handle self_h, int level) {
  Pyramid& self = nb::cast<Pyramid&>(self_h);
  vf_image v;
  check(vf_pyramid_level(self.p, level, &v), vf_pyramid_last_error(self.p));
  return image_view(v, self_h, true, self.ctx->cuda_device);
}

/* --- detector --- */

struct Detector : Stage {
  vf_detector* d = nullptr;
  using Stage::Stage;
  ~Detector() { vf_detector_destroy(d); }
};

static nb::object keypoints_copy(const vf_keypoint* kp, size_t n, vf_memory location) {
  void* data;
  nb::object arr = records_new("KEYPOINT_DTYPE", n, &data);
  if (n == 0) return arr;
  if (location == VF_MEMORY_HOST) {
    std::memcpy(data, kp, n * sizeof(vf_keypoint));
  } else {
    size_t bytes = n * sizeof(vf_keypoint);
    vf_image src = vf_image_view((void*)kp, (int)bytes, 1, bytes, VF_MEMORY_DEVICE, VF_PIXEL_U8);
    vf_image dst = vf_image_view(data, (int)bytes, 1, bytes, VF_MEMORY_HOST, VF_PIXEL_U8);
    check(vf_image_copy(&src, &dst));
  }
  return arr;
}

static nb::object detector_keypoints(const Detector& self) {
  const vf_keypoint* kp = nullptr;
  int n = 0;
  check(vf_detector_keypoints(self.d, &kp, &n), vf_detector_last_error(self.d));
  return keypoints_copy(kp, (size_t)n, VF_MEMORY_HOST);
}

static nb::object detector_detect(Detector& self, const Pyramid& pyr, nb::handle occupancy) {
  vf_grid g;
  check(vf_detector_grid(self.d, &g), vf_detector_last_error(self.d));
  nb::object occ;
  const uint8_t* occ_data = nullptr;
  if (!occupancy.is_none()) {
    occ = numpy().attr("ascontiguousarray")(occupancy, "uint8").attr("ravel")();
    nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig> nd;
    if (!nb::try_cast(occ, nd, false) || nd.shape(0) != (size_t)(g.cols * g.rows))
      fail(VF_ERR_INVALID_ARG, "occupancy must have grid.cols * grid.rows = " +
                                   std::to_string(g.cols * g.rows) + " bytes");
    occ_data = nd.data();
  }
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_detector_detect(self.d, pyr.p, occ_data, VF_MEMORY_HOST);
  }
  self.finish(s, last_of<vf_detector, vf_detector_last_error>, self.d);
  const vf_keypoint* kp = nullptr;
  int n = 0;
  if (vf_detector_keypoints(self.d, &kp, &n) != VF_OK) return nb::none();
  return keypoints_copy(kp, (size_t)n, VF_MEMORY_HOST);
}

static nb::object detector_cells(const Detector& self) {
  const vf_keypoint* cells = nullptr;
  vf_grid g;
  check(vf_detector_grid(self.d, &g), vf_detector_last_error(self.d));
  check(vf_detector_cells(self.d, &cells), vf_detector_last_error(self.d));
  return keypoints_copy(cells, (size_t)(g.cols * g.rows),
                        self.ctx->on_cuda() ? VF_MEMORY_DEVICE : VF_MEMORY_HOST);
}

/* --- tracker --- */

struct Tracker : Stage {
  vf_tracker* t = nullptr;
  nb::object pending; /* the requests of a submission not yet collected */
  int pending_count = 0;
  using Stage::Stage;
  ~Tracker() { vf_tracker_destroy(t); }
};

static nb::object results_out(nb::handle out, size_t count, void** data) {
  if (out.is_none()) return records_new("TRACK_RESULT_DTYPE", count, data);
  size_t n = 0;
  nb::object arr = records_in(out, "TRACK_RESULT_DTYPE", "out", data, &n);
  if (!arr.is(out) || n < count)
    fail(VF_ERR_INVALID_ARG,
         "out must be a contiguous TRACK_RESULT_DTYPE array with room for "
         "every request");
  return arr;
}

static nb::object tracker_track(Tracker& self, const Pyramid& prev, const Pyramid& cur,
                                nb::handle requests, nb::handle out) {
  void* req = nullptr;
  size_t n = 0;
  nb::object keep = records_in(requests, "TRACK_REQUEST_DTYPE", "requests", &req, &n);
  void* res = nullptr;
  nb::object results = results_out(out, n, &res);
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_tracker_track(self.t, prev.p, cur.p, (const vf_track_request*)req, (int)n,
                         (vf_track_result*)res);
  }
  check(s, vf_tracker_last_error(self.t));
  return results;
}

static nb::tuple tracker_track_checked(Tracker& self, const Pyramid& prev, const Pyramid& cur,
                                       nb::handle requests, bool from_guess) {
  void* req = nullptr;
  size_t n = 0;
  nb::object keep = records_in(requests, "TRACK_REQUEST_DTYPE", "requests", &req, &n);
  void* res = nullptr;
  void* back = nullptr;
  nb::object results = records_new("TRACK_RESULT_DTYPE", n, &res);
  nb::object backward = records_new("TRACK_RESULT_DTYPE", n, &back);
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_tracker_track_checked(self.t, prev.p, cur.p, (const vf_track_request*)req, (int)n,
                                 from_guess ? 1 : 0, (vf_track_result*)res, (vf_track_result*)back);
  }
  check(s, vf_tracker_last_error(self.t));
  return nb::make_tuple(results, backward);
}

static void tracker_submit(Tracker& self, const Pyramid& prev, const Pyramid& cur,
                           nb::handle requests) {
  void* req = nullptr;
  size_t n = 0;
  nb::object keep = records_in(requests, "TRACK_REQUEST_DTYPE", "requests", &req, &n);
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_tracker_submit(self.t, prev.p, cur.p, (const vf_track_request*)req, (int)n);
  }
  check(s, vf_tracker_last_error(self.t));
  self.pending = keep;
  self.pending_count = (int)n;
}

static nb::object tracker_collect(Tracker& self, nb::handle out) {
  void* res = nullptr;
  nb::object results = results_out(out, (size_t)self.pending_count, &res);
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_tracker_collect(self.t, (vf_track_result*)res);
  }
  check(s, vf_tracker_last_error(self.t));
  self.pending = nb::none();
  return results;
}

struct ImuBuffer {
  vf_imu_buffer* b = nullptr;
  ~ImuBuffer() { vf_imu_buffer_destroy(b); }
};

static nb::object predict(nb::handle xy, const double K[4], const double* R, const ImuBuffer* imu,
                          int64_t t0, int64_t t1) {
  float* in = nullptr;
  size_t n = 0;
  nb::object keep = floats_in(xy, "xy", &in, &n, 2);
  nb::object out = numpy().attr("empty")(nb::make_tuple(n, 2), "float32");
  float* o = nb::cast<nb::ndarray<float, nb::c_contig>>(out).data();
  if (imu)
    check(vf_tracker_predict_gyro(imu->b, t0, t1, R, K, in, (int)n, o),
          vf_imu_buffer_last_error(imu->b));
  else
    check(vf_tracker_predict_rotation(K, R, in, (int)n, o));
  return out;
}

/* --- remap --- */

struct Remap : Stage {
  vf_remap* r = nullptr;
  int out_width = 0, out_height = 0;
  using Stage::Stage;
  ~Remap() { vf_remap_destroy(r); }
};

static nb::object remap_apply(Remap& self, nb::handle src, nb::handle out) {
  ImageArg a = image_in(src, VF_PIXEL_U8, "src");
  ImageArg o = out.is_none() ? image_new(self.out_width, self.out_height, VF_PIXEL_U8,
                                         a.image.location, self.ctx->cuda_device)
                             : image_in(out, VF_PIXEL_U8, "out", true);
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_remap_apply(self.r, &a.image, &o.image);
  }
  self.finish(s, last_of<vf_remap, vf_remap_last_error>, self.r);
  return out.is_none() ? as_framework(o.keep, a.source) : nb::borrow(out);
}

void register_stages(nb::module_& m) {
  nb::class_<Pyramid>(m, "Pyramid",
                      "Image pyramid (vf_pyramid): level 0 a copy of the input, each further level "
                      "half the size (2x2 box filter). Levels live in the context's memory.")
      .def("__init__",
           &stage_init<Pyramid, vf_pyramid, vf_pyramid_config, vf_pyramid_create,
                       vf_pyramid_config_default, &Pyramid::p>,
           nb::arg("context"), nb::arg("config").none() = nb::none())
      .def("build", &pyramid_build, nb::arg("image"),
           "Builds every level from an 8-bit image of the configured size (NumPy, or a CUDA "
           "array on the CUDA backend), viewed without a copy when its rows are contiguous.")
      .def("level", &pyramid_level, nb::arg("level"),
           "A read-only view of one level (NumPy on the CPU backend, DeviceArray on CUDA); "
           "overwritten by the next build.")
      .def_prop_ro("levels", [](const Pyramid& p) { return vf_pyramid_levels(p.p); })
      .def("__len__", [](const Pyramid& p) { return vf_pyramid_levels(p.p); })
      .def_prop_ro("last_error", [](const Pyramid& p) { return vf_pyramid_last_error(p.p); });

  nb::class_<Detector>(m, "Detector",
                       "FAST corners, one per grid cell, over pyramid levels (vf_detector).")
      .def("__init__",
           &stage_init<Detector, vf_detector, vf_detector_config, vf_detector_create,
                       vf_detector_config_default, &Detector::d>,
           nb::arg("context"), nb::arg("config").none() = nb::none())
      .def("detect", &detector_detect, nb::arg("pyramid"), nb::arg("occupancy").none() = nb::none(),
           "Detects on a pyramid of the same context. occupancy: None or one byte per grid cell "
           "(nonzero = skip). Returns the keypoints (KEYPOINT_DTYPE) in cell order, or None when "
           "they stay on the device (host_results = 0 on CUDA).")
      .def("keypoints", &detector_keypoints, "The last detection's keypoints (KEYPOINT_DTYPE).")
      .def("cells", &detector_cells,
           "The last detection per grid cell (KEYPOINT_DTYPE, level -1 where a cell has none).")
      .def_prop_ro("grid",
                   [](const Detector& d) {
                     vf_grid g;
                     check(vf_detector_grid(d.d, &g), vf_detector_last_error(d.d));
                     return g;
                   })
      .def_prop_ro("last_error", [](const Detector& d) { return vf_detector_last_error(d.d); });

  nb::class_<Tracker>(m, "Tracker",
                      "Pyramidal inverse-compositional Lucas-Kanade with gain and bias, optional "
                      "reference refinement (vf_tracker).")
      .def("__init__",
           &stage_init<Tracker, vf_tracker, vf_tracker_config, vf_tracker_create,
                       vf_tracker_config_default, &Tracker::t>,
           nb::arg("context"), nb::arg("config").none() = nb::none())
      .def_prop_ro("config",
                   [](const Tracker& t) {
                     vf_tracker_config c;
                     check(vf_tracker_get_config(t.t, &c), vf_tracker_last_error(t.t));
                     return c;
                   })
      .def("track", &tracker_track, nb::arg("prev"), nb::arg("cur"), nb::arg("requests"),
           nb::arg("out").none() = nb::none(),
           "Tracks requests (TRACK_REQUEST_DTYPE, see viofront.track_requests) from pyramid "
           "`prev` to `cur`; returns TRACK_RESULT_DTYPE records (into `out` when given).")
      .def("track_checked", &tracker_track_checked, nb::arg("prev"), nb::arg("cur"),
           nb::arg("requests"), nb::arg("from_guess") = false,
           "track with the forward-backward check in the same pass (one launch on CUDA): "
           "returns (results, backward), TRACK_RESULT_DTYPE records; backward[i] tracks "
           "results[i] back to `prev` where it converged (status invalid elsewhere).")
      .def("submit", &tracker_submit, nb::arg("prev"), nb::arg("cur"), nb::arg("requests"),
           "First half of track: queues the work (CUDA) or tracks at once (CPU).")
      .def("collect", &tracker_collect, nb::arg("out").none() = nb::none(),
           "Second half: waits and returns the latest submission's results.")
      .def_static(
          "predict_rotation",
          [](nb::handle K, nb::handle R, nb::handle xy) {
            double k[4], r[9];
            doubles_in(K, k, 4, "K");
            doubles_in(R, r, 9, "R_c0_c1");
            return predict(xy, k, r, nullptr, 0, 0);
          },
          nb::arg("K"), nb::arg("R_c0_c1"), nb::arg("xy"),
          "Rotation-only prediction K R^T K^-1 p of (n, 2) points; K = (fx, fy, cx, cy).")
      .def_static(
          "predict_gyro",
          [](const ImuBuffer& imu, int64_t t0, int64_t t1, nb::handle R_b_c, nb::handle K,
             nb::handle xy) {
            double k[4], r[9];
            doubles_in(K, k, 4, "K");
            doubles_in(R_b_c, r, 9, "R_b_c");
            return predict(xy, k, r, &imu, t0, t1);
          },
          nb::arg("imu"), nb::arg("t0_ns"), nb::arg("t1_ns"), nb::arg("R_b_c"), nb::arg("K"),
          nb::arg("xy"), "The same with the rotation integrated from the gyroscope over [t0, t1].")
      .def_prop_ro("last_error", [](const Tracker& t) { return vf_tracker_last_error(t.t); });

  nb::class_<Remap>(m, "Remap",
                    "A rectify/undistort map applied by bilinear interpolation (vf_remap).")
      .def(
          "__init__",
          [](Remap* self, Context& ctx, const vf_remap_config& cfg) {
            vf_remap* r = nullptr;
            check(vf_remap_create(ctx.ctx, &cfg, &r));
            new (self) Remap(ctx);
            self->r = r;
            self->out_width = cfg.out_width;
            self->out_height = cfg.out_height;
          },
          nb::arg("context"), nb::arg("config"))
      .def("apply", &remap_apply, nb::arg("src"), nb::arg("out").none() = nb::none(),
           "dst = src warped through the map; a new array (host for host input, device for "
           "device input, in the input's framework) unless `out` is given.")
      .def(
          "lookup",
          [](const Remap& r, int x, int y) {
            int32_t sx, sy;
            check(vf_remap_lookup(r.r, x, y, &sx, &sy), vf_remap_last_error(r.r));
            return nb::make_tuple(sx, sy);
          },
          nb::arg("x"), nb::arg("y"),
          "Source position of output pixel (x, y) in 1/256 pixel, (-1, -1) outside.")
      .def_prop_ro("out_shape",
                   [](const Remap& r) { return nb::make_tuple(r.out_height, r.out_width); });

  nb::class_<ImuBuffer>(m, "ImuBuffer",
                        "Gyroscope and accelerometer samples in time order (vf_imu_buffer).")
      .def(
          "__init__",
          [](ImuBuffer* self, int capacity, int64_t max_gap_ns) {
            vf_imu_buffer* b = nullptr;
            check(vf_imu_buffer_create(capacity, max_gap_ns, &b));
            new (self) ImuBuffer();
            self->b = b;
          },
          nb::arg("capacity") = 2000, nb::arg("max_gap_ns") = 50000000)
      .def(
          "push",
          [](ImuBuffer& self, int64_t t_ns, nb::handle gyro, nb::handle acc) {
            vf_imu_sample s;
            s.t_ns = t_ns;
            doubles_in(gyro, s.gyro, 3, "gyro");
            doubles_in(acc, s.acc, 3, "acc");
            check(vf_imu_buffer_push(self.b, &s), vf_imu_buffer_last_error(self.b));
          },
          nb::arg("t_ns"), nb::arg("gyro"), nb::arg("acc"))
      .def("__len__", [](const ImuBuffer& self) { return vf_imu_buffer_size(self.b); })
      .def(
          "drop_before", [](ImuBuffer& self, int64_t t) { vf_imu_buffer_drop_before(self.b, t); },
          nb::arg("t_ns"))
      .def(
          "rotation",
          [](const ImuBuffer& self, int64_t t0, int64_t t1) {
            double R[9];
            check(vf_imu_buffer_rotation(self.b, t0, t1, R), vf_imu_buffer_last_error(self.b));
            return doubles_out(R, 3, 3);
          },
          nb::arg("t0_ns"), nb::arg("t1_ns"), "R_b0_b1 from the gyroscope over [t0, t1].");
}
