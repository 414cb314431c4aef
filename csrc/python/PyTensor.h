#pragma once
// The Python tensor object (torchlite._C.TensorBase, subclassed in Python as
// torchlite.Tensor). One C++ TensorImpl has at most one Python object, found
// through TensorImpl::pyobj(), so `x.grad is x.grad` and identity-based hashing hold.
#include <Python.h>

#include <vector>

#include "core/Tensor.h"

namespace torchlite::python {

struct PyTensor {
  PyObject_HEAD
  // A strong reference, except while the TensorImpl owns this object
  // (impl->owns_pyobj()): then it is borrowed.
  Tensor tensor;
};

extern PyTypeObject* TensorBaseType;  // torchlite._C.TensorBase
extern PyTypeObject* TensorClass;     // torchlite.Tensor, set by the Python package

inline bool is_tensor(PyObject* obj) {
  return Py_TYPE(obj) == TensorClass || PyObject_TypeCheck(obj, TensorBaseType);
}
inline const Tensor& unwrap(PyObject* obj) { return reinterpret_cast<PyTensor*>(obj)->tensor; }

// New reference to the Python object of t (made on first use); None for an undefined tensor.
PyObject* wrap(Tensor t);
// A tuple of tensors (split, chunk, unbind, broadcast_tensors).
PyObject* wrap(const std::vector<Tensor>& ts);

void init_tensor_type(PyObject* module);

// The generated method entry points, by name, for the number slots (__add__...).
using FastMethod = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
void register_method_entry(const char* name, FastMethod fn);
void init_number_slots();

}  // namespace torchlite::python
