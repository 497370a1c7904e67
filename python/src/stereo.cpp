// SPDX-License-Identifier: BSD-3-Clause
/* Dense stereo (every vf_stereo_method): disparity of the left image of a rectified pair into a
 * new or given 16-bit array, optionally float pixels too; host or device arrays. */
#include "stages.h"

struct Stereo : Stage {
  vf_stereo* s = nullptr;
  vf_stereo_config config{};
  using Stage::Stage;
  ~Stereo() { vf_stereo_destroy(s); }
};

static nb::object stereo_compute(Stereo& self, nb::handle left, nb::handle right, nb::handle out,
                                 nb::handle out_f32, bool float_output) {
  ImageArg l = image_in(left, VF_PIXEL_U8, "left");
  ImageArg r = image_in(right, VF_PIXEL_U8, "right");
  int w = self.config.width, h = self.config.height;
  vf_memory loc = l.image.location;
  ImageArg d = out.is_none() ? image_new(w, h, VF_PIXEL_U16, loc, self.ctx->cuda_device)
                             : image_in(out, VF_PIXEL_U16, "out", true);
  bool want_f32 = float_output || !out_f32.is_none();
  ImageArg f;
  if (want_f32)
    f = out_f32.is_none() ? image_new(w, h, VF_PIXEL_F32, loc, self.ctx->cuda_device)
                          : image_in(out_f32, VF_PIXEL_F32, "out_f32", true);
  vf_status s;
  {
    nb::gil_scoped_release release;
    s = vf_stereo_compute(self.s, &l.image, &r.image, &d.image, want_f32 ? &f.image : nullptr);
  }
  self.finish(
      s, [](const void* h) { return vf_stereo_last_error((const vf_stereo*)h); }, self.s);
  nb::object disp = out.is_none() ? as_framework(d.keep, l.source) : nb::borrow(out);
  if (!want_f32) return disp;
  nb::object fl = out_f32.is_none() ? as_framework(f.keep, l.source) : nb::borrow(out_f32);
  return nb::make_tuple(disp, fl);
}

void register_stereo(nb::module_& m) {
  nb::class_<Stereo>(m, "Stereo",
                     "Dense stereo matching of a rectified 8-bit pair (vf_stereo): SGM, "
                     "hierarchical SGM, ZNCC or census with FastDT, ZNCC with SGM, Cyclops2.")
      .def(
          "__init__",
          [](Stereo* self, Context& ctx, const vf_stereo_config* cfg) {
            stage_init<Stereo, vf_stereo, vf_stereo_config, vf_stereo_create,
                       vf_stereo_config_default, &Stereo::s>(self, ctx, cfg);
            self->config = cfg ? *cfg : vf_stereo_config_default();
          },
          nb::arg("context"), nb::arg("config").none() = nb::none())
      .def("compute", &stereo_compute, nb::arg("left"), nb::arg("right"),
           nb::arg("out").none() = nb::none(), nb::arg("out_f32").none() = nb::none(),
           nb::arg("float_output") = false,
           "Disparity of `left` as uint16 (value / 16 = pixels with sub-pixel on; 65535 = "
           "invalid), into `out` when given, else a new array (NumPy for host input, device "
           "input gives a device array in the input's framework: CuPy, PyTorch or DeviceArray). "
           "With float_output or out_f32 also float32 pixels (NaN invalid): returns (u16, f32).")
      .def_prop_ro("config", [](const Stereo& s) { return s.config; })
      .def_prop_ro("last_error", [](const Stereo& s) { return vf_stereo_last_error(s.s); });
  m.attr("STEREO_INVALID") = VF_STEREO_INVALID;
  m.attr("STEREO_SUBPIXEL_BITS") = VF_STEREO_SUBPIXEL_BITS;
}
