// SPDX-License-Identifier: BSD-3-Clause
/* Binding helpers for config structs: constructors from the C *_default() functions, and
 * fixed-size array fields as writable NumPy views into the struct (cam.k[0] = 0.1 works). */
#ifndef VF_PY_FIELDS_H
#define VF_PY_FIELDS_H

#include <cstring>
#include <type_traits>

#include "common.h"

template <typename E>
const char* numpy_type() {
  if constexpr (std::is_same_v<E, double>)
    return "float64";
  else if constexpr (std::is_same_v<E, float>)
    return "float32";
  else
    return "int32";
}

/* `name` as a rows x cols NumPy view (rows 1: a vector) of the member array `m`. */
template <typename T, typename E, size_t N>
void def_array(nb::class_<T>& c, const char* name, E (T::*m)[N], size_t rows, size_t cols,
               const char* doc) {
  c.def_prop_rw(
      name,
      [m, rows, cols](nb::handle self) {
        T* p = nb::inst_ptr<T>(self);
        size_t shape[2] = {rows, cols};
        nb::ndarray<nb::numpy, E> nd(p->*m, rows > 1 ? 2 : 1, rows > 1 ? shape : shape + 1, self,
                                     nullptr, nb::dtype<E>(), nb::device::cpu::value);
        return nb::cast(nd, nb::rv_policy::reference);
      },
      [m, name](nb::handle self, nb::handle value) {
        T* p = nb::inst_ptr<T>(self);
        nb::object arr = numpy().attr("ascontiguousarray")(value, numpy_type<E>()).attr("ravel")();
        nb::ndarray<const E, nb::ndim<1>, nb::c_contig> nd;
        if (!nb::try_cast(arr, nd, false) || nd.shape(0) != N)
          fail(VF_ERR_INVALID_ARG,
               std::string(name) + " must have " + std::to_string(N) + " values");
        std::memcpy(p->*m, nd.data(), N * sizeof(E));
      },
      doc);
}

/* A class whose __init__ takes the C defaults, then the fields given as a (nested) dict and
 * keywords (applied by viofront._config.update on a separate instance). */
template <typename T>
nb::class_<T> config_class(nb::module_& m, const char* name, T (*make_default)(void),
                           const char* doc) {
  nb::class_<T> c(m, name, doc);
  c.def(
      "__init__",
      [make_default](T* self, nb::handle values, nb::kwargs kw) {
        T value = make_default();
        if (!values.is_none() || nb::len(kw) > 0) {
          nb::object tmp = nb::cast(value);
          nb::module_::import_("viofront._config").attr("update")(tmp, values, **kw);
          value = nb::cast<T>(tmp);
        }
        new (self) T(value);
      },
      nb::arg("values").none() = nb::none(), nb::arg("kwargs"),
      "The C defaults (*_default()), then the fields given as a dict and as keywords; nested "
      "dicts update nested configs.");
  c.def("__copy__", [](const T& t) { return T(t); });
  c.def(
      "__deepcopy__", [](const T& t, nb::handle) { return T(t); }, nb::arg("memo"));
  return c;
}

#endif
