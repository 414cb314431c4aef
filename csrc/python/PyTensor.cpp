#include "python/PyTensor.h"

#include <map>
#include <new>
#include <string>

#include "autograd/AutogradMeta.h"
#include "core/TensorFactory.h"
#include "python/ArgParser.h"
#include "python/PyAutograd.h"
#include "python/Errors.h"
#include "python/PyIndexing.h"
#include "sparse/Coo.h"

namespace torchlite::python {

PyTypeObject* TensorBaseType = nullptr;
PyTypeObject* TensorClass = nullptr;

// ------------------------------------------------------------------ object lifetime

static PyObject* alloc_object(PyTypeObject* type, Tensor t) {
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) throw python_error();
  new (&reinterpret_cast<PyTensor*>(obj)->tensor) Tensor(std::move(t));
  reinterpret_cast<PyTensor*>(obj)->tensor.impl()->set_pyobj(obj);
  return obj;
}

PyObject* wrap(Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  if (void* existing = t.impl()->pyobj()) {
    Py_INCREF(static_cast<PyObject*>(existing));
    return static_cast<PyObject*>(existing);
  }
  return alloc_object(TensorClass ? TensorClass : TensorBaseType, std::move(t));
}

PyObject* wrap(const std::vector<Tensor>& ts) {
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(ts.size()));
  if (!tuple) throw python_error();
  for (size_t i = 0; i < ts.size(); ++i) {
    PyObject* item = wrap(ts[i]);
    if (!item) {
      Py_DECREF(tuple);
      throw python_error();
    }
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), item);
  }
  return tuple;
}

// A subclass instance, or one carrying attributes, must survive while C++ holds
// its tensor: when its last Python reference goes, C++ takes ownership of it.
static bool should_preserve(PyObject* self) {
  if (Py_TYPE(self) != TensorClass && Py_TYPE(self) != TensorBaseType) return true;
  PyObject** dict = _PyObject_GetDictPtr(self);
  return dict && *dict && PyDict_GET_SIZE(*dict) > 0;
}

static void tensor_finalize(PyObject* self) {
  Tensor& t = reinterpret_cast<PyTensor*>(self)->tensor;
  TensorImpl* impl = t.impl();
  if (!impl || impl->owns_pyobj() || impl->use_count() <= 1 || !should_preserve(self)) return;
  // Resurrect: the TensorImpl now holds the only reference to this object, and
  // our reference to the TensorImpl becomes a borrowed one.
  Py_INCREF(self);
  impl->set_owns_pyobj(true);
  intrusive_decref(impl);  // use_count was > 1: this never frees
}

// Called (with the GIL taken here) when the last C++ reference to a tensor that
// owns its Python object goes away: the object takes its tensor back and dies.
static void release_pyobj(TensorImpl* impl) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* obj = static_cast<PyObject*>(impl->pyobj());
  intrusive_incref(impl);  // the object's reference becomes a strong one again
  impl->set_owns_pyobj(false);
  Py_DECREF(obj);
  PyGILState_Release(gil);
}

static void tensor_dealloc(PyObject* self) {
  if (Py_TYPE(self)->tp_finalize && PyObject_CallFinalizerFromDealloc(self) < 0) return;  // resurrected
  PyObject_GC_UnTrack(self);
  Tensor& t = reinterpret_cast<PyTensor*>(self)->tensor;
  if (t.defined() && t.impl()->pyobj() == self) t.impl()->set_pyobj(nullptr);
  t.~Tensor();
  Py_TYPE(self)->tp_free(self);
}

// The GC sees the Python functions of the tensor's hooks (when the tensor alone owns them).
static int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  const Tensor& t = reinterpret_cast<PyTensor*>(self)->tensor;
  return t.defined() ? traverse_autograd(t, visit, arg) : 0;
}

static int tensor_clear(PyObject* self) {
  const Tensor& t = reinterpret_cast<PyTensor*>(self)->tensor;
  if (t.defined()) clear_autograd(t);
  return 0;
}

static PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  if (PyTuple_GET_SIZE(args) == 0 && (!kwargs || PyDict_GET_SIZE(kwargs) == 0)) {
    return alloc_object(type, empty_tensor({0}, default_dtype()));
  }
  PyErr_SetString(PyExc_TypeError,
                  "torchlite.Tensor(...) with arguments is not supported: use torchlite.tensor(data), "
                  "torchlite.empty(size) or Tensor._make_subclass(cls, data)");
  return nullptr;
  TL_PY_END
}

// ------------------------------------------------------------------ properties

static PyObject* make_size(IntArrayRef sizes) {
  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(sizes.size()));
  for (size_t i = 0; i < sizes.size(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(sizes[i]));
  static PyObject* size_class = nullptr;
  if (!size_class) {
    PyObject* mod = PyImport_ImportModule("torchlite._size");
    if (mod) {
      size_class = PyObject_GetAttrString(mod, "Size");
      Py_DECREF(mod);
    }
    if (!size_class) {
      PyErr_Clear();
      return tup;
    }
  }
  PyObject* size = PyObject_CallOneArg(size_class, tup);
  Py_DECREF(tup);
  return size;
}

static PyObject* get_shape(PyObject* self, void*) {
  TL_PY_BEGIN
  return make_size(unwrap(self).sizes());
  TL_PY_END
}
static PyObject* get_dtype(PyObject* self, void*) {
  PyObject* d = dtype_object(unwrap(self).scalar_type());
  Py_INCREF(d);
  return d;
}
static PyObject* get_device(PyObject* self, void*) {
  TL_PY_BEGIN
  Device d = unwrap(self).device();
  if (d.is_cuda() && d.index < 0) d.index = 0;
  return make_device_object(d);
  TL_PY_END
}
static PyObject* get_version(PyObject* self, void*) { return PyLong_FromUnsignedLong(unwrap(self).version()); }
static PyObject* get_base(PyObject* self, void*) {
  TL_PY_BEGIN
  const auto& base = unwrap(self).impl()->view_base();
  if (!base) Py_RETURN_NONE;
  return wrap(Tensor(base));
  TL_PY_END
}
static PyObject* get_ndim(PyObject* self, void*) { return PyLong_FromLongLong(unwrap(self).dim()); }
static PyObject* get_is_cuda(PyObject* self, void*) { return PyBool_FromLong(unwrap(self).is_cuda()); }
static PyObject* get_requires_grad(PyObject* self, void*) {
  TL_PY_BEGIN
  autograd::refresh_view(unwrap(self));  // a view whose base was written in place follows the base
  return PyBool_FromLong(unwrap(self).requires_grad());
  TL_PY_END
}
static int set_requires_grad(PyObject* self, PyObject* value, void*) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(value && PyBool_Check(value), "requires_grad must be a bool");
  autograd::set_requires_grad(unwrap(self), value == Py_True);
  return 0;
  TL_PY_END_INT
}
// .data: the same memory without autograd history and with a version counter of its own, so writes
// through it are not seen by autograd (PyTorch's semantics; detach() shares the counter).
static PyObject* get_data(PyObject* self, void*) {
  TL_PY_BEGIN
  const Tensor& t = unwrap(self);
  return wrap(make_alias(t, t.sizes(), t.strides(), t.storage_offset()));
  TL_PY_END
}
// x.data = y: x now holds y's memory, shape, dtype and device (Module.to/half/cuda keep their
// Parameter objects this way); y must be a Tensor, and a leaf that requires grad keeps doing so.
static int set_data(PyObject* self, PyObject* value, void*) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(value && is_tensor(value), "assigned data must be a Tensor, not ",
                value ? Py_TYPE(value)->tp_name : "deletion");
  const Tensor& t = unwrap(self);
  const Tensor& src = unwrap(value);
  TL_CHECK_VALUE(!src.impl()->is_wrapped_number(), "assigned data must not be a wrapped number");
  t.impl()->shallow_copy_from(*src.impl());
  return 0;
  TL_PY_END_INT
}
static PyObject* get_grad(PyObject* self, void*) {
  TL_PY_BEGIN
  return tensor_get_grad(unwrap(self));
  TL_PY_END
}
static int set_grad(PyObject* self, PyObject* value, void*) {
  TL_PY_BEGIN
  tensor_set_grad(unwrap(self), value);
  return 0;
  TL_PY_END_INT
}
static PyObject* get_grad_fn(PyObject* self, void*) {
  TL_PY_BEGIN
  return tensor_get_grad_fn(unwrap(self));
  TL_PY_END
}
static PyObject* get_is_leaf(PyObject* self, void*) {
  TL_PY_BEGIN
  return PyBool_FromLong(autograd::is_leaf(unwrap(self)));
  TL_PY_END
}
static PyObject* get_retains_grad(PyObject* self, void*) {
  auto* m = autograd::get_meta(unwrap(self));
  return PyBool_FromLong(m && m->grad_fn_ && m->hooks_ && m->hooks_->retains_grad);
}
static PyObject* get_output_nr(PyObject* self, void*) {
  TL_PY_BEGIN
  autograd::refresh_view(unwrap(self));
  auto* m = autograd::get_meta(unwrap(self));
  return PyLong_FromLong(m ? m->output_nr_ : 0);
  TL_PY_END
}

static PyObject* get_array_interface(PyObject* self, void*) {
  TL_PY_BEGIN
  const Tensor& t = unwrap(self);
  TL_CHECK_TYPE(!sparse::is_sparse(t), "can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.");
  TL_CHECK_TYPE(t.device().is_cpu(), "can't convert ", to_string(t.device()),
                " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  TL_CHECK(!t.is_conj(), "Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() "
           "instead.");
  const char* typestr = nullptr;
  switch (t.scalar_type()) {
    case ScalarType::Bool: typestr = "|b1"; break;
    case ScalarType::UInt8: typestr = "|u1"; break;
    case ScalarType::Int8: typestr = "|i1"; break;
    case ScalarType::Int16: typestr = "<i2"; break;
    case ScalarType::Int32: typestr = "<i4"; break;
    case ScalarType::Int64: typestr = "<i8"; break;
    case ScalarType::Half: typestr = "<f2"; break;
    case ScalarType::Float: typestr = "<f4"; break;
    case ScalarType::Double: typestr = "<f8"; break;
    case ScalarType::UInt16: typestr = "<u2"; break;
    case ScalarType::UInt32: typestr = "<u4"; break;
    case ScalarType::UInt64: typestr = "<u8"; break;
    case ScalarType::ComplexFloat: typestr = "<c8"; break;
    case ScalarType::ComplexDouble: typestr = "<c16"; break;
    default: TL_CHECK_TYPE(false, "Got unsupported ScalarType ", scalar_type_name(t.scalar_type()));
  }
  PyObject* shape = PyTuple_New(t.dim());
  PyObject* strides = PyTuple_New(t.dim());
  for (int64_t i = 0; i < t.dim(); ++i) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t.sizes()[i]));
    PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(t.strides()[i] * t.element_size()));
  }
  void* ptr = t.numel() ? t.data_ptr() : nullptr;
  return Py_BuildValue("{s:N,s:s,s:(N,O),s:N,s:i}", "shape", shape, "typestr", typestr, "data",
                       PyLong_FromVoidPtr(ptr), Py_False, "strides", strides, "version", 3);
  TL_PY_END
}

static PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, nullptr, "the tensor's shape, a torchlite.Size", nullptr},
    {"dtype", get_dtype, nullptr, "the tensor's dtype", nullptr},
    {"device", get_device, nullptr, "the tensor's device", nullptr},
    {"_version", get_version, nullptr, "the version counter, bumped by in-place and out= writes", nullptr},
    {"_base", get_base, nullptr, "the tensor this one is a view of, or None", nullptr},
    {"ndim", get_ndim, nullptr, "the number of dims", nullptr},
    {"is_cuda", get_is_cuda, nullptr, "whether the tensor is on a CUDA device", nullptr},
    {"requires_grad", get_requires_grad, set_requires_grad, "whether autograd records ops on this tensor", nullptr},
    {"data", get_data, set_data, "the tensor's memory without autograd history (writes are not tracked)", nullptr},
    {"grad", get_grad, set_grad, "the accumulated gradient (leaves, and tensors that retain_grad())", nullptr},
    {"grad_fn", get_grad_fn, nullptr, "the backward node that produced this tensor, or None for a leaf", nullptr},
    {"is_leaf", get_is_leaf, nullptr, "whether the tensor has no grad_fn", nullptr},
    {"retains_grad", get_retains_grad, nullptr, "whether a non-leaf keeps its .grad (retain_grad())", nullptr},
    {"output_nr", get_output_nr, nullptr, "which output of its grad_fn this tensor is", nullptr},
    {"__array_interface__", get_array_interface, nullptr, "NumPy's array interface (CPU tensors)", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

// ------------------------------------------------------------------ methods

static PyObject* scalar_to_py(const Scalar& s) {
  switch (s.tag()) {
    case Scalar::Tag::Bool: return PyBool_FromLong(s.to_bool());
    case Scalar::Tag::Int: return PyLong_FromLongLong(s.to_long());
    case Scalar::Tag::Complex: return PyComplex_FromDoubles(s.to_double(), s.imag());
    default: return PyFloat_FromDouble(s.to_double());
  }
}

static PyObject* m_item(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  const Tensor& t = unwrap(self);
  check_not_sparse("item", t, "self");
  if (t.scalar_type() == ScalarType::UInt64)  // item() keeps a uint64's bits in an int64
    return PyLong_FromUnsignedLongLong(static_cast<uint64_t>(item(t).to_long()));
  return scalar_to_py(item(t));
  TL_PY_END
}
static PyObject* m_dim(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).dim()); }
static PyObject* m_numel(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).numel()); }
static PyObject* m_is_contiguous(PyObject* self, PyObject*) { return PyBool_FromLong(unwrap(self).is_contiguous()); }
static PyObject* m_is_conj(PyObject* self, PyObject*) { return PyBool_FromLong(unwrap(self).is_conj()); }
static PyObject* m_storage_offset(PyObject* self, PyObject*) {
  return PyLong_FromLongLong(unwrap(self).storage_offset());
}
static PyObject* m_element_size(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).element_size()); }
static PyObject* m_data_ptr(PyObject* self, PyObject*) {
  return PyLong_FromVoidPtr(unwrap(self).numel() ? unwrap(self).data_ptr() : nullptr);
}
// The storage's start address and size in bytes: which tensors share memory (torchlite.save writes one
// record per storage) and how much of it there is.
static PyObject* m_storage_ptr(PyObject* self, PyObject*) {
  const Storage& s = unwrap(self).impl()->storage();
  return PyLong_FromVoidPtr(s ? s->data() : nullptr);
}
static PyObject* m_storage_nbytes(PyObject* self, PyObject*) {
  const Storage& s = unwrap(self).impl()->storage();
  return PyLong_FromSize_t(s ? s->nbytes() : 0);
}
static PyObject* m_is_view(PyObject* self, PyObject*) { return PyBool_FromLong(unwrap(self).is_view()); }

static PyObject* size_or_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs, bool stride) {
  TL_PY_BEGIN
  const Tensor& t = unwrap(self);
  if (nargs == 0 || args[0] == Py_None) {
    if (!stride) return make_size(t.sizes());
    PyObject* tup = PyTuple_New(t.dim());  // strides are a plain tuple, as in PyTorch
    for (int64_t i = 0; i < t.dim(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(t.strides()[i]));
    return tup;
  }
  TL_CHECK_TYPE(nargs == 1 && PyLong_Check(args[0]) && !PyBool_Check(args[0]), stride ? "stride" : "size",
                "() takes an optional int dim");
  int64_t d = t.wrap_dim(PyLong_AsLongLong(args[0]));
  if (t.dim() == 0) TL_CHECK_INDEX(false, "Dimension specified as ", d, " but tensor has no dimensions");
  return PyLong_FromLongLong(stride ? t.strides()[d] : t.sizes()[d]);
  TL_PY_END
}
static PyObject* m_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return size_or_stride(self, args, nargs, false);
}
static PyObject* m_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return size_or_stride(self, args, nargs, true);
}

// Tensor._make_subclass(cls, data, require_grad=False): an instance of cls
// sharing data's storage and version counter (a detached alias).
static PyObject* m_make_subclass(PyObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kwlist[] = {"cls", "data", "require_grad", nullptr};
  PyObject *cls, *data;
  int require_grad = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|p", const_cast<char**>(kwlist), &cls, &data, &require_grad))
    return nullptr;
  TL_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), TensorBaseType),
                "_make_subclass(): cls must be a subclass of torchlite.Tensor");
  TL_CHECK_TYPE(is_tensor(data), "_make_subclass(): data must be a Tensor, not ", Py_TYPE(data)->tp_name);
  Tensor alias = autograd::detach(unwrap(data));
  if (require_grad) autograd::set_requires_grad(alias, true);
  return alloc_object(reinterpret_cast<PyTypeObject*>(cls), std::move(alias));
  TL_PY_END
}

static PyObject* m_requires_grad_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_BEGIN
  bool value = true;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  TL_CHECK_TYPE(nargs + nkw <= 1, "requires_grad_() takes at most one argument (requires_grad)");
  if (nkw) {
    TL_CHECK_TYPE(PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "requires_grad") == 0,
                  "requires_grad_() got an unexpected keyword argument");
  }
  if (nargs + nkw == 1) {
    TL_CHECK_TYPE(PyBool_Check(args[0]), "requires_grad_(): argument 'requires_grad' must be bool, not ",
                  Py_TYPE(args[0])->tp_name);
    value = args[0] == Py_True;
  }
  autograd::set_requires_grad(unwrap(self), value);
  Py_INCREF(self);
  return self;
  TL_PY_END
}
static PyObject* m_detach(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  return wrap(autograd::detach(unwrap(self)));
  TL_PY_END
}
static PyObject* m_detach_(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  const Tensor& t = unwrap(self);
  TL_CHECK(!t.is_view(), "Can't detach views in-place. Use detach() instead.");
  if (auto* m = autograd::get_meta(t)) {
    m->grad_fn_.reset();
    m->output_nr_ = 0;
    m->requires_grad_ = false;
  }
  Py_INCREF(self);
  return self;
  TL_PY_END
}

static PyMethodDef tensor_methods[] = {
    {"requires_grad_", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_requires_grad_)),
     METH_FASTCALL | METH_KEYWORDS, "requires_grad_(requires_grad=True): sets requires_grad in place, returns self"},
    {"detach", m_detach, METH_NOARGS, "A tensor sharing this one's data, without autograd history"},
    {"detach_", m_detach_, METH_NOARGS, "Detaches this tensor from the graph in place"},
    {"item", m_item, METH_NOARGS, "the value of a one-element tensor as a Python number"},
    {"dim", m_dim, METH_NOARGS, "the number of dims"},
    {"ndimension", m_dim, METH_NOARGS, "the number of dims"},
    {"numel", m_numel, METH_NOARGS, "the number of elements"},
    {"nelement", m_numel, METH_NOARGS, "the number of elements"},
    {"is_contiguous", m_is_contiguous, METH_NOARGS, "whether the layout is dense row-major"},
    {"is_conj", m_is_conj, METH_NOARGS, "whether the tensor is a lazily conjugated view (conj(); resolve_conj())"},
    {"storage_offset", m_storage_offset, METH_NOARGS, "the offset into the storage, in elements"},
    {"_storage_ptr", m_storage_ptr, METH_NOARGS, "the address where the tensor's storage starts"},
    {"_storage_nbytes", m_storage_nbytes, METH_NOARGS, "the size of the tensor's storage in bytes"},
    {"element_size", m_element_size, METH_NOARGS, "bytes per element"},
    {"data_ptr", m_data_ptr, METH_NOARGS, "the address of the first element"},
    {"_is_view", m_is_view, METH_NOARGS, "whether this tensor is a view of another"},
    {"size", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_size)), METH_FASTCALL,
     "size(dim=None): the shape, or one dim's size"},
    {"stride", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_stride)), METH_FASTCALL,
     "stride(dim=None): the strides, or one dim's stride"},
    {"_make_subclass", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_make_subclass)),
     METH_VARARGS | METH_KEYWORDS | METH_STATIC, "_make_subclass(cls, data, require_grad=False)"},
    {nullptr, nullptr, 0, nullptr},
};

// ------------------------------------------------------------------ number slots

static std::map<std::string, FastMethod>& method_registry() {
  static std::map<std::string, FastMethod> r;
  return r;
}

void register_method_entry(const char* name, FastMethod fn) { method_registry()[name] = fn; }

// Python's operators call the generated methods: `a - b` is a.sub(b). The
// methods are looked up by name once, when the module initializes.
enum Slot : int {
  kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow, kAnd, kOr, kXor, kLshift, kRshift,
  kNumBinary,
};
struct BinarySlot {
  const char* method;
  bool commutative;  // `2 * t` may call t.mul(2)
};
static const BinarySlot kBinary[kNumBinary] = {
    {"add", true},        {"sub", false},         {"mul", true},         {"div", false},
    {"floor_divide", false}, {"remainder", false}, {"pow", false},       {"bitwise_and", true},
    {"bitwise_or", true}, {"bitwise_xor", true},  {"bitwise_left_shift", false}, {"bitwise_right_shift", false},
};
static FastMethod g_binary[kNumBinary], g_inplace[kNumBinary];
static FastMethod g_neg, g_abs, g_matmul, g_compare[6];  // compare: Py_LT .. Py_GE order

static PyObject* missing_method(const char* name) {
  PyErr_Format(PyExc_TypeError, "torchlite: the schema has no method '%s' for this operator", name);
  return nullptr;
}

static PyObject* call_method(FastMethod fn, const char* name, PyObject* self, PyObject* arg) {
  if (!fn) return missing_method(name);
  return fn(self, &arg, 1, nullptr);
}

// a <op> b, and the reflected b <op> a when `a` is a Python number: a commutative
// op calls b's method; any other wraps the number as a 0-dim wrapped-number tensor
// (it promotes like the Python number) and calls its method: `2 - t` is wrapped(2).sub(t).
static PyObject* binary(int slot, PyObject* a, PyObject* b) {
  FastMethod fn = g_binary[slot];
  if (is_tensor(a) && (is_tensor(b) || is_number(b))) return call_method(fn, kBinary[slot].method, a, b);
  if (is_tensor(b) && is_number(a)) {
    if (kBinary[slot].commutative) return call_method(fn, kBinary[slot].method, b, a);
    TL_PY_BEGIN
    PyObject* w = wrap(scalar_to_tensor(to_scalar(a), /*wrapped=*/true));
    PyObject* r = call_method(fn, kBinary[slot].method, w, b);
    Py_DECREF(w);
    return r;
    TL_PY_END
  }
  Py_RETURN_NOTIMPLEMENTED;
}

static PyObject* inplace(int slot, PyObject* a, PyObject* b) {
  if (!is_tensor(a) || !(is_tensor(b) || is_number(b))) Py_RETURN_NOTIMPLEMENTED;
  return call_method(g_inplace[slot], kBinary[slot].method, a, b);
}

#define TL_BINARY_SLOTS(fn, slot)                                                     \
  static PyObject* nb_##fn(PyObject* a, PyObject* b) { return binary(slot, a, b); } \
  static PyObject* nb_i##fn(PyObject* a, PyObject* b) { return inplace(slot, a, b); }
TL_BINARY_SLOTS(add, kAdd)
TL_BINARY_SLOTS(sub, kSub)
TL_BINARY_SLOTS(mul, kMul)
TL_BINARY_SLOTS(div, kDiv)
TL_BINARY_SLOTS(floordiv, kFloorDiv)
TL_BINARY_SLOTS(mod, kMod)
TL_BINARY_SLOTS(and, kAnd)
TL_BINARY_SLOTS(or, kOr)
TL_BINARY_SLOTS(xor, kXor)
TL_BINARY_SLOTS(lshift, kLshift)
TL_BINARY_SLOTS(rshift, kRshift)
#undef TL_BINARY_SLOTS

static PyObject* nb_pow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary(kPow, a, b);
}
static PyObject* nb_ipow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return inplace(kPow, a, b);
}
// a @ b (and the reflected form, which Python tries when a is not a Tensor) is
// a.matmul(b) for two tensors only, as in PyTorch; `a @= b` rebinds a to a @ b.
static PyObject* nb_matmul(PyObject* a, PyObject* b) {
  if (!is_tensor(a) || !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  return call_method(g_matmul, "matmul", a, b);
}
static PyObject* nb_neg(PyObject* a) { return g_neg ? g_neg(a, nullptr, 0, nullptr) : missing_method("neg"); }
static PyObject* nb_abs(PyObject* a) { return g_abs ? g_abs(a, nullptr, 0, nullptr) : missing_method("abs"); }

// Comparisons: the first operand is always ours (Python swaps `2 < t` to `t > 2`).
static const char* const kCompareNames[6] = {"lt", "le", "eq", "ne", "gt", "ge"};  // Py_LT .. Py_GE

static PyObject* tensor_richcompare(PyObject* a, PyObject* b, int op) {
  if (!is_tensor(a) || !(is_tensor(b) || is_number(b))) Py_RETURN_NOTIMPLEMENTED;
  return call_method(g_compare[op], kCompareNames[op], a, b);
}

static PyNumberMethods tensor_as_number = {};

void init_number_slots() {
  auto find = [](const std::string& name) -> FastMethod {
    auto it = method_registry().find(name);
    return it == method_registry().end() ? nullptr : it->second;
  };
  for (int i = 0; i < kNumBinary; ++i) {
    g_binary[i] = find(kBinary[i].method);
    g_inplace[i] = find(std::string(kBinary[i].method) + "_");
  }
  g_neg = find("neg");
  g_abs = find("abs");
  g_matmul = find("matmul");
  for (int op = 0; op < 6; ++op) g_compare[op] = find(kCompareNames[op]);
}

// ------------------------------------------------------------------ the type

void init_tensor_type(PyObject* module) {
  static PyTypeObject type = {PyVarObject_HEAD_INIT(nullptr, 0)};
  tensor_as_number.nb_add = nb_add;
  tensor_as_number.nb_subtract = nb_sub;
  tensor_as_number.nb_multiply = nb_mul;
  tensor_as_number.nb_true_divide = nb_div;
  tensor_as_number.nb_floor_divide = nb_floordiv;
  tensor_as_number.nb_remainder = nb_mod;
  tensor_as_number.nb_power = nb_pow;
  tensor_as_number.nb_and = nb_and;
  tensor_as_number.nb_or = nb_or;
  tensor_as_number.nb_xor = nb_xor;
  tensor_as_number.nb_lshift = nb_lshift;
  tensor_as_number.nb_rshift = nb_rshift;
  tensor_as_number.nb_inplace_add = nb_iadd;
  tensor_as_number.nb_inplace_subtract = nb_isub;
  tensor_as_number.nb_inplace_multiply = nb_imul;
  tensor_as_number.nb_inplace_true_divide = nb_idiv;
  tensor_as_number.nb_inplace_floor_divide = nb_ifloordiv;
  tensor_as_number.nb_inplace_remainder = nb_imod;
  tensor_as_number.nb_inplace_power = nb_ipow;
  tensor_as_number.nb_inplace_and = nb_iand;
  tensor_as_number.nb_inplace_or = nb_ior;
  tensor_as_number.nb_inplace_xor = nb_ixor;
  tensor_as_number.nb_inplace_lshift = nb_ilshift;
  tensor_as_number.nb_inplace_rshift = nb_irshift;
  tensor_as_number.nb_matrix_multiply = nb_matmul;
  tensor_as_number.nb_negative = nb_neg;
  tensor_as_number.nb_absolute = nb_abs;
  type.tp_name = "torchlite._C.TensorBase";
  type.tp_basicsize = sizeof(PyTensor);
  type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
  type.tp_doc = "The C++ side of torchlite.Tensor.";
  type.tp_dealloc = tensor_dealloc;
  type.tp_finalize = tensor_finalize;
  type.tp_traverse = tensor_traverse;
  type.tp_clear = tensor_clear;
  type.tp_new = tensor_new;
  type.tp_getset = tensor_getset;
  type.tp_methods = tensor_methods;
  type.tp_as_number = &tensor_as_number;
  type.tp_as_mapping = tensor_mapping_methods();
  type.tp_richcompare = tensor_richcompare;
  type.tp_hash = PyBaseObject_Type.tp_hash;  // identity, also once __eq__ is bound
  if (PyType_Ready(&type) < 0) throw python_error();
  TensorBaseType = &type;
  Py_INCREF(&type);
  PyModule_AddObject(module, "TensorBase", reinterpret_cast<PyObject*>(&type));
  TensorImpl::set_pyobj_release_hook(release_pyobj);
}

}  // namespace torchlite::python
