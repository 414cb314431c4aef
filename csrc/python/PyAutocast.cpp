// torchlite._C's autocast state functions (torchlite/amp/autocast_mode.py builds the context managers on them).
#include <pybind11/pybind11.h>

#include <string>

#include "autograd/Autocast.h"
#include "core/Error.h"
#include "python/Errors.h"
#include "python/ArgParser.h"

namespace py = pybind11;

namespace torchlite::python {
namespace {

int device_index(const std::string& device_type) {
  if (device_type == "cpu") return static_cast<int>(DeviceType::CPU);
  if (device_type == "cuda") return static_cast<int>(DeviceType::CUDA);
  TL_CHECK(false, "User specified an unsupported autocast device_type '", device_type, "'");
  return 0;
}

}  // namespace

void init_autocast(py::module_& m) {
  m.def("_autocast_set_enabled", [](const std::string& device_type, bool enabled) {
    autocast::state().enabled[device_index(device_type)] = enabled;
  }, "Turns autocast on or off for a device type on this thread.");
  m.def("_autocast_is_enabled", [](const std::string& device_type) {
    return autocast::state().enabled[device_index(device_type)];
  }, "Whether autocast is on for a device type on this thread.");
  m.def("_autocast_set_dtype", [](const std::string& device_type, py::object dtype) {
    TL_CHECK_TYPE(is_dtype(dtype.ptr()), "autocast: dtype must be a torchlite.dtype");
    autocast::state().dtype[device_index(device_type)] = to_scalar_type(dtype.ptr());
  }, "Sets the lower-precision dtype of a device type's autocast regions.");
  m.def("_autocast_get_dtype", [](const std::string& device_type) {
    return py::reinterpret_borrow<py::object>(dtype_object(autocast::state().dtype[device_index(device_type)]));
  }, "The lower-precision dtype of a device type's autocast regions.");
  m.def("_autocast_increment_nesting", []() { return ++autocast::state().nesting; },
        "Counts an autocast region entered; returns the depth.");
  m.def("_autocast_decrement_nesting", []() { return --autocast::state().nesting; },
        "Counts an autocast region left; returns the depth.");
}

}  // namespace torchlite::python
