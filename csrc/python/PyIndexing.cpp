// Tensor.__getitem__ / __setitem__: PyTorch's indexing rules in one pass over the
// index. Ints, slices, None, Ellipsis and 0-dim integer tensors are applied as
// views (select, _slice, unsqueeze), left to right; integer and bool tensors,
// Python lists and bools are recorded as advanced indices at the dim they apply
// to, and then gathered (_index) or written (index_put_) in one go, with NumPy's
// broadcasting and its rule that separated advanced indices put their dims first.
#include "python/PyIndexing.h"

#include <string>
#include <vector>

#include "core/TensorFactory.h"
#include "ops/_index.h"
#include "ops/_slice.h"
#include "ops/_to_copy.h"
#include "ops/as_strided.h"
#include "ops/copy.h"
#include "ops/fill_Scalar.h"
#include "ops/index_put.h"
#include "ops/masked_fill_Scalar.h"
#include "ops/masked_fill_Tensor.h"
#include "ops/select_int.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"
#include "python/ArgParser.h"
#include "python/Errors.h"
#include "python/PyTensor.h"

namespace torchlite::python {

namespace {

// A new reference that releases itself.
struct Ref {
  PyObject* p = nullptr;
  explicit Ref(PyObject* o) : p(o) {}
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  ~Ref() { Py_XDECREF(p); }
};

// NumPy's heuristic, as PyTorch applies it: a non-tuple sequence shorter than 32 that holds a tensor, a
// sequence, a slice, Ellipsis or None is read as a tuple of indices (x[[0, slice(None)]] is x[0, :]).
bool sequence_as_tuple(PyObject* index) {
  if (PyTuple_Check(index)) return true;
  if (is_tensor(index) || !PySequence_Check(index) || PyUnicode_Check(index)) return false;
  Py_ssize_t n = PySequence_Size(index);
  if (n < 0) {
    PyErr_Clear();
    return false;
  }
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Ref item(PySequence_GetItem(index, i));
    if (!item.p) {
      PyErr_Clear();
      return false;
    }
    if (is_tensor(item.p) || (PySequence_Check(item.p) && !PyUnicode_Check(item.p)) || PySlice_Check(item.p) ||
        item.p == Py_Ellipsis || item.p == Py_None)
      return true;
  }
  return false;
}

// A list (or array) used as an index: int64, unless it holds bools (a mask) or uint8 values.
Tensor sequence_to_index(PyObject* seq) {
  static PyObject* tensor_fn = nullptr;
  if (!tensor_fn) {
    Ref mod(PyImport_ImportModule("torchlite"));
    if (!mod.p) throw python_error();
    tensor_fn = PyObject_GetAttrString(mod.p, "tensor");
    if (!tensor_fn) throw python_error();
  }
  Ref t(PyObject_CallOneArg(tensor_fn, seq));
  if (!t.p) throw python_error();
  Tensor r = unwrap(t.p);
  ScalarType st = r.scalar_type();
  if (st == ScalarType::Bool || st == ScalarType::UInt8 || st == ScalarType::Int64) return r;
  return _to_copy(r, ScalarType::Int64);
}

enum class Kind { Int, Slice, None, Ellipsis, Bool, Tensor };

struct Item {
  Kind kind;
  PyObject* obj;
  int64_t value = 0;  // Int: the index; Bool: 0 or 1
  Tensor tensor;      // Tensor (an advanced index)
};

int64_t to_index(PyObject* obj) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow) throw_error(ErrorKind::Value, "Overflow when unpacking long long");
  if (v == -1 && PyErr_Occurred()) throw python_error();
  return v;
}

Item classify(PyObject* obj) {
  if (obj == Py_None) return {Kind::None, obj};
  if (obj == Py_Ellipsis) return {Kind::Ellipsis, obj};
  if (PyBool_Check(obj)) return {Kind::Bool, obj, obj == Py_True ? 1 : 0};
  if (PyLong_Check(obj)) return {Kind::Int, obj, to_index(obj)};
  if (PySlice_Check(obj)) return {Kind::Slice, obj};
  if (is_tensor(obj)) {
    const Tensor& t = unwrap(obj);
    ScalarType st = t.scalar_type();
    if (t.dim() == 0 && is_integral_type(st, /*include_bool=*/true)) {
      // A 0-dim integer tensor indexes like an int, a 0-dim bool (or uint8) one like a Python bool.
      if (st == ScalarType::Bool || st == ScalarType::UInt8) return {Kind::Bool, obj, item(t).to_bool() ? 1 : 0};
      return {Kind::Int, obj, item(t).to_long()};
    }
    return {Kind::Tensor, obj, 0, t};
  }
  if (PySequence_Check(obj) && !PyUnicode_Check(obj)) {  // lists, NumPy arrays
    Tensor t = sequence_to_index(obj);
    if (t.dim() == 0) return t.scalar_type() == ScalarType::Int64 ? Item{Kind::Int, obj, item(t).to_long()}
                                                                  : Item{Kind::Bool, obj, item(t).to_bool() ? 1 : 0};
    return {Kind::Tensor, obj, 0, t};
  }
  if (PyIndex_Check(obj) && !PyFloat_Check(obj)) {  // NumPy integers
    Ref i(PyNumber_Index(obj));
    if (!i.p) throw python_error();
    return {Kind::Int, obj, to_index(i.p)};
  }
  throw_error(ErrorKind::Index, str("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                                    "are valid indices (got ", Py_TYPE(obj)->tp_name, ")"));
}

// The dims an index item consumes of the tensor.
int64_t consumed_dims(const Item& it) {
  switch (it.kind) {
    case Kind::Int:
    case Kind::Slice: return 1;
    case Kind::Tensor: {
      ScalarType st = it.tensor.scalar_type();
      return (st == ScalarType::Bool || st == ScalarType::UInt8) ? it.tensor.dim() : 1;
    }
    default: return 0;
  }
}

Tensor int64_index(std::initializer_list<int64_t> values) {
  Tensor t = empty_tensor(DimVector{static_cast<int64_t>(values.size())}.ref(), ScalarType::Int64);
  int64_t* p = t.data<int64_t>();
  for (int64_t v : values) *p++ = v;
  return t;
}

struct Indexed {
  Tensor view;                              // self after the basic indices
  std::vector<std::optional<Tensor>> adv;  // advanced indices by dim of `view`
};

Indexed apply_indices(const Tensor& self, PyObject* key) {
  std::vector<Item> items;
  if (sequence_as_tuple(key)) {
    Ref seq(PySequence_Tuple(key));
    if (!seq.p) throw python_error();
    Py_ssize_t n = PyTuple_GET_SIZE(seq.p);
    items.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) items.push_back(classify(PyTuple_GET_ITEM(seq.p, i)));
  } else {
    items.push_back(classify(key));
  }
  int64_t specified = 0;
  for (const Item& it : items) specified += consumed_dims(it);
  if (specified > self.dim()) {
    TL_CHECK_INDEX(self.dim() != 0, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                   "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    TL_CHECK_INDEX(false, "too many indices for tensor of dimension ", self.dim());
  }
  Indexed r;
  // x[...] and x[()] are views of the whole tensor (with _base set).
  r.view = as_strided(self, self.sizes(), self.strides(), self.storage_offset());
  int64_t dim = 0;   // the dim of r.view the next item applies to
  int64_t real = 0;  // the dim of self it applies to (for error messages, as PyTorch counts)
  auto record = [&](const Tensor& t, int64_t width) {
    if (static_cast<int64_t>(r.adv.size()) < dim + 1) r.adv.resize(static_cast<size_t>(dim + 1));
    r.adv[static_cast<size_t>(dim)] = t;
    dim += width;
  };
  for (const Item& it : items) {
    switch (it.kind) {
      case Kind::Int: {
        int64_t n = r.view.sizes()[dim];
        TL_CHECK_INDEX(it.value >= -n && it.value < n, "index ", it.value, " is out of bounds for dimension ", real,
                       " with size ", n);
        r.view = select(r.view, dim, it.value < 0 ? it.value + n : it.value);
        ++real;
        break;
      }
      case Kind::Slice: {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(it.obj, &start, &stop, &step) < 0) throw python_error();
        TL_CHECK_VALUE(step > 0, "step must be greater than zero");
        r.view = _slice(r.view, dim, start, stop, step);
        ++dim;
        ++real;
        break;
      }
      case Kind::None:
        r.view = unsqueeze(r.view, dim);
        ++dim;
        break;
      case Kind::Ellipsis:
        dim += self.dim() - specified;
        real += self.dim() - specified;
        break;
      case Kind::Bool:
        // A new dim of size 1, indexed by [0] (True) or by nothing (False).
        r.view = unsqueeze(r.view, dim);
        record(it.value ? int64_index({0}) : int64_index({}), 1);
        break;
      case Kind::Tensor:
        real += consumed_dims(it);
        record(it.tensor, consumed_dims(it));
        break;
    }
  }
  return r;
}

bool has_advanced(const Indexed& r) {
  for (const auto& t : r.adv)
    if (t.has_value()) return true;
  return false;
}

// value without its leading size-1 dims (x[0] = ones(1, 1, 3) writes a row), as PyTorch strips them.
Tensor strip_leading_ones(const Tensor& value) {
  int64_t k = 0;
  while (k < value.dim() && value.sizes()[k] == 1) ++k;
  if (k == 0) return value;
  DimVector s, st;
  for (int64_t d = k; d < value.dim(); ++d) {
    s.push_back(value.sizes()[d]);
    st.push_back(value.strides()[d]);
  }
  return as_strided(value, s.ref(), st.ref(), value.storage_offset());
}

PyObject* getitem(PyObject* self_obj, PyObject* key) {
  TL_PY_BEGIN
  const Tensor& self = unwrap(self_obj);
  check_not_sparse("__getitem__", self, "self");
  // Fast path: x[i].
  if (PyLong_CheckExact(key) && self.dim() > 0) {
    int64_t i = to_index(key), n = self.sizes()[0];
    TL_CHECK_INDEX(i >= -n && i < n, "index ", i, " is out of bounds for dimension 0 with size ", n);
    return wrap(select(self, 0, i < 0 ? i + n : i));
  }
  Indexed r = apply_indices(self, key);
  if (!has_advanced(r)) return wrap(r.view);
  return wrap(_index(r.view, ArrayRef<std::optional<Tensor>>(r.adv)));
  TL_PY_END
}

// x[mask] = number (or a 0-dim tensor), with one bool mask as the only advanced index, is a masked_fill_
// of the view, as in PyTorch: index_put_ would first turn the mask into int64 indices and offsets
// (16 bytes per selected element; a 4 MB mask took 48 MB). False when the key is any other kind.
bool assign_by_mask(const Indexed& r, const std::optional<Scalar>& number, const Tensor& v) {
  if (!number && (!v.defined() || v.dim() != 0)) return false;
  int64_t at = -1;
  for (size_t d = 0; d < r.adv.size(); ++d) {
    if (!r.adv[d].has_value()) continue;
    if (at >= 0) return false;
    at = static_cast<int64_t>(d);
  }
  if (at < 0) return false;
  const Tensor& m = *r.adv[static_cast<size_t>(at)];
  if (m.scalar_type() != ScalarType::Bool || m.device() != r.view.device()) return false;
  // The mask covers dims [at, at + m.dim()) of the view and must match their sizes (else index_put_
  // reports the mismatch); it is seen with size-1 dims around it, which masked_fill_ broadcasts.
  if (at + m.dim() > r.view.dim()) return false;
  for (int64_t d = 0; d < m.dim(); ++d)
    if (m.sizes()[d] != r.view.sizes()[at + d]) return false;
  Tensor mask = m;
  for (int64_t d = 0; d < at; ++d) mask = unsqueeze(mask, 0);
  while (mask.dim() < r.view.dim()) mask = unsqueeze(mask, mask.dim());
  if (number) {
    masked_fill_(r.view, mask, *number);
  } else {
    masked_fill_(r.view, mask, v.scalar_type() == r.view.scalar_type() ? v : _to_copy(v, r.view.scalar_type()));
  }
  return true;
}

int setitem(PyObject* self_obj, PyObject* key, PyObject* value) {
  try {
    const Tensor& self = unwrap(self_obj);
    if (value == nullptr) throw_error(ErrorKind::Type, "Tensor does not support deleting items");
    check_not_sparse("__setitem__", self, "self");
    if (is_tensor(value)) check_not_sparse("__setitem__", unwrap(value), "value");
    std::optional<Scalar> number;
    Tensor v;
    if (is_tensor(value)) {
      v = unwrap(value);
    } else if (is_number(value)) {
      number = to_scalar(value);
    } else {
      throw_error(ErrorKind::Type, str("can't assign a ", Py_TYPE(value)->tp_name, " to a torchlite.",
                                       scalar_type_name(self.scalar_type()), "Tensor"));
    }
    Indexed r = apply_indices(self, key);
    if (!has_advanced(r)) {
      if (number) {
        fill_(r.view, *number);
      } else {
        copy_(r.view, strip_leading_ones(v));
      }
      return 0;
    }
    if (assign_by_mask(r, number, v)) return 0;
    Tensor values;
    if (number) {
      values = empty_tensor(IntArrayRef(), self.scalar_type(), self.device());
      fill_(values, *number);
    } else {
      values = strip_leading_ones(v);
      if (values.scalar_type() != self.scalar_type()) values = _to_copy(values, self.scalar_type());
    }
    index_put_(r.view, ArrayRef<std::optional<Tensor>>(r.adv), values, /*accumulate=*/false);
    return 0;
  } catch (...) {
    set_python_error(std::current_exception());
    return -1;
  }
}

PyMappingMethods mapping = {nullptr, getitem, setitem};

}  // namespace

PyMappingMethods* tensor_mapping_methods() { return &mapping; }

}  // namespace torchlite::python
