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
  if (msg.compare(0, name.size(), name) == 0 || msg.compare(0, name.size() + 1, "\"" + name) == 0) return msg;
  return name + ": " + msg;
}

}  // namespace

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
