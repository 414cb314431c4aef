#pragma once
// Python side of autograd (PyAutograd.cpp): the _Node class, the engine entry
// point, grad mode and hooks, and the tensor attributes that read autograd meta.
#include <Python.h>

#include <memory>

#include "autograd/Node.h"
#include "core/Tensor.h"

namespace torchlite::python {

void init_autograd(PyObject* module);

PyObject* node_object(const std::shared_ptr<autograd::Node>& node);  // new reference; None for null
PyObject* tensor_get_grad(const Tensor& t);                          // new reference
void tensor_set_grad(const Tensor& t, PyObject* value);              // raises torchlite::Error
PyObject* tensor_get_grad_fn(const Tensor& t);                       // new reference
// GC support: visit / drop the Python hook functions a tensor alone owns.
int traverse_autograd(const Tensor& t, visitproc visit, void* arg);
void clear_autograd(const Tensor& t);
// A factory's requires_grad=True: sets it on the new tensor (floating dtypes only, as PyTorch).
Tensor requires_grad_if(bool requires_grad, Tensor t);

}  // namespace torchlite::python
