// SPDX-License-Identifier: BSD-3-Clause
/* Shared pieces of the viofront Python extension: status checking (a failing call raises
 * viofront.Error or its subclass for the status), the context wrapper every stage keeps alive,
 * conversion of Python arrays (NumPy, DLPack, __cuda_array_interface__) into vf_image views and
 * back, and the structured dtypes of the C record types. */
#ifndef VF_PY_COMMON_H
#define VF_PY_COMMON_H

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <viofront/viofront.h>
#include <string>

namespace nb = nanobind;

/* A failed viofront call, turned into a viofront.Error subclass by the module's translator. */
struct VfError {
  vf_status status;
  std::string message;
};

/* Throws VfError for a status other than VF_OK. The message is the calling thread's last error
 * message, else `handle_message` (the handle's own), else vf_status_str. */
void check(vf_status status, const char* handle_message = nullptr);
[[noreturn]] void fail(vf_status status, const std::string& message);

/* The context every stage is made from; stages keep its Python object alive. */
struct Context {
  vf_context* ctx = nullptr;
  int cuda_device = 0;
  nb::object log; /* callable(level, message) or None */
  ~Context();
  bool on_cuda() const { return vf_context_backend(ctx) == VF_BACKEND_CUDA; }
};

/* A Python array turned into an image view: `keep` holds what the view points into (the caller's
 * array, or a contiguous copy when its layout did not allow a view). */
struct ImageArg {
  vf_image image{};
  nb::object keep;
  nb::object source; /* the caller's object (to give results in its framework) */
  bool copied = false;
};

/* `what` names the argument in messages. Outputs must be writable views, never copies. */
ImageArg image_in(nb::handle obj, vf_pixel_format format, const char* what, bool output = false);
/* A new array of the given size and format: NumPy on the host, a DeviceArray on the device. */
ImageArg image_new(int width, int height, vf_pixel_format format, vf_memory location, int device);
/* A view of library memory (owned by `owner`): NumPy (read-only when asked) or DeviceArray. */
nb::object image_view(const vf_image& image, nb::handle owner, bool readonly, int device);
/* `out` (a DeviceArray) in the framework of `like` (CuPy, PyTorch) when that is one, else out. */
nb::object as_framework(nb::object out, nb::handle like);

/* Structured dtypes (viofront.FEATURE_DTYPE, ...) and access to their bytes. */
nb::object numpy();
nb::object record_dtype(const char* name);
/* A new 1-D structured array of `count` records; its bytes in *data. */
nb::object records_new(const char* dtype_name, size_t count, void** data);
/* The bytes of a 1-D array of that dtype (a contiguous copy when needed); *count records. */
nb::object records_in(nb::handle obj, const char* dtype_name, const char* what, void** data,
                      size_t* count);
/* Host doubles / floats / ids from any sequence or array, checked for length. */
void doubles_in(nb::handle obj, double* out, size_t n, const char* what);
nb::object floats_in(nb::handle obj, const char* what, float** data, size_t* count, int columns);
nb::object ids_in(nb::handle obj, const char* what, uint64_t** data, size_t* count);
nb::object doubles_out(const double* values, size_t rows, size_t cols);

/* Registration, one per source file. */
void register_arrays(nb::module_& m);
void register_configs(nb::module_& m);
void register_camera(nb::module_& m);
void register_stages(nb::module_& m);
void register_stereo(nb::module_& m);
void register_frontend(nb::module_& m);
void register_euroc(nb::module_& m);
void register_rig(nb::module_& m);

#endif
