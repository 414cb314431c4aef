#pragma once
// torchlite.Generator: the Python class around a Generator handle (core/Generator.h).
#include <Python.h>

#include "core/Generator.h"

namespace torchlite::python {

bool is_generator(PyObject* obj);
Generator to_generator(PyObject* obj);  // obj must pass is_generator
// Adds torchlite._C.Generator, torchlite._C.default_generator and _C._philox4x32 (for tests).
void init_generator(PyObject* module);

}  // namespace torchlite::python
