#pragma once
// Translating C++ exceptions into Python exceptions at the binding boundary.
#include <Python.h>

#include <exception>

namespace torchlite::python {

// Thrown when a Python C-API call failed and already set the Python error.
struct python_error : std::exception {
  const char* what() const noexcept override { return "Python error already set"; }
};

void set_python_error(const std::exception_ptr& e);

}  // namespace torchlite::python

#define TL_PY_BEGIN try {
#define TL_PY_END                                                   \
  }                                                                 \
  catch (...) {                                                     \
    ::torchlite::python::set_python_error(std::current_exception()); \
    return nullptr;                                                 \
  }
