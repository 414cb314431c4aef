#include "python/Errors.h"

#include <new>

#include "core/Error.h"

namespace torchlite::python {

void set_python_error(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const python_error&) {
    // The Python error is already set.
  } catch (const Error& err) {
    PyObject* type = PyExc_RuntimeError;
    switch (err.kind()) {
      case ErrorKind::Type: type = PyExc_TypeError; break;
      case ErrorKind::Value: type = PyExc_ValueError; break;
      case ErrorKind::Index: type = PyExc_IndexError; break;
      case ErrorKind::NotImplemented: type = PyExc_NotImplementedError; break;
      case ErrorKind::Runtime: break;
    }
    PyErr_SetString(type, err.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& err) {
    PyErr_SetString(PyExc_RuntimeError, err.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

}  // namespace torchlite::python
