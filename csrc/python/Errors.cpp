#include "python/Errors.h"

#include <new>
#include <string>

#include "core/Error.h"

namespace torchlite::python {

namespace {

// "op: message", unless message already starts with the op's name (an in-place
// name's trailing underscore ignored: add_ reports as add).
std::string with_op(const char* op, const char* message) {
  if (!op) return message;
  std::string name(op);
  while (name.size() > 1 && name.back() == '_') name.pop_back();
  std::string msg(message);
  // a torch.linalg op (linalg_solve) may be named as its users call it, as PyTorch's messages do:
  // "linalg.solve: ...", "torch.linalg.solve: ..."
  if (name.compare(0, 7, "linalg_") == 0) {
    std::string api = "linalg." + name.substr(7);
    if (msg.compare(0, api.size(), api) == 0 || msg.compare(0, api.size() + 6, "torch." + api) == 0) return msg;
  }
  if (msg.compare(0, name.size(), name) == 0 || msg.compare(0, name.size() + 1, "\"" + name) == 0) return msg;
  return name + ": " + msg;
}

}  // namespace

PyObject* linalg_error_type() {
  static PyObject* type = PyErr_NewExceptionWithDoc(
      "torchlite._C._LinAlgError",
      "Raised by torchlite.linalg when a matrix is singular, not positive-definite, or an algorithm does not "
      "converge (PyTorch's torch.linalg.LinAlgError); a RuntimeError.",
      PyExc_RuntimeError, nullptr);
  return type;
}

void set_python_error(const std::exception_ptr& e, const char* op) {
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
      case ErrorKind::LinAlg: type = linalg_error_type(); break;
      case ErrorKind::Runtime: break;
    }
    PyErr_SetString(type, with_op(op, err.what()).c_str());
  } catch (const std::bad_alloc&) {
    PyErr_SetString(PyExc_RuntimeError, with_op(op, "can't allocate memory (std::bad_alloc)").c_str());
  } catch (const std::exception& err) {
    PyErr_SetString(PyExc_RuntimeError, with_op(op, err.what()).c_str());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

}  // namespace torchlite::python
