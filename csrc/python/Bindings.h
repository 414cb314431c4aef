#pragma once
// How the generated binding shards register their entry points.
#include <Python.h>

namespace torchlite::python {

// The Python modules ops are bound into, by python_module.
struct ModuleSet {
  PyObject* functions;  // torchlite._C._functions, re-exported as torchlite.*
  PyObject* nn;         // torchlite._C._nn (python_module: nn.functional)
  PyObject* linalg;
  PyObject* special;
  PyObject* fft;
  PyObject* return_types;  // torchlite._C._return_types, re-exported as torchlite.return_types
};

// defs and modules are parallel arrays ending with a null entry.
void add_functions(const ModuleSet& modules, PyMethodDef* defs, const char* const* module_names);
// Adds Tensor methods (and records them for the number slots).
void add_methods(PyMethodDef* defs);

constexpr int kNumShards = 8;  // codegen/python_sig.py NUM_SHARDS
void init_python_shard_0(const ModuleSet&);
void init_python_shard_1(const ModuleSet&);
void init_python_shard_2(const ModuleSet&);
void init_python_shard_3(const ModuleSet&);
void init_python_shard_4(const ModuleSet&);
void init_python_shard_5(const ModuleSet&);
void init_python_shard_6(const ModuleSet&);
void init_python_shard_7(const ModuleSet&);

}  // namespace torchlite::python
