// SPDX-License-Identifier: BSD-3-Clause
/* Arrays in and out. Host images are NumPy (or any buffer/DLPack object) viewed in place when
 * their rows are contiguous; device images come through DLPack or __cuda_array_interface__ and
 * go out as DeviceArray, which offers both, so CuPy and PyTorch take them without a copy.
 * Record types (features, keypoints, track requests and results) are NumPy structured arrays
 * whose layout is the C struct's, so they cross with one memcpy or none. */
#include <cstring>
#include <vector>

#include "common.h"

nb::object numpy() {
  /* Leaked on purpose: a static object would be released after the interpreter is gone. */
  static nb::object* np = new nb::object(nb::module_::import_("numpy"));
  return *np;
}

static const char* dtype_name(vf_pixel_format f) {
  switch (f) {
    case VF_PIXEL_U8: return "uint8";
    case VF_PIXEL_U16: return "uint16";
    case VF_PIXEL_F32: return "float32";
    default: return "uint8";
  }
}

static const char* typestr(vf_pixel_format f) {
  switch (f) {
    case VF_PIXEL_U16: return "<u2";
    case VF_PIXEL_F32: return "<f4";
    default: return "|u1";
  }
}

static bool dtype_matches(nb::dlpack::dtype dt, vf_pixel_format f) {
  switch (f) {
    case VF_PIXEL_U8: return dt.code == (uint8_t)nb::dlpack::dtype_code::UInt && dt.bits == 8;
    case VF_PIXEL_U16: return dt.code == (uint8_t)nb::dlpack::dtype_code::UInt && dt.bits == 16;
    case VF_PIXEL_F32: return dt.code == (uint8_t)nb::dlpack::dtype_code::Float && dt.bits == 32;
    default: return false;
  }
}

/* Device memory owned by the library (a stage's buffers) or by this object (vf_image_alloc). */
struct DeviceArray {
  vf_image image{};
  bool owned = false;
  int device = 0;
  nb::object owner;
  ~DeviceArray() {
    if (owned) vf_image_free(&image);
  }
};

static nb::object device_dlpack_view(nb::handle self) {
  DeviceArray* d = nb::inst_ptr<DeviceArray>(self);
  size_t px = vf_pixel_size(d->image.format);
  size_t shape[2] = {(size_t)d->image.height, (size_t)d->image.width};
  int64_t strides[2] = {(int64_t)(d->image.stride_bytes / px), 1};
  nb::dlpack::dtype dt{(uint8_t)(d->image.format == VF_PIXEL_F32 ? nb::dlpack::dtype_code::Float
                                                                 : nb::dlpack::dtype_code::UInt),
                       (uint8_t)(px * 8), 1};
  nb::ndarray<> nd(d->image.data, 2, shape, self, strides, dt, nb::device::cuda::value, d->device);
  return nb::cast(nd, nb::rv_policy::reference);
}

static nb::object host_array(int height, int width, vf_pixel_format format) {
  return numpy().attr("empty")(nb::make_tuple(height, width), dtype_name(format));
}

ImageArg image_new(int width, int height, vf_pixel_format format, vf_memory location, int device) {
  if (location == VF_MEMORY_HOST)
    return image_in(host_array(height, width, format), format, "out", true);
  ImageArg a;
  auto* d = new DeviceArray();
  d->device = device;
  vf_status s = vf_image_alloc(&d->image, width, height, format, VF_MEMORY_DEVICE);
  if (s != VF_OK) {
    delete d;
    check(s);
  }
  d->owned = true;
  a.image = d->image;
  a.keep = nb::cast(d, nb::rv_policy::take_ownership);
  return a;
}

nb::object image_view(const vf_image& image, nb::handle owner, bool readonly, int device) {
  size_t px = vf_pixel_size(image.format);
  if (image.location == VF_MEMORY_DEVICE) {
    auto* d = new DeviceArray();
    d->image = image;
    d->device = device;
    d->owner = nb::borrow(owner);
    return nb::cast(d, nb::rv_policy::take_ownership);
  }
  size_t shape[2] = {(size_t)image.height, (size_t)image.width};
  int64_t strides[2] = {(int64_t)(image.stride_bytes / px), 1};
  nb::dlpack::dtype dt{(uint8_t)(image.format == VF_PIXEL_F32 ? nb::dlpack::dtype_code::Float
                                                              : nb::dlpack::dtype_code::UInt),
                       (uint8_t)(px * 8), 1};
  if (readonly) {
    nb::ndarray<nb::numpy, nb::ro> nd((const void*)image.data, 2, shape, owner, strides, dt,
                                      nb::device::cpu::value);
    return nb::cast(nd, nb::rv_policy::reference);
  }
  nb::ndarray<nb::numpy> nd(image.data, 2, shape, owner, strides, dt, nb::device::cpu::value);
  return nb::cast(nd, nb::rv_policy::reference);
}

nb::object as_framework(nb::object out, nb::handle like) {
  if (!nb::isinstance<DeviceArray>(out) || like.is_none()) return out;
  nb::object mod = nb::getattr(like.type(), "__module__", nb::none());
  if (mod.is_none()) return out;
  std::string name = nb::cast<std::string>(mod);
  if (name.rfind("cupy", 0) == 0) return nb::module_::import_("cupy").attr("from_dlpack")(out);
  if (name.rfind("torch", 0) == 0) return nb::module_::import_("torch").attr("from_dlpack")(out);
  return out;
}

/* A CUDA array known only through __cuda_array_interface__ (version 2 or 3). */
static ImageArg image_from_cai(nb::handle obj, vf_pixel_format format, const char* what,
                               bool output) {
  nb::dict cai = nb::cast<nb::dict>(obj.attr("__cuda_array_interface__"));
  nb::tuple shape = nb::cast<nb::tuple>(cai["shape"]);
  std::string ts = nb::cast<std::string>(cai["typestr"]);
  nb::tuple data = nb::cast<nb::tuple>(cai["data"]);
  std::string w = what;
  if (shape.size() != 2) fail(VF_ERR_INVALID_ARG, w + " must be a 2-D array");
  if (ts.substr(1) != std::string(typestr(format)).substr(1))
    fail(VF_ERR_INVALID_ARG, w + " must have dtype " + dtype_name(format) + ", not " + ts);
  if (output && nb::cast<bool>(data[1])) fail(VF_ERR_INVALID_ARG, w + " is read-only");
  int h = nb::cast<int>(shape[0]), wd = nb::cast<int>(shape[1]);
  size_t px = vf_pixel_size(format);
  size_t row = (size_t)wd * px;
  nb::object st = cai.contains("strides") ? nb::object(cai["strides"]) : nb::none();
  if (!st.is_none()) {
    nb::tuple t = nb::cast<nb::tuple>(st);
    long long s0 = nb::cast<long long>(t[0]), s1 = nb::cast<long long>(t[1]);
    if (s1 != (long long)px || s0 < (long long)row)
      fail(VF_ERR_INVALID_ARG, w + ": device arrays need contiguous rows (a copy is never made "
                                   "on the device)");
    row = (size_t)s0;
  }
  ImageArg a;
  a.image =
      vf_image_view((void*)nb::cast<uintptr_t>(data[0]), wd, h, row, VF_MEMORY_DEVICE, format);
  a.keep = nb::borrow(obj);
  a.source = nb::borrow(obj);
  return a;
}

ImageArg image_in(nb::handle obj, vf_pixel_format format, const char* what, bool output) {
  std::string w = what;
  if (nb::isinstance<DeviceArray>(obj)) {
    ImageArg a;
    a.image = nb::inst_ptr<DeviceArray>(obj)->image;
    if (a.image.format != format)
      fail(VF_ERR_INVALID_ARG, w + " must have dtype " + dtype_name(format));
    a.keep = nb::borrow(obj);
    return a;
  }
  nb::ndarray<nb::ro> arr;
  ImageArg a;
  a.source = nb::borrow(obj);
  bool ok = nb::try_cast(obj, arr, false);
  if (!ok && nb::hasattr(obj, "__cuda_array_interface__"))
    return image_from_cai(obj, format, what, output);
  if (!ok) {
    if (output) fail(VF_ERR_INVALID_ARG, w + " must be a writable array");
    a.keep = numpy().attr("ascontiguousarray")(obj, dtype_name(format));
    a.copied = true;
    if (!nb::try_cast(a.keep, arr, false)) fail(VF_ERR_INVALID_ARG, w + " is not an array");
  } else {
    a.keep = nb::borrow(obj);
  }
  if (arr.ndim() != 2) fail(VF_ERR_INVALID_ARG, w + " must be a 2-D array");
  if (!dtype_matches(arr.dtype(), format))
    fail(VF_ERR_INVALID_ARG, w + " must have dtype " + dtype_name(format));
  int dev = arr.device_type();
  bool device = dev == nb::device::cuda::value || dev == nb::device::cuda_managed::value;
  if (!device && dev != nb::device::cpu::value && dev != nb::device::cuda_host::value)
    fail(VF_ERR_INVALID_ARG, w + ": only host (CPU) and CUDA arrays are supported");
  /* NumPy says whether an array is writable (CuPy's flags do not, PyTorch has none). */
  nb::object flags = nb::getattr(obj, "flags", nb::none());
  if (output && !flags.is_none() && nb::hasattr(flags, "writeable") &&
      !nb::cast<bool>(flags.attr("writeable")))
    fail(VF_ERR_INVALID_ARG, w + " is read-only");
  int h = (int)arr.shape(0), wd = (int)arr.shape(1);
  bool rows_ok = arr.stride(1) == 1 && arr.stride(0) >= (int64_t)wd;
  if (!rows_ok) {
    if (device || output)
      fail(VF_ERR_INVALID_ARG, w + ": needs contiguous rows (column stride of one element and a "
                                   "positive row stride) for a view");
    a.keep = numpy().attr("ascontiguousarray")(a.keep);
    a.copied = true;
    if (!nb::try_cast(a.keep, arr, false)) fail(VF_ERR_INVALID_ARG, w + " is not an array");
  }
  size_t px = vf_pixel_size(format);
  a.image = vf_image_view((void*)arr.data(), wd, h, (size_t)arr.stride(0) * px,
                          device ? VF_MEMORY_DEVICE : VF_MEMORY_HOST, format);
  return a;
}

/* --- records --- */

struct Field {
  const char* name;
  size_t offset;
  const char* format;
  int count;
};
#define F(T, name, fmt) \
  { #name, offsetof(T, name), fmt, 1 }

static const Field feature_fields[] = {
    F(vf_feature, id, "<u8"),     F(vf_feature, camera, "<i4"),    F(vf_feature, age, "<i4"),
    F(vf_feature, level, "<i4"),  F(vf_feature, score, "<f4"),     F(vf_feature, u, "<f4"),
    F(vf_feature, v, "<f4"),      F(vf_feature, x, "<f4"),         F(vf_feature, y, "<f4"),
    F(vf_feature, vx, "<f4"),     F(vf_feature, vy, "<f4"),        F(vf_feature, u_rect, "<f4"),
    F(vf_feature, v_rect, "<f4"), F(vf_feature, disparity, "<f4"), F(vf_feature, depth_m, "<f4"),
    F(vf_feature, gain, "<f4"),   F(vf_feature, bias, "<f4"),      F(vf_feature, flags, "<u4")};
static const Field keypoint_fields[] = {F(vf_keypoint, x, "<f4"), F(vf_keypoint, y, "<f4"),
                                        F(vf_keypoint, score, "<f4"), F(vf_keypoint, level, "<i4"),
                                        F(vf_keypoint, cell, "<i4")};
static const Field request_fields[] = {
    F(vf_track_request, x, "<f4"),       F(vf_track_request, y, "<f4"),
    F(vf_track_request, guess_x, "<f4"), F(vf_track_request, guess_y, "<f4"),
    F(vf_track_request, gain, "<f4"),    F(vf_track_request, bias, "<f4"),
    F(vf_track_request, slot, "<i4"),    F(vf_track_request, new_template, "<i4")};
static const Field result_fields[] = {
    F(vf_track_result, x, "<f4"),        F(vf_track_result, y, "<f4"),
    F(vf_track_result, gain, "<f4"),     F(vf_track_result, bias, "<f4"),
    F(vf_track_result, residual, "<f4"), F(vf_track_result, iterations, "<i4"),
    F(vf_track_result, status, "<i4"),   F(vf_track_result, flags, "<u4"),
    F(vf_track_result, ncc, "<f4"),      {"shape", offsetof(vf_track_result, shape), "<f4", 4},
    F(vf_track_result, frame_x, "<f4"),  F(vf_track_result, frame_y, "<f4")};
/* A field added at the end of a C record must be added to its table too. */
static_assert(sizeof(vf_feature) == (offsetof(vf_feature, flags) + 4 + 7) / 8 * 8, "vf_feature");
static_assert(sizeof(vf_keypoint) == offsetof(vf_keypoint, cell) + 4, "vf_keypoint");
static_assert(sizeof(vf_track_request) == offsetof(vf_track_request, new_template) + 4,
              "vf_track_request");
static_assert(sizeof(vf_track_result) == offsetof(vf_track_result, frame_y) + 4, "vf_track_result");
#undef F

static nb::object make_dtype(const Field* fields, size_t n, size_t itemsize) {
  nb::list names, formats, offsets;
  for (size_t i = 0; i < n; ++i) {
    names.append(fields[i].name);
    if (fields[i].count > 1)
      formats.append(nb::make_tuple(fields[i].format, nb::make_tuple(fields[i].count)));
    else
      formats.append(fields[i].format);
    offsets.append(fields[i].offset);
  }
  nb::dict spec;
  spec["names"] = names;
  spec["formats"] = formats;
  spec["offsets"] = offsets;
  spec["itemsize"] = itemsize;
  return numpy().attr("dtype")(spec);
}

static nb::dict& dtypes() {
  static nb::dict* d = new nb::dict();
  return *d;
}

nb::object record_dtype(const char* name) { return dtypes()[name]; }

static void* bytes_of(nb::handle arr) {
  nb::object u8 = arr.attr("view")(numpy().attr("uint8"));
  nb::ndarray<nb::ro> nd;
  if (!nb::try_cast(u8, nd, false)) fail(VF_ERR_INVALID_ARG, "records are not an array");
  return (void*)nd.data();
}

nb::object records_new(const char* dtype_name, size_t count, void** data) {
  nb::object arr = numpy().attr("zeros")(count, record_dtype(dtype_name));
  *data = count ? bytes_of(arr) : nullptr;
  return arr;
}

nb::object records_in(nb::handle obj, const char* dtype_name, const char* what, void** data,
                      size_t* count) {
  nb::object dt = record_dtype(dtype_name);
  nb::object arr = numpy().attr("ascontiguousarray")(obj);
  if (!arr.attr("dtype").equal(dt))
    fail(VF_ERR_INVALID_ARG, std::string(what) + " must be an array of viofront." + dtype_name);
  if (nb::cast<int>(arr.attr("ndim")) != 1)
    fail(VF_ERR_INVALID_ARG, std::string(what) + " must be a 1-D array");
  *count = nb::cast<size_t>(arr.attr("size"));
  *data = *count ? bytes_of(arr) : nullptr;
  return arr;
}

void doubles_in(nb::handle obj, double* out, size_t n, const char* what) {
  nb::object arr = numpy().attr("ascontiguousarray")(obj, "float64").attr("ravel")();
  nb::ndarray<const double, nb::ndim<1>, nb::c_contig> nd;
  if (!nb::try_cast(arr, nd, false) || nd.shape(0) != n)
    fail(VF_ERR_INVALID_ARG, std::string(what) + " must have " + std::to_string(n) + " numbers");
  std::memcpy(out, nd.data(), n * sizeof(double));
}

nb::object floats_in(nb::handle obj, const char* what, float** data, size_t* count, int columns) {
  nb::object arr = numpy().attr("ascontiguousarray")(obj, "float32");
  nb::ndarray<float, nb::c_contig> nd;
  bool ok = nb::try_cast(arr, nd, false);
  if (ok && columns > 1) ok = nd.ndim() == 2 && nd.shape(1) == (size_t)columns;
  if (ok && columns == 1) ok = nd.ndim() == 1;
  if (!ok)
    fail(VF_ERR_INVALID_ARG,
         std::string(what) + " must be an array of shape (n, " + std::to_string(columns) + ")");
  *data = nd.data();
  *count = nd.shape(0);
  return arr;
}

nb::object ids_in(nb::handle obj, const char* what, uint64_t** data, size_t* count) {
  nb::object arr = numpy().attr("ascontiguousarray")(obj, "uint64").attr("ravel")();
  nb::ndarray<uint64_t, nb::ndim<1>, nb::c_contig> nd;
  if (!nb::try_cast(arr, nd, false))
    fail(VF_ERR_INVALID_ARG, std::string(what) + " must be track ids");
  *data = nd.data();
  *count = nd.shape(0);
  return arr;
}

nb::object doubles_out(const double* values, size_t rows, size_t cols) {
  nb::object arr = numpy().attr("empty")(nb::make_tuple(rows, cols), "float64");
  nb::ndarray<double, nb::c_contig> nd = nb::cast<nb::ndarray<double, nb::c_contig>>(arr);
  std::memcpy(nd.data(), values, rows * cols * sizeof(double));
  return cols == 1 ? nb::object(arr.attr("ravel")()) : arr;
}

/* For tests: what image_in made of an object (pointer, stride, location, copied). */
static nb::dict image_view_info(nb::handle obj, bool output) {
  ImageArg a = image_in(obj, VF_PIXEL_U8, "image", output);
  nb::dict d;
  d["data"] = (uintptr_t)a.image.data;
  d["width"] = a.image.width;
  d["height"] = a.image.height;
  d["stride_bytes"] = a.image.stride_bytes;
  d["location"] = a.image.location;
  d["copied"] = a.copied;
  return d;
}

void register_arrays(nb::module_& m) {
  dtypes()["FEATURE_DTYPE"] =
      make_dtype(feature_fields, std::size(feature_fields), sizeof(vf_feature));
  dtypes()["KEYPOINT_DTYPE"] =
      make_dtype(keypoint_fields, std::size(keypoint_fields), sizeof(vf_keypoint));
  dtypes()["TRACK_REQUEST_DTYPE"] =
      make_dtype(request_fields, std::size(request_fields), sizeof(vf_track_request));
  dtypes()["TRACK_RESULT_DTYPE"] =
      make_dtype(result_fields, std::size(result_fields), sizeof(vf_track_result));
  for (auto item : dtypes()) m.attr(item.first) = item.second;

  nb::class_<DeviceArray>(m, "DeviceArray",
                          "A 2-D image in CUDA device memory, owned by viofront (a stage's buffer "
                          "or a new output). CuPy and PyTorch take it without a copy "
                          "(cupy.asarray / cupy.from_dlpack, torch.from_dlpack or torch.as_tensor "
                          "through __cuda_array_interface__).")
      .def_prop_ro(
          "shape",
          [](const DeviceArray& d) { return nb::make_tuple(d.image.height, d.image.width); })
      .def_prop_ro(
          "dtype",
          [](const DeviceArray& d) { return numpy().attr("dtype")(dtype_name(d.image.format)); })
      .def_prop_ro(
          "strides",
          [](const DeviceArray& d) {
            return nb::make_tuple(d.image.stride_bytes, vf_pixel_size(d.image.format));
          },
          "Strides in bytes.")
      .def_prop_ro(
          "ptr", [](const DeviceArray& d) { return (uintptr_t)d.image.data; }, "Device pointer.")
      .def_prop_ro("device", [](const DeviceArray& d) { return d.device; })
      .def_prop_ro("__cuda_array_interface__",
                   [](const DeviceArray& d) {
                     nb::dict cai;
                     cai["shape"] = nb::make_tuple(d.image.height, d.image.width);
                     cai["typestr"] = typestr(d.image.format);
                     cai["data"] = nb::make_tuple((uintptr_t)d.image.data, false);
                     cai["strides"] =
                         nb::make_tuple(d.image.stride_bytes, vf_pixel_size(d.image.format));
                     cai["version"] = 3;
                     return cai;
                   })
      .def(
          "__dlpack__",
          [](nb::handle self, nb::kwargs kw) {
            nb::object view = device_dlpack_view(self);
            // nanobind casts an ndarray without a framework to the DLPack capsule itself (3.x)
            // or to an object that makes one (2.x): the protocol wants the capsule.
            if (PyCapsule_CheckExact(view.ptr())) return view;
            return view.attr("__dlpack__")(**kw);
          },
          "DLPack capsule of the array (keyword arguments as in the DLPack protocol).")
      .def("__dlpack_device__",
           [](const DeviceArray& d) {
             return nb::make_tuple((int)nb::device::cuda::value, d.device);
           })
      .def(
          "get",
          [](const DeviceArray& d) {
            ImageArg out =
                image_new(d.image.width, d.image.height, d.image.format, VF_MEMORY_HOST, 0);
            check(vf_image_copy(&d.image, &out.image));
            return out.keep;
          },
          "A host copy as a NumPy array.");

  m.def("_image_view_info", &image_view_info, nb::arg("image"), nb::arg("output") = false,
        "For tests: the view an image argument becomes (data pointer, size, stride, location, "
        "whether a copy was made).");
}
