// DLPack: tensors shared with other libraries (NumPy, PyTorch, CuPy, JAX) without a copy, both ways.
// The structs below are DLPack's ABI (dlpack.h): the unversioned form (capsule "dltensor") and the 1.x
// versioned one (capsule "dltensor_versioned", with flags), given to consumers that ask for max_version
// >= (1, 0); the consumer that takes ownership renames the capsule "used_..." and calls its deleter.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "core/Error.h"
#include "core/TensorImpl.h"
#include "python/Errors.h"
#include "python/PyTensor.h"

namespace py = pybind11;

namespace torchlite::python {
namespace {

enum : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
enum : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  uint64_t flags;
  DLTensor dl_tensor;
};

// What an exported capsule owns: the tensor (keeping its storage alive) and the shape/stride arrays.
struct Export {
  DLManagedTensor managed;
  DLManagedTensorVersioned versioned;
  Tensor tensor;
  std::vector<int64_t> shape, strides;
};

void delete_export(DLManagedTensor* m) { delete static_cast<Export*>(m->manager_ctx); }
void delete_export_versioned(DLManagedTensorVersioned* m) { delete static_cast<Export*>(m->manager_ctx); }

DLDataType dl_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return {kDLBool, 8, 1};
    case ScalarType::UInt8: return {kDLUInt, 8, 1};
    case ScalarType::Int8: return {kDLInt, 8, 1};
    case ScalarType::Int16: return {kDLInt, 16, 1};
    case ScalarType::Int32: return {kDLInt, 32, 1};
    case ScalarType::Int64: return {kDLInt, 64, 1};
    case ScalarType::Half: return {kDLFloat, 16, 1};
    case ScalarType::BFloat16: return {kDLBfloat, 16, 1};
    case ScalarType::Float: return {kDLFloat, 32, 1};
    case ScalarType::Double: return {kDLFloat, 64, 1};
    case ScalarType::UInt16: return {kDLUInt, 16, 1};
    case ScalarType::UInt32: return {kDLUInt, 32, 1};
    case ScalarType::UInt64: return {kDLUInt, 64, 1};
    case ScalarType::ComplexFloat: return {kDLComplex, 64, 1};
    case ScalarType::ComplexDouble: return {kDLComplex, 128, 1};
    default: TL_CHECK_TYPE(false, "to_dlpack: unsupported dtype ", scalar_type_name(t));
  }
  return {};
}

ScalarType from_dl_dtype(DLDataType d) {
  TL_CHECK_TYPE(d.lanes == 1, "from_dlpack: vector dtypes (lanes=", d.lanes, ") are not supported");
  switch (d.code) {
    case kDLBool:
      if (d.bits == 8) return ScalarType::Bool;
      break;
    case kDLUInt:
      if (d.bits == 8) return ScalarType::UInt8;
      if (d.bits == 16) return ScalarType::UInt16;
      if (d.bits == 32) return ScalarType::UInt32;
      if (d.bits == 64) return ScalarType::UInt64;
      break;
    case kDLInt:
      if (d.bits == 8) return ScalarType::Int8;
      if (d.bits == 16) return ScalarType::Int16;
      if (d.bits == 32) return ScalarType::Int32;
      if (d.bits == 64) return ScalarType::Int64;
      break;
    case kDLFloat:
      if (d.bits == 16) return ScalarType::Half;
      if (d.bits == 32) return ScalarType::Float;
      if (d.bits == 64) return ScalarType::Double;
      break;
    case kDLBfloat:
      if (d.bits == 16) return ScalarType::BFloat16;
      break;
    case kDLComplex:
      if (d.bits == 64) return ScalarType::ComplexFloat;
      if (d.bits == 128) return ScalarType::ComplexDouble;
      break;
    default: break;
  }
  TL_CHECK_TYPE(false, "from_dlpack: unsupported dtype (type code ", static_cast<int>(d.code), ", ",
                static_cast<int>(d.bits), " bits)");
  return ScalarType::Float;
}

// Capsule destructors: free the tensor if no consumer took it (a consumed capsule is "used_...").
void capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (m && m->deleter) m->deleter(m);
}
void capsule_destructor_versioned(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor_versioned")) return;
  auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
  if (m && m->deleter) m->deleter(m);
}

PyObject* to_dlpack(PyObject* obj, bool versioned) {
  TL_CHECK_TYPE(is_tensor(obj), "to_dlpack: expected a Tensor, got ", Py_TYPE(obj)->tp_name);
  const Tensor& t = unwrap(obj);
  auto* e = new Export;
  e->tensor = t;
  e->shape.assign(t.sizes().begin(), t.sizes().end());
  e->strides.assign(t.strides().begin(), t.strides().end());
  DLTensor& dl = e->managed.dl_tensor;
  dl.data = t.numel() ? t.data_ptr() : nullptr;
  dl.byte_offset = 0;
  Device d = t.device();
  dl.device = {d.is_cuda() ? kDLCUDA : kDLCPU, d.is_cuda() ? (d.index < 0 ? 0 : d.index) : 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dl_dtype(t.scalar_type());
  dl.shape = e->shape.data();
  dl.strides = e->strides.data();
  PyObject* capsule;
  if (versioned) {
    e->versioned.version = {1, 0};
    e->versioned.manager_ctx = e;
    e->versioned.deleter = &delete_export_versioned;
    e->versioned.flags = 0;
    e->versioned.dl_tensor = dl;
    capsule = PyCapsule_New(&e->versioned, "dltensor_versioned", &capsule_destructor_versioned);
  } else {
    e->managed.manager_ctx = e;
    e->managed.deleter = &delete_export;
    capsule = PyCapsule_New(&e->managed, "dltensor", &capsule_destructor);
  }
  if (!capsule) {
    delete e;
    throw python_error();
  }
  return capsule;
}

// Releases an imported DLManagedTensor(Versioned) when the last torchlite tensor using its memory goes away.
template <typename Managed>
void release_managed(void* context) {
  auto* m = static_cast<Managed*>(context);
  if (!m->deleter) return;
  PyGILState_STATE g = PyGILState_Ensure();  // producers' deleters may touch Python objects
  m->deleter(m);
  PyGILState_Release(g);
}

PyObject* from_dlpack(PyObject* capsule) {
  bool versioned = PyCapsule_IsValid(capsule, "dltensor_versioned");
  TL_CHECK_TYPE(versioned || PyCapsule_IsValid(capsule, "dltensor"), "from_dlpack: expected a DLPack capsule "
                "(named 'dltensor' or 'dltensor_versioned') that was not consumed yet");
  void* managed = PyCapsule_GetPointer(capsule, versioned ? "dltensor_versioned" : "dltensor");
  if (versioned) {
    auto* v = static_cast<DLManagedTensorVersioned*>(managed);
    TL_CHECK_VALUE(v->version.major == 1, "from_dlpack: unsupported DLPack version ", v->version.major, ".",
                   v->version.minor);
  }
  const DLTensor& dl = versioned ? static_cast<DLManagedTensorVersioned*>(managed)->dl_tensor
                                 : static_cast<DLManagedTensor*>(managed)->dl_tensor;
  ScalarType dtype = from_dl_dtype(dl.dtype);
  Device device;
  if (dl.device.device_type == kDLCUDA || dl.device.device_type == kDLCUDAManaged) {
    device = Device(DeviceType::CUDA, static_cast<int8_t>(dl.device.device_id));
  } else {
    TL_CHECK_TYPE(dl.device.device_type == kDLCPU || dl.device.device_type == kDLCUDAHost,
                  "from_dlpack: unsupported device type ", dl.device.device_type);
  }
  TL_CHECK_VALUE(dl.ndim >= 0, "from_dlpack: negative ndim ", dl.ndim);
  DimVector sizes, strides;
  int64_t extent = 1, running = 1;
  bool empty = false;
  for (int i = dl.ndim - 1; i >= 0; --i) {  // strides may be NULL: compact row-major
    int64_t s = dl.strides ? dl.strides[i] : running;
    running *= dl.shape[i];
    TL_CHECK_VALUE(dl.shape[i] >= 0, "from_dlpack: negative size ", dl.shape[i]);
    TL_CHECK_VALUE(s >= 0, "from_dlpack: negative strides are not supported");
    if (dl.shape[i] == 0) empty = true;
    extent += (dl.shape[i] - 1) * s;
  }
  for (int i = 0; i < dl.ndim; ++i) {
    sizes.push_back(dl.shape[i]);
    strides.push_back(dl.strides ? dl.strides[i] : 0);
  }
  if (!dl.strides) {
    int64_t r = 1;
    for (int i = dl.ndim - 1; i >= 0; --i) {
      strides[static_cast<size_t>(i)] = r;
      r *= dl.shape[i];
    }
  }
  size_t nbytes = empty ? 0 : static_cast<size_t>(extent) * element_size(dtype);
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  // The capsule is consumed from here on: its memory belongs to the new tensor's storage.
  if (PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0) throw python_error();
  Storage storage = intrusive_ptr<StorageImpl>::make(
      data, nbytes, device,
      versioned ? &release_managed<DLManagedTensorVersioned> : &release_managed<DLManagedTensor>, managed);
  auto impl = intrusive_ptr<TensorImpl>::make(std::move(storage), dtype, device);
  impl->set_geometry(sizes.ref(), strides.ref(), 0);
  return wrap(Tensor(std::move(impl)));
}

}  // namespace

void init_dlpack(py::module_& m) {
  m.def("_to_dlpack", [](py::object t, bool versioned) {
    return py::reinterpret_steal<py::object>(to_dlpack(t.ptr(), versioned));
  }, py::arg("tensor"), py::arg("versioned") = false,
     "A DLPack capsule sharing the tensor's memory (Tensor.__dlpack__ and utils.dlpack.to_dlpack use it); "
     "versioned: DLPack 1.0's 'dltensor_versioned' form.");
  m.def("_from_dlpack", [](py::object capsule) { return py::reinterpret_steal<py::object>(from_dlpack(capsule.ptr())); },
        "A tensor sharing the memory of a DLPack capsule, which it consumes.");
}

}  // namespace torchlite::python
