#pragma once
// The runtime behind the generated Python entry points: one call matches the
// positional and keyword arguments against an op's signatures in order
// (PyTorch's overload order) and returns the index of the first that fits; the
// generated code then converts each argument with the accessors below.
#include <Python.h>

#include <optional>
#include <string_view>
#include <vector>

#include "core/Device.h"
#include "core/Generator.h"
#include "core/Scalar.h"
#include "core/Tensor.h"

namespace torchlite::python {

enum class ArgKind : uint8_t {
  Tensor, Scalar, Int, Float, Bool, String, ScalarType, Device, Generator,
  IntList, TensorList, OptTensorList, FloatList, BoolList,
};

struct ArgSpec {
  const char* name;
  ArgKind kind;
  int size;  // N of int[N] (a bare int is accepted), 0 otherwise
  bool optional;
  bool has_default;
  bool kwonly;
  bool number_ok;  // a Python number is accepted for a Tensor (as a wrapped number)
};

struct Signature {
  const char* display;  // "add(Tensor self, Tensor other, *, Scalar alpha=1, Tensor? out=None)"
  const ArgSpec* args;
  int nargs;
  // Filled on first use:
  PyObject* names[16] = {};
  int npositional = -1;
};

struct ParsedArgs {
  static constexpr int kMax = 16;
  PyObject* obj[kMax];
  PyObject* const* varargs = nullptr;  // x.view(2, 3): the ints, for argument 0
  Py_ssize_t nvarargs = 0;
  Tensor tmp[kMax];
  static constexpr int kMaxIntLists = 8;  // int[] arguments of one call (col2im has 5)
  DimVector lists[kMaxIntLists];
  int nlists = 0;

  bool has(int i) const { return obj[i] != nullptr && obj[i] != Py_None; }
  const Tensor& tensor(int i);
  std::optional<Tensor> tensor_opt(int i) { return has(i) ? std::optional<Tensor>(tensor(i)) : std::nullopt; }
  Scalar scalar(int i);
  std::optional<Scalar> scalar_opt(int i) { return has(i) ? std::optional<Scalar>(scalar(i)) : std::nullopt; }
  int64_t toint(int i);
  std::optional<int64_t> toint_opt(int i) { return has(i) ? std::optional<int64_t>(toint(i)) : std::nullopt; }
  double todouble(int i);
  std::optional<double> todouble_opt(int i) {
    return has(i) ? std::optional<double>(todouble(i)) : std::nullopt;
  }
  bool tobool(int i) { return obj[i] == Py_True; }
  std::optional<bool> tobool_opt(int i) { return has(i) ? std::optional<bool>(tobool(i)) : std::nullopt; }
  std::string_view string(int i);
  std::optional<std::string_view> string_opt(int i) {
    return has(i) ? std::optional<std::string_view>(string(i)) : std::nullopt;
  }
  std::optional<ScalarType> scalartype_opt(int i);
  ScalarType scalartype(int i);
  std::optional<Device> device_opt(int i);
  std::vector<Tensor> tensor_lists[2];
  int ntensor_lists = 0;
  ArrayRef<Tensor> tensorlist(int i);  // a tuple or list of tensors
  std::vector<std::optional<Tensor>> opt_tensor_list;
  ArrayRef<std::optional<Tensor>> opttensorlist(int i);  // a tuple or list of tensors and Nones (Tensor?[])
  // out= of an op with n returns: a tuple (or list) of exactly n tensors, else TypeError.
  ArrayRef<Tensor> out_tensors(int i, int n);
  std::optional<Generator> generator_opt(int i);
  IntArrayRef intlist(int i, int size);  // size: N of int[N], for a bare int
  std::vector<double> doubles;
  ArrayRef<double> floatlist(int i);  // a tuple or list of numbers (float[]: _upsample's scales)
  bool bools[kMax] = {};
  ArrayRef<bool> boollist(int i);  // a tuple or list of bools (bool[N]: convolution_backward's output_mask)
  std::optional<IntArrayRef> intlist_opt(int i, int size) {
    return has(i) ? std::optional<IntArrayRef>(intlist(i, size)) : std::nullopt;
  }
};

// Returns the index of the matching signature, or raises TypeError naming the
// op, what it got and the signatures it accepts. A sparse COO tensor among the
// Tensor arguments (or as `self`, a method's tensor) raises NotImplementedError
// naming the op: ops read dense tensors only (sparse/Coo.h).
int parse_args(Signature* sigs, int nsigs, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
               ParsedArgs& out, PyObject* self = nullptr);

// NotImplementedError naming op and arg when t is a sparse COO tensor (ops read dense tensors only); for the
// hand-written entry points (indexing, item) that do not go through parse_args.
void check_not_sparse(const char* op, const Tensor& t, const char* arg);

// The UserWarning of an overload tagged `deprecated` (add(a, 10, b)); raises when warnings are errors.
void warn_deprecated(const char* message);

// Conversions shared with hand-written bindings.
bool is_number(PyObject* obj);
Scalar to_scalar(PyObject* obj);
ScalarType to_scalar_type(PyObject* obj);  // a torchlite.dtype
bool is_dtype(PyObject* obj);
PyObject* dtype_object(ScalarType t);  // borrowed
Device to_device(PyObject* obj);       // str or torchlite.device
bool is_device(PyObject* obj);
bool is_device_like(PyObject* obj);  // a device, a device string or an int index
PyObject* make_device_object(Device d);  // new reference
void init_dtypes_and_devices(PyObject* module);

}  // namespace torchlite::python
