#include "python/ArgParser.h"

#include <cstring>
#include <string>

#include "core/TensorFactory.h"
#include "python/Errors.h"
#include "python/PyGenerator.h"
#include "python/PyTensor.h"
#include "sparse/Coo.h"

namespace torchlite::python {

// ------------------------------------------------------------------ type checks

bool is_number(PyObject* obj) {
  if (PyFloat_Check(obj) || PyLong_Check(obj) || PyComplex_Check(obj)) return true;  // bool is a PyLong
  if (is_tensor(obj) || PyUnicode_Check(obj) || PySequence_Check(obj)) return false;
  // NumPy scalars: integers have __index__, floats __float__, complex64 __complex__.
  return PyIndex_Check(obj) || (Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_float) ||
         PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)), "__complex__");
}

static bool is_int_like(PyObject* obj) {
  if (PyLong_CheckExact(obj)) return true;
  if (PyBool_Check(obj)) return false;
  if (PyLong_Check(obj)) return true;
  return !is_tensor(obj) && !PyFloat_Check(obj) && PyIndex_Check(obj);
}

static bool is_int_list(PyObject* obj, int size) {
  if (PyTuple_Check(obj) || PyList_Check(obj)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    PyObject** items = PySequence_Fast_ITEMS(obj);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!is_int_like(items[i])) return false;
    return true;
  }
  return size > 0 && is_int_like(obj);
}

static bool check_arg(const ArgSpec& a, PyObject* obj, bool numbers_as_tensors) {
  if (obj == Py_None) return a.optional;
  switch (a.kind) {
    case ArgKind::Tensor: return is_tensor(obj) || (numbers_as_tensors && a.number_ok && is_number(obj));
    // As PyTorch, a tensor passes for a number only when it is 0-dim (fill_(tensor([1.])) is refused).
    case ArgKind::Scalar: return is_number(obj) || (is_tensor(obj) && unwrap(obj).dim() == 0);
    case ArgKind::Int: return is_int_like(obj);
    case ArgKind::Float: return PyFloat_Check(obj) || (is_number(obj) && !PyBool_Check(obj));
    case ArgKind::Bool: return PyBool_Check(obj);
    case ArgKind::String: return PyUnicode_Check(obj);
    case ArgKind::ScalarType: return is_dtype(obj);
    case ArgKind::Device: return is_device_like(obj);  // a device, a string or an index (cuda:index)
    case ArgKind::Generator: return is_generator(obj);
    case ArgKind::IntList: return is_int_list(obj, a.size);
    case ArgKind::TensorList:
      if (!PyTuple_Check(obj) && !PyList_Check(obj)) return false;
      for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(obj); ++i)
        if (!is_tensor(PySequence_Fast_ITEMS(obj)[i])) return false;
      return true;
    case ArgKind::OptTensorList:
      if (!PyTuple_Check(obj) && !PyList_Check(obj)) return false;
      for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(obj); ++i) {
        PyObject* item = PySequence_Fast_ITEMS(obj)[i];
        if (item != Py_None && !is_tensor(item)) return false;
      }
      return true;
    case ArgKind::FloatList:
    case ArgKind::BoolList: return PyTuple_Check(obj) || PyList_Check(obj);
  }
  return false;
}

static const char* kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::Tensor: return "Tensor";
    case ArgKind::Scalar: return "Number";
    case ArgKind::Int: return "int";
    case ArgKind::Float: return "float";
    case ArgKind::Bool: return "bool";
    case ArgKind::String: return "str";
    case ArgKind::ScalarType: return "torchlite.dtype";
    case ArgKind::Device: return "torchlite.device";
    case ArgKind::Generator: return "torchlite.Generator";
    case ArgKind::IntList: return "tuple of ints";
    case ArgKind::TensorList: return "tuple of Tensors";
    case ArgKind::OptTensorList: return "tuple of Tensors or None";
    case ArgKind::FloatList: return "tuple of floats";
    case ArgKind::BoolList: return "tuple of bools";
  }
  return "?";
}

static std::string type_name(PyObject* obj) {
  if (is_tensor(obj)) return "Tensor";
  return Py_TYPE(obj)->tp_name;
}

// ------------------------------------------------------------------ matching

static void init_signature(Signature& sig) {
  int npos = 0;
  for (int i = 0; i < sig.nargs; ++i) {
    sig.names[i] = PyUnicode_InternFromString(sig.args[i].name);
    if (!sig.args[i].kwonly) ++npos;
  }
  sig.npositional = npos;
}

static int find_name(const Signature& sig, const char* name) {
  for (int i = 0; i < sig.nargs; ++i)
    if (std::strcmp(sig.args[i].name, name) == 0) return i;
  return -1;
}

// PyTorch's NumPy-style keyword aliases, for every op: axis= for dim=, keepdims= for keepdim=, and
// input= (or x=, a=, x1=) for the tensor argument the schema calls self (or input), x2= for other.
// Tried only when the keyword names no argument of the signature, so an argument of that name wins.
static int find_kwarg_alias(const Signature& sig, PyObject* key) {
  const char* k = PyUnicode_AsUTF8(key);
  if (!k) {
    PyErr_Clear();
    return -1;
  }
  if (std::strcmp(k, "axis") == 0) return find_name(sig, "dim");
  if (std::strcmp(k, "keepdims") == 0) return find_name(sig, "keepdim");
  if (std::strcmp(k, "x2") == 0) return find_name(sig, "other");
  if (std::strcmp(k, "input") == 0 || std::strcmp(k, "x") == 0 || std::strcmp(k, "a") == 0 ||
      std::strcmp(k, "x1") == 0) {
    int i = find_name(sig, "self");
    return i >= 0 || std::strcmp(k, "input") == 0 ? i : find_name(sig, "input");
  }
  return -1;
}

static int find_kwarg(const Signature& sig, PyObject* key) {
  for (int i = 0; i < sig.nargs; ++i)
    if (sig.names[i] == key) return i;
  for (int i = 0; i < sig.nargs; ++i)
    if (PyUnicode_Compare(sig.names[i], key) == 0) return i;
  return find_kwarg_alias(sig, key);
}

// Tries one signature. On failure, when `why` is given, explains the first problem.
static bool try_match(Signature& sig, const char* fname, PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwnames, ParsedArgs& out, std::string* why, bool numbers_as_tensors = true) {
  for (int i = 0; i < sig.nargs; ++i) out.obj[i] = nullptr;
  out.varargs = nullptr;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  const ArgSpec* a = sig.args;
  Py_ssize_t consumed = 0;
  // x.view(2, 3) / zeros(2, 3): leading ints fill an unsized int[] first argument.
  if (nargs >= 1 && sig.nargs >= 1 && a[0].kind == ArgKind::IntList && a[0].size == 0 && !a[0].kwonly &&
      is_int_like(args[0])) {
    Py_ssize_t n = 0;
    while (n < nargs && is_int_like(args[n])) ++n;
    out.varargs = args;
    out.nvarargs = n;
    out.obj[0] = Py_Ellipsis;  // marks "from varargs"
    consumed = n;
  }
  int pos = consumed ? 1 : 0;
  for (Py_ssize_t i = consumed; i < nargs; ++i, ++pos) {
    if (pos >= sig.npositional) {
      if (why) *why = str(fname, "() takes ", sig.npositional, " positional argument", sig.npositional == 1 ? "" : "s",
                          " but ", nargs, " were given");
      return false;
    }
    if (!check_arg(a[pos], args[i], numbers_as_tensors)) {
      if (why)
        *why = str(fname, "(): argument '", a[pos].name, "' (position ", pos + 1, ") must be ",
                   kind_name(a[pos].kind), ", not ", type_name(args[i]));
      return false;
    }
    out.obj[pos] = args[i];
  }
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int idx = find_kwarg(sig, key);
    if (idx < 0) {
      if (why) *why = str(fname, "() got an unexpected keyword argument '", PyUnicode_AsUTF8(key), "'");
      return false;
    }
    if (out.obj[idx] != nullptr) {
      if (why) *why = str(fname, "() got multiple values for argument '", a[idx].name, "'");
      return false;
    }
    PyObject* value = args[nargs + k];
    if (!check_arg(a[idx], value, numbers_as_tensors)) {
      if (why)
        *why = str(fname, "(): argument '", a[idx].name, "' must be ", kind_name(a[idx].kind), ", not ",
                   type_name(value));
      return false;
    }
    out.obj[idx] = value;
  }
  for (int i = 0; i < sig.nargs; ++i) {
    if (out.obj[i] == nullptr && !a[i].has_default) {
      if (why) *why = str(fname, "() missing required argument '", a[i].name, "'");
      return false;
    }
  }
  return true;
}

static bool is_sparse_obj(PyObject* o) { return is_tensor(o) && sparse::is_sparse(unwrap(o)); }

[[noreturn]] static void refuse_sparse(const std::string& fname, const char* arg) {
  throw_error(ErrorKind::NotImplemented,
              str(fname, "(): sparse COO tensors are not supported by this op (argument '", arg,
                  "'); convert with .to_dense() first"));
}

void check_not_sparse(const char* op, const Tensor& t, const char* arg) {
  if (TL_UNLIKELY(sparse::is_sparse(t))) refuse_sparse(op, arg);
}

// Ops read dense tensors only: a sparse COO tensor passed to one is refused (sparse/Coo.h).
static int dense_only(const Signature& sig, int index, const std::string& fname, const ParsedArgs& out,
                      PyObject* self) {
  if (self && TL_UNLIKELY(is_sparse_obj(self))) refuse_sparse(fname, "self");
  for (int i = 0; i < sig.nargs; ++i) {
    PyObject* o = out.obj[i];
    if (!o || o == Py_None || o == Py_Ellipsis) continue;
    const ArgKind k = sig.args[i].kind;
    if (k == ArgKind::Tensor) {
      if (TL_UNLIKELY(is_sparse_obj(o))) refuse_sparse(fname, sig.args[i].name);
    } else if ((k == ArgKind::TensorList || k == ArgKind::OptTensorList) && (PyList_Check(o) || PyTuple_Check(o))) {
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      PyObject** items = PySequence_Fast_ITEMS(o);
      for (Py_ssize_t j = 0; j < n; ++j)
        if (TL_UNLIKELY(is_sparse_obj(items[j]))) refuse_sparse(fname, sig.args[i].name);
    }
  }
  return index;
}

int parse_args(Signature* sigs, int nsigs, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
               ParsedArgs& out, PyObject* self) {
  std::string_view display = sigs[0].display;
  std::string fname(display.substr(0, display.find('(')));
  // With several overloads, a Python number goes to a Scalar parameter before it is taken as a
  // wrapped-number Tensor: pow(t, -1) is pow.Tensor_Scalar, not pow.Tensor_Tensor.
  if (nsigs > 1) {
    for (int s = 0; s < nsigs; ++s) {
      if (TL_UNLIKELY(sigs[s].npositional < 0)) init_signature(sigs[s]);
      if (try_match(sigs[s], fname.c_str(), args, nargs, kwnames, out, nullptr, /*numbers_as_tensors=*/false))
        return dense_only(sigs[s], s, fname, out, self);
    }
  }
  for (int s = 0; s < nsigs; ++s) {
    if (TL_UNLIKELY(sigs[s].npositional < 0)) init_signature(sigs[s]);
    if (try_match(sigs[s], fname.c_str(), args, nargs, kwnames, out, nullptr))
      return dense_only(sigs[s], s, fname, out, self);
  }
  std::string msg;
  if (nsigs == 1) {
    try_match(sigs[0], fname.c_str(), args, nargs, kwnames, out, &msg);
  } else {
    std::string got = "(";
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nargs; ++i) got += (i ? ", " : "") + type_name(args[i]);
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      got += (nargs + k ? ", " : "") + std::string(PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k))) + "=" +
             type_name(args[nargs + k]);
    }
    got += ")";
    msg = str(fname, "() received an invalid combination of arguments - got ", got, ", but expected one of:");
    for (int s = 0; s < nsigs; ++s) {
      std::string_view d = sigs[s].display;
      msg += str("\n * ", std::string(d.substr(d.find('('))));
    }
  }
  PyErr_SetString(PyExc_TypeError, msg.c_str());
  throw python_error();
}

void warn_deprecated(const char* message) {
  if (PyErr_WarnEx(PyExc_UserWarning, message, 1) < 0) throw python_error();
}

// ------------------------------------------------------------------ conversions

const Tensor& ParsedArgs::tensor(int i) {
  PyObject* o = obj[i];
  if (TL_LIKELY(is_tensor(o))) return unwrap(o);
  tmp[i] = scalar_to_tensor(to_scalar(o), /*wrapped=*/true);
  return tmp[i];
}

Scalar to_scalar(PyObject* o) {
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw_error(ErrorKind::Runtime, "Overflow when unpacking long");
    return Scalar(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (is_tensor(o)) return item(unwrap(o));
  if (PyComplex_Check(o) || (!PyIndex_Check(o) && PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(o)),
                                                                          "__complex__"))) {
    Py_complex c = PyComplex_AsCComplex(o);
    if (c.real == -1.0 && PyErr_Occurred()) throw python_error();
    return Scalar(Complex<double>(c.real, c.imag));
  }
  if (PyIndex_Check(o)) {
    PyObject* idx = PyNumber_Index(o);
    if (!idx) throw python_error();
    long long v = PyLong_AsLongLong(idx);
    Py_DECREF(idx);
    if (v == -1 && PyErr_Occurred()) throw python_error();
    return Scalar(static_cast<int64_t>(v));
  }
  double d = PyFloat_AsDouble(o);
  if (d == -1.0 && PyErr_Occurred()) throw python_error();
  return Scalar(d);
}

Scalar ParsedArgs::scalar(int i) { return to_scalar(obj[i]); }

static int64_t to_int64(PyObject* o) {
  long long v;
  if (PyLong_Check(o)) {
    v = PyLong_AsLongLong(o);
  } else {
    PyObject* idx = PyNumber_Index(o);
    if (!idx) throw python_error();
    v = PyLong_AsLongLong(idx);
    Py_DECREF(idx);
  }
  if (v == -1 && PyErr_Occurred()) throw python_error();
  return v;
}

int64_t ParsedArgs::toint(int i) { return to_int64(obj[i]); }

double ParsedArgs::todouble(int i) {
  double d = PyFloat_AsDouble(obj[i]);
  if (d == -1.0 && PyErr_Occurred()) throw python_error();
  return d;
}

std::string_view ParsedArgs::string(int i) {
  Py_ssize_t n;
  const char* s = PyUnicode_AsUTF8AndSize(obj[i], &n);
  if (!s) throw python_error();
  return std::string_view(s, static_cast<size_t>(n));
}

ScalarType ParsedArgs::scalartype(int i) { return to_scalar_type(obj[i]); }

std::optional<ScalarType> ParsedArgs::scalartype_opt(int i) {
  if (!has(i)) return std::nullopt;
  return to_scalar_type(obj[i]);
}

std::optional<Generator> ParsedArgs::generator_opt(int i) {
  if (!has(i)) return std::nullopt;
  return to_generator(obj[i]);
}

std::optional<Device> ParsedArgs::device_opt(int i) {
  if (!has(i)) return std::nullopt;
  return to_device(obj[i]);
}

ArrayRef<Tensor> ParsedArgs::tensorlist(int i) {
  TL_CHECK(ntensor_lists < 2, "too many Tensor[] arguments");
  std::vector<Tensor>& v = tensor_lists[ntensor_lists++];
  PyObject* o = obj[i];
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  v.reserve(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) v.push_back(unwrap(items[k]));
  return ArrayRef<Tensor>(v);
}

ArrayRef<std::optional<Tensor>> ParsedArgs::opttensorlist(int i) {
  std::vector<std::optional<Tensor>>& v = opt_tensor_list;
  PyObject* o = obj[i];
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  v.clear();
  v.reserve(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k)
    v.push_back(items[k] == Py_None ? std::nullopt : std::optional<Tensor>(unwrap(items[k])));
  return ArrayRef<std::optional<Tensor>>(v);
}

ArrayRef<Tensor> ParsedArgs::out_tensors(int i, int n) {
  Py_ssize_t got = PySequence_Fast_GET_SIZE(obj[i]);
  if (got != n) {
    PyErr_Format(PyExc_TypeError, "expected tuple of %d elements but got %zd", n, got);
    throw python_error();
  }
  return tensorlist(i);
}

IntArrayRef ParsedArgs::intlist(int i, int size) {
  TL_CHECK(nlists < kMaxIntLists, "too many int[] arguments");
  DimVector& v = lists[nlists++];
  PyObject* o = obj[i];
  if (o == Py_Ellipsis && varargs) {
    v.resize(static_cast<size_t>(nvarargs));
    for (Py_ssize_t k = 0; k < nvarargs; ++k) v[k] = to_int64(varargs[k]);
  } else if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    v.resize(static_cast<size_t>(n));
    for (Py_ssize_t k = 0; k < n; ++k) v[k] = to_int64(items[k]);
  } else {
    v.assign(static_cast<size_t>(size > 0 ? size : 1), to_int64(o));  // int[N] from a bare int
  }
  return v.ref();
}

ArrayRef<double> ParsedArgs::floatlist(int i) {
  PyObject* o = obj[i];
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  doubles.resize(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    TL_CHECK_TYPE(is_number(items[k]) && !PyBool_Check(items[k]), "expected a tuple of floats, but item ", k,
                  " is of type ", Py_TYPE(items[k])->tp_name);
    doubles[static_cast<size_t>(k)] = to_scalar(items[k]).to<double>();
  }
  return ArrayRef<double>(doubles.data(), doubles.size());
}

ArrayRef<bool> ParsedArgs::boollist(int i) {
  PyObject* o = obj[i];
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  TL_CHECK_TYPE(n <= kMax, "expected at most ", kMax, " bools, got ", n);
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t k = 0; k < n; ++k) {
    TL_CHECK_TYPE(PyBool_Check(items[k]), "expected a tuple of bools, but item ", k, " is of type ",
                  Py_TYPE(items[k])->tp_name);
    bools[k] = items[k] == Py_True;
  }
  return ArrayRef<bool>(bools, static_cast<size_t>(n));
}

}  // namespace torchlite::python
