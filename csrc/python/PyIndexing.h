#pragma once
// Tensor.__getitem__ / __setitem__ (the mapping slots of torchlite._C.TensorBase).
#include <Python.h>

namespace torchlite::python {

PyMappingMethods* tensor_mapping_methods();

}  // namespace torchlite::python
