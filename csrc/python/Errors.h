#pragma once
// Translating C++ exceptions into Python exceptions at the binding boundary.
#include <Python.h>

#include <exception>

namespace torchlite::python {

// Thrown when a Python C-API call failed and already set the Python error.
struct python_error : std::exception {
  const char* what() const noexcept override { return "Python error already set"; }
};

// `op`: the Python name of the op being called (a generated entry point). Its
// errors are prefixed "op: " unless the message already starts with the op's
// name, so every error names the op while keeping PyTorch's wording after it.
void set_python_error(const std::exception_ptr& e, const char* op = nullptr);

// torchlite._C._LinAlgError (torchlite.linalg.LinAlgError), a subclass of RuntimeError: ErrorKind::LinAlg.
PyObject* linalg_error_type();

}  // namespace torchlite::python

#define TL_PY_BEGIN try {
#define TL_PY_END                                                   \
  }                                                                 \
  catch (...) {                                                     \
    ::torchlite::python::set_python_error(std::current_exception()); \
    return nullptr;                                                 \
  }

// The same for slots returning int (setters): -1 on error.
#define TL_PY_END_INT                                               \
  }                                                                 \
  catch (...) {                                                     \
    ::torchlite::python::set_python_error(std::current_exception()); \
    return -1;                                                      \
  }

// The end of a generated op's entry point: errors name the op.
#define TL_PY_END_OP(op)                                                 \
  }                                                                      \
  catch (...) {                                                          \
    ::torchlite::python::set_python_error(std::current_exception(), op); \
    return nullptr;                                                      \
  }
