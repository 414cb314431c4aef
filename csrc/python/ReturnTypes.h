#pragma once
// Results of ops with several returns: PyTorch's named tuples (torch.return_types.max) for
// named returns, plain tuples otherwise.
#include <Python.h>

#include <initializer_list>
#include <tuple>
#include <utility>

#include "python/Errors.h"
#include "python/PyTensor.h"

namespace torchlite::python {

// The structseq type torchlite.return_types.<name> with these fields, made on first use and added to
// `module` (torchlite._C._return_types); later calls with the same name return the same type.
PyTypeObject* return_type(PyObject* module, const char* name, std::initializer_list<const char*> fields);

// New references for non-Tensor results.
PyObject* wrap(bool value);
PyObject* wrap(int64_t value);
PyObject* wrap(double value);

// A tuple of results: an instance of `type` (a named tuple) or, when type is null, a plain tuple.
template <typename... Ts>
PyObject* wrap(const std::tuple<Ts...>& values, PyTypeObject* type) {
  constexpr Py_ssize_t n = sizeof...(Ts);
  PyObject* result = type ? PyStructSequence_New(type) : PyTuple_New(n);
  if (!result) throw python_error();
  Py_ssize_t k = 0;
  // Each item is set as soon as it is made, so `result` owns it if a later one fails.
  auto set = [&](PyObject* item) {
    if (!item) {
      Py_DECREF(result);
      throw python_error();
    }
    if (type) {
      PyStructSequence_SET_ITEM(result, k++, item);
    } else {
      PyTuple_SET_ITEM(result, k++, item);
    }
  };
  std::apply([&](const auto&... v) { (set(wrap(v)), ...); }, values);
  return result;
}

}  // namespace torchlite::python
