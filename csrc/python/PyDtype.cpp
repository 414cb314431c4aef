// torchlite.dtype and torchlite.device objects.
#include <string>

#include "python/ArgParser.h"
#include "python/Errors.h"

namespace torchlite::python {

// ------------------------------------------------------------------ dtype

struct PyDtype {
  PyObject_HEAD
  ScalarType type;
};

static PyTypeObject DtypeType = {PyVarObject_HEAD_INIT(nullptr, 0)};
static PyObject* g_dtypes[kNumScalarTypes];

bool is_dtype(PyObject* obj) { return Py_TYPE(obj) == &DtypeType; }
ScalarType to_scalar_type(PyObject* obj) { return reinterpret_cast<PyDtype*>(obj)->type; }
PyObject* dtype_object(ScalarType t) { return g_dtypes[static_cast<int>(t)]; }

static PyObject* dtype_repr(PyObject* self) {
  return PyUnicode_FromFormat("torchlite.%s", scalar_type_python_name(to_scalar_type(self)));
}
static PyObject* dtype_is_floating(PyObject* self, void*) {
  return PyBool_FromLong(is_floating_type(to_scalar_type(self)));
}
static PyObject* dtype_is_complex(PyObject* self, void*) {
  return PyBool_FromLong(is_complex_type(to_scalar_type(self)));
}
static PyObject* dtype_is_signed(PyObject* self, void*) { return PyBool_FromLong(is_signed_type(to_scalar_type(self))); }
static PyObject* dtype_itemsize(PyObject* self, void*) { return PyLong_FromLongLong(element_size(to_scalar_type(self))); }
static PyObject* dtype_reduce(PyObject* self, PyObject*) {
  return PyUnicode_FromString(scalar_type_python_name(to_scalar_type(self)));
}
static PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating, nullptr, nullptr, nullptr},
    {"is_complex", dtype_is_complex, nullptr, nullptr, nullptr},
    {"is_signed", dtype_is_signed, nullptr, nullptr, nullptr},
    {"itemsize", dtype_itemsize, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};
static PyObject* dtype_to_real(PyObject* self, PyObject*) {
  PyObject* d = dtype_object(to_real_type(to_scalar_type(self)));
  Py_INCREF(d);
  return d;
}
static PyObject* dtype_to_complex(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  const ScalarType t = to_scalar_type(self);
  TL_CHECK(is_floating_type(t) || is_complex_type(t), "to_complex: expected a floating or complex dtype, got ",
           scalar_type_python_name(t));
  PyObject* d = dtype_object(to_complex_type(t));
  Py_INCREF(d);
  return d;
  TL_PY_END
}
static PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
    {"to_real", dtype_to_real, METH_NOARGS, "the real dtype of a complex dtype (float32 for complex64); others as they are"},
    {"to_complex", dtype_to_complex, METH_NOARGS, "the complex dtype of a floating dtype (complex64 for float32)"},
    {nullptr, nullptr, 0, nullptr},
};

// ------------------------------------------------------------------ device

struct PyDevice {
  PyObject_HEAD
  Device device;
};

static PyTypeObject DeviceType = {PyVarObject_HEAD_INIT(nullptr, 0)};

bool is_device(PyObject* obj) { return Py_TYPE(obj) == &DeviceType; }

PyObject* make_device_object(Device d) {
  PyObject* obj = DeviceType.tp_alloc(&DeviceType, 0);
  if (!obj) throw python_error();
  reinterpret_cast<PyDevice*>(obj)->device = d;
  return obj;
}

// An int names a device by its index, as in PyTorch, where it means the accelerator: CUDA here.
static Device cuda_device_of(PyObject* index) {
  long i = PyLong_AsLong(index);
  if (i == -1 && PyErr_Occurred()) throw python_error();
  TL_CHECK(i >= 0, "Device index must not be negative");
  TL_CHECK(i <= 127, "Device index must be at most 127, got ", i);
  return Device(DeviceType::CUDA, static_cast<int8_t>(i));
}

static bool is_device_index(PyObject* obj) { return PyLong_Check(obj) && !PyBool_Check(obj); }

bool is_device_like(PyObject* obj) { return is_device(obj) || PyUnicode_Check(obj) || is_device_index(obj); }

Device to_device(PyObject* obj) {
  if (is_device(obj)) return reinterpret_cast<PyDevice*>(obj)->device;
  if (PyUnicode_Check(obj)) return parse_device(PyUnicode_AsUTF8(obj));
  if (is_device_index(obj)) return cuda_device_of(obj);
  throw_error(ErrorKind::Type, str("expected a torchlite.device, a string or a device index, not ",
                                   Py_TYPE(obj)->tp_name));
}

static PyObject* device_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kwlist[] = {"type", "index", nullptr};
  PyObject* spec;
  PyObject* index = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", const_cast<char**>(kwlist), &spec, &index)) return nullptr;
  if (is_device(spec) && index == Py_None) {
    Py_INCREF(spec);
    return spec;
  }
  if (is_device_index(spec) && index == Py_None) return make_device_object(cuda_device_of(spec));
  TL_CHECK_TYPE(PyUnicode_Check(spec), "device(): expected a string or a device index, not ", Py_TYPE(spec)->tp_name);
  Device d = parse_device(PyUnicode_AsUTF8(spec));
  if (index != Py_None) {
    TL_CHECK_TYPE(is_device_index(index), "device(): index must be an int");
    TL_CHECK(d.index < 0, "device(): type (string) must not include an index because index was passed "
                          "explicitly: ", PyUnicode_AsUTF8(spec));
    d.index = cuda_device_of(index).index;
  }
  return make_device_object(d);
  TL_PY_END
}

static PyObject* device_repr(PyObject* self) {
  Device d = reinterpret_cast<PyDevice*>(self)->device;
  if (d.index >= 0) return PyUnicode_FromFormat("device(type='%s', index=%d)", device_type_name(d.type), d.index);
  return PyUnicode_FromFormat("device(type='%s')", device_type_name(d.type));
}
static PyObject* device_str(PyObject* self) {
  return PyUnicode_FromString(to_string(reinterpret_cast<PyDevice*>(self)->device).c_str());
}
static PyObject* device_type_get(PyObject* self, void*) {
  return PyUnicode_FromString(device_type_name(reinterpret_cast<PyDevice*>(self)->device.type));
}
static PyObject* device_index_get(PyObject* self, void*) {
  int8_t i = reinterpret_cast<PyDevice*>(self)->device.index;
  if (i < 0) Py_RETURN_NONE;
  return PyLong_FromLong(i);
}
static PyObject* device_richcompare(PyObject* a, PyObject* b, int op) {
  if (!is_device(a) || !is_device(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = reinterpret_cast<PyDevice*>(a)->device == reinterpret_cast<PyDevice*>(b)->device;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
static Py_hash_t device_hash(PyObject* self) {
  Device d = reinterpret_cast<PyDevice*>(self)->device;
  return static_cast<Py_hash_t>(static_cast<int>(d.type) * 1000 + d.index + 2);
}
static PyGetSetDef device_getset[] = {
    {"type", device_type_get, nullptr, nullptr, nullptr},
    {"index", device_index_get, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

void init_dtypes_and_devices(PyObject* module) {
  DtypeType.tp_name = "torchlite.dtype";
  DtypeType.tp_basicsize = sizeof(PyDtype);
  DtypeType.tp_flags = Py_TPFLAGS_DEFAULT;
  DtypeType.tp_repr = dtype_repr;
  DtypeType.tp_getset = dtype_getset;
  DtypeType.tp_methods = dtype_methods;
  if (PyType_Ready(&DtypeType) < 0) throw python_error();
  Py_INCREF(&DtypeType);
  PyModule_AddObject(module, "dtype", reinterpret_cast<PyObject*>(&DtypeType));
  for (int i = 0; i < kNumScalarTypes; ++i) {
    PyObject* obj = DtypeType.tp_alloc(&DtypeType, 0);
    reinterpret_cast<PyDtype*>(obj)->type = static_cast<ScalarType>(i);
    g_dtypes[i] = obj;
    Py_INCREF(obj);
    PyModule_AddObject(module, scalar_type_python_name(static_cast<ScalarType>(i)), obj);
  }

  DeviceType.tp_name = "torchlite.device";
  DeviceType.tp_basicsize = sizeof(PyDevice);
  DeviceType.tp_flags = Py_TPFLAGS_DEFAULT;
  DeviceType.tp_new = device_new;
  DeviceType.tp_repr = device_repr;
  DeviceType.tp_str = device_str;
  DeviceType.tp_getset = device_getset;
  DeviceType.tp_richcompare = device_richcompare;
  DeviceType.tp_hash = device_hash;
  if (PyType_Ready(&DeviceType) < 0) throw python_error();
  Py_INCREF(&DeviceType);
  PyModule_AddObject(module, "device", reinterpret_cast<PyObject*>(&DeviceType));
}

}  // namespace torchlite::python
