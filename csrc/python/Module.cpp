// torchlite._C: the module, its types, the generated op bindings and the cold
// APIs (pybind11).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <climits>
#include <cstring>

#include "core/CachingAllocator.h"
#include "core/CudaHooks.h"
#include "core/Parallel.h"
#include "core/Promotion.h"
#include "core/SharedMemory.h"
#include "core/TensorFactory.h"
#include "dispatch/KernelTable.h"
#include "kernels/ElementwiseIter.h"
#include "python/ArgParser.h"
#include "python/Bindings.h"
#include "python/Errors.h"
#include "python/PyAutograd.h"
#include "python/PyGenerator.h"
#include "python/PyTensor.h"

namespace py = pybind11;

namespace torchlite::python {

void init_cuda(py::module_& m);    // PyCuda.cpp
void init_dlpack(py::module_& m);  // PyDLPack.cpp
void init_optim(py::module_& m);   // PyOptim.cpp
void init_autocast(py::module_& m);  // PyAutocast.cpp
void init_sparse(py::module_& m);    // PySparse.cpp

void add_functions(const ModuleSet& modules, PyMethodDef* defs, const char* const* module_names) {
  for (int i = 0; defs[i].ml_name; ++i) {
    PyObject* mod = modules.functions;
    if (!std::strcmp(module_names[i], "nn")) mod = modules.nn;
    if (!std::strcmp(module_names[i], "linalg")) mod = modules.linalg;
    if (!std::strcmp(module_names[i], "special")) mod = modules.special;
    if (!std::strcmp(module_names[i], "fft")) mod = modules.fft;
    PyObject* name = PyModule_GetNameObject(mod);
    PyObject* fn = PyCFunction_NewEx(&defs[i], nullptr, name);
    Py_XDECREF(name);
    if (!fn || PyModule_AddObject(mod, defs[i].ml_name, fn) < 0) throw python_error();
  }
}

void add_methods(PyMethodDef* defs) {
  for (int i = 0; defs[i].ml_name; ++i) {
    PyObject* descr = PyDescr_NewMethod(TensorBaseType, &defs[i]);
    if (!descr || PyDict_SetItemString(TensorBaseType->tp_dict, defs[i].ml_name, descr) < 0) throw python_error();
    Py_DECREF(descr);
    register_method_entry(defs[i].ml_name, reinterpret_cast<FastMethod>(reinterpret_cast<void (*)()>(defs[i].ml_meth)));
  }
  PyType_Modified(TensorBaseType);
}

// torchlite.tensor()'s copy from anything with the buffer protocol (NumPy arrays).
namespace {

// The dtype of a buffer's format character, or a TypeError naming it.
ScalarType buffer_dtype(const Py_buffer& view) {
  const char* fmt = view.format ? view.format : "B";
  if (*fmt == '<' || *fmt == '=' || *fmt == '@' || *fmt == '|') ++fmt;
  switch (*fmt) {
    case '?': return ScalarType::Bool;
    case 'b': return ScalarType::Int8;
    case 'B': return ScalarType::UInt8;
    case 'h': return ScalarType::Int16;
    case 'i': return ScalarType::Int32;
    case 'l':
    case 'q': return view.itemsize == 8 ? ScalarType::Int64 : ScalarType::Int32;
    case 'e': return ScalarType::Half;
    case 'f': return ScalarType::Float;
    case 'd': return ScalarType::Double;
    case 'H': return ScalarType::UInt16;
    case 'I': return ScalarType::UInt32;
    case 'L':
    case 'Q': return view.itemsize == 8 ? ScalarType::UInt64 : ScalarType::UInt32;
    case 'Z':
      if (fmt[1] == 'f') return ScalarType::ComplexFloat;
      if (fmt[1] == 'd') return ScalarType::ComplexDouble;
      [[fallthrough]];
    default:
      TL_CHECK_TYPE(false, "can't convert an array of format '", view.format ? view.format : "?",
                    "' to a tensor: the supported types are bool, uint8, int8, int16, int32, int64, uint16, "
                    "uint32, uint64, float16, float32, float64, complex64 and complex128");
  }
}

// A Py_buffer kept alive by a tensor's storage; released with the GIL held.
void release_buffer(void* context) {
  auto* view = static_cast<Py_buffer*>(context);
  PyGILState_STATE g = PyGILState_Ensure();
  PyBuffer_Release(view);
  PyGILState_Release(g);
  delete view;
}

}  // namespace

// A new tensor copied from an object with the buffer protocol.
static PyObject* from_buffer(PyObject* obj) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) throw python_error();
  struct Release {
    Py_buffer* v;
    ~Release() { PyBuffer_Release(v); }
  } release{&view};
  ScalarType t = buffer_dtype(view);
  DimVector sizes, strides;
  for (int i = 0; i < view.ndim; ++i) {
    sizes.push_back(view.shape[i]);
    TL_CHECK(view.strides[i] % view.itemsize == 0, "from_buffer: strides must be multiples of the item size");
    strides.push_back(view.strides[i] / view.itemsize);
  }
  Tensor out = empty_tensor(sizes.ref(), t);
  if (out.numel() == 0) return wrap(out);
  // Walk the source with its strides; copy element by element.
  int64_t n = out.numel(), item = view.itemsize;
  char* dst = static_cast<char*>(out.data_ptr());
  DimVector idx(static_cast<size_t>(view.ndim), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (int i = 0; i < view.ndim; ++i) off += idx[i] * view.strides[i];
    std::memcpy(dst + k * item, static_cast<const char*>(view.buf) + off, static_cast<size_t>(item));
    for (int i = view.ndim - 1; i >= 0; --i) {
      if (++idx[i] < sizes[i]) break;
      idx[i] = 0;
    }
  }
  return wrap(out);
}

// A tensor sharing the memory of an object with the buffer protocol (torchlite.from_numpy).
static PyObject* from_numpy(PyObject* obj) {
  auto* view = new Py_buffer;
  if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) < 0) {
    delete view;
    throw python_error();
  }
  ScalarType t;
  DimVector sizes, strides;
  int64_t extent = 1;
  bool empty = false;
  try {
    t = buffer_dtype(*view);
    const char* fmt = view->format ? view->format : "B";
    TL_CHECK_TYPE(*fmt != '>' && *fmt != '!', "from_numpy: given numpy array has byte order different from the "
                  "native byte order. Conversion between byte orders is currently not supported.");
    for (int i = 0; i < view->ndim; ++i) {
      TL_CHECK_VALUE(view->strides[i] >= 0, "from_numpy: at least one stride in the given numpy array is negative, "
                     "and tensors with negative strides are not currently supported. (You can probably work "
                     "around this by making a copy of your array with array.copy().)");
      TL_CHECK_VALUE(view->strides[i] % view->itemsize == 0, "from_numpy: given numpy array strides not a "
                     "multiple of the element byte size. Copy the numpy array to reallocate the memory.");
      sizes.push_back(view->shape[i]);
      strides.push_back(view->strides[i] / view->itemsize);
      if (view->shape[i] == 0) empty = true;
      extent += (view->shape[i] - 1) * strides[i];
    }
  } catch (...) {
    PyBuffer_Release(view);
    delete view;
    throw;
  }
  size_t nbytes = empty ? 0 : static_cast<size_t>(extent * view->itemsize);
  Storage storage = intrusive_ptr<StorageImpl>::make(view->buf, nbytes, Device(), &release_buffer, view);
  auto impl = intrusive_ptr<TensorImpl>::make(std::move(storage), t, Device());
  impl->set_geometry(sizes.ref(), strides.ref(), 0);
  return wrap(Tensor(std::move(impl)));
}

// set_num_threads(n) and friends take a Python int (not a bool, not a float),
// with PyTorch's messages.
static int thread_count_arg(const char* fname, py::handle obj) {
  TL_CHECK(!PyBool_Check(obj.ptr()) && PyIndex_Check(obj.ptr()), fname, " expects an int, but got ",
           Py_TYPE(obj.ptr())->tp_name);
  int overflow = 0;
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!index) throw py::error_already_set();
  long long n = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (n == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow) n = overflow > 0 ? LLONG_MAX : -1;
  TL_CHECK(n > 0, fname, " expects a positive integer");
  TL_CHECK(n <= 1 << 16, fname, ": ", n, " threads is more than the 65536 supported");
  return static_cast<int>(n);
}

// fn(obj) as a pybind11 object: fn returns a new reference, or raises (python_error) with the Python error set.
static py::object new_reference(PyObject* (*fn)(PyObject*), const py::object& obj) {
  try {
    return py::reinterpret_steal<py::object>(fn(obj.ptr()));
  } catch (const python_error&) {
    throw py::error_already_set();
  }
}

}  // namespace torchlite::python

PYBIND11_MODULE(_C, m) {
  using namespace torchlite;
  using namespace torchlite::python;
  m.doc() = "torchlite's compiled core: tensors, dtypes and the generated operators.";
  // Long kernel loops run without the GIL, so other Python threads keep running.
  set_gil_hooks([]() -> void* { return PyGILState_Check() ? PyEval_SaveThread() : nullptr; },
                [](void* state) { PyEval_RestoreThread(static_cast<PyThreadState*>(state)); });
  m.def("_last_loop_released_gil", []() { return last_loop_released_gil(); },
        "Whether a long kernel loop of this thread ran without the GIL since the last call (for tests; clears it).");
  init_dtypes_and_devices(m.ptr());
  init_tensor_type(m.ptr());
  init_generator(m.ptr());
  init_autograd(m.ptr());
  init_cuda(m);
  init_dlpack(m);
  init_optim(m);
  init_autocast(m);
  init_sparse(m);
  ModuleSet modules{
      m.def_submodule("_functions", "ops bound as torchlite.*").ptr(),
      m.def_submodule("_nn", "ops bound as torchlite.nn.functional.*").ptr(),
      m.def_submodule("_linalg", "ops bound as torchlite.linalg.*").ptr(),
      m.def_submodule("_special", "ops bound as torchlite.special.*").ptr(),
      m.def_submodule("_fft", "ops bound as torchlite.fft.*").ptr(),
      m.def_submodule("_return_types", "named tuples of ops with several returns").ptr(),
  };
  void (*shards[kNumShards])(const ModuleSet&) = {
      init_python_shard_0, init_python_shard_1, init_python_shard_2, init_python_shard_3,
      init_python_shard_4, init_python_shard_5, init_python_shard_6, init_python_shard_7,
  };
  for (auto init : shards) init(modules);
  m.attr("_LinAlgError") = py::reinterpret_borrow<py::object>(linalg_error_type());
  init_number_slots();
  cuda::init();
  if (cuda::emulated()) emulate_cuda_kernels();  // tests only: TORCHLITE_EMULATE_CUDA=N

  m.def("_set_tensor_class", [](py::object cls) {
    TL_CHECK_TYPE(PyType_Check(cls.ptr()) &&
                      PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), TensorBaseType),
                  "_set_tensor_class: expected a subclass of TensorBase");
    cls.inc_ref();
    TensorClass = reinterpret_cast<PyTypeObject*>(cls.ptr());
  });
  m.def("get_default_dtype", []() { return py::reinterpret_borrow<py::object>(dtype_object(default_dtype())); },
        "The default floating dtype (torchlite.float32 unless changed).");
  m.def("set_default_dtype", [](py::object d) {
    TL_CHECK_TYPE(is_dtype(d.ptr()), "invalid dtype object: only floating-point types are supported as the default "
                  "type, got ", Py_TYPE(d.ptr())->tp_name);
    set_default_dtype(to_scalar_type(d.ptr()));
  }, "Sets the default floating dtype (float16, bfloat16, float32 or float64).");
  m.def("_from_buffer", [](py::object obj) { return new_reference(from_buffer, obj); },
        "A new tensor copied from an object with the buffer protocol (a NumPy array).");
  m.def("_from_numpy", [](py::object obj) { return new_reference(from_numpy, obj); },
        "A tensor sharing memory with an object with the buffer protocol (torchlite.from_numpy checks it is an "
        "ndarray).");
  // Shared memory (Tensor.share_memory_ / is_shared, torchlite.multiprocessing's reducers).
  m.def("_share_memory", [](py::object t) {
    TL_CHECK_TYPE(is_tensor(t.ptr()), "share_memory_: expected a Tensor");
    check_not_sparse("share_memory_", unwrap(t.ptr()), "self");  // Tensor.share_memory_ shares a sparse one's parts
    share_memory(unwrap(t.ptr()));
  }, "Moves a tensor's storage into shared memory (a no-op when it is there, and for CUDA tensors).");
  m.def("_is_shared", [](py::object t) {
    TL_CHECK_TYPE(is_tensor(t.ptr()), "is_shared: expected a Tensor");
    return is_shared(unwrap(t.ptr()));
  }, "Whether a tensor's storage is in shared memory (always for CUDA tensors).");
  m.def("_shared_memory_handle", [](py::object t) {
    TL_CHECK_TYPE(is_tensor(t.ptr()), "_shared_memory_handle: expected a Tensor");
    auto [fd, nbytes] = shared_memory_handle(unwrap(t.ptr()));
    return py::make_tuple(fd, nbytes);
  }, "(file descriptor, storage bytes) of a CPU tensor in shared memory; the descriptor stays the storage's.");
  m.def("_from_shared_memory", [](int fd, size_t nbytes, py::object d, std::vector<int64_t> sizes,
                                  std::vector<int64_t> strides, int64_t offset) {
    TL_CHECK_TYPE(is_dtype(d.ptr()), "_from_shared_memory: expected a dtype");
    Tensor t = from_shared_memory(fd, nbytes, to_scalar_type(d.ptr()), IntArrayRef(sizes), IntArrayRef(strides),
                                  offset);
    return py::reinterpret_steal<py::object>(wrap(t));
  }, "A CPU tensor over a shared-memory object received from another process (it takes the descriptor).");
  m.def("_to_dtype", [](py::object t, py::object d) {
    TL_CHECK_TYPE(is_tensor(t.ptr()) && is_dtype(d.ptr()), "_to_dtype(tensor, dtype): expected a Tensor and a dtype");
    const Tensor& src = unwrap(t.ptr());
    check_not_sparse("_to_dtype", src, "tensor");
    Tensor r = empty_tensor(src.sizes(), to_scalar_type(d.ptr()), src.device());
    copy_cast(r, src);
    return py::reinterpret_steal<py::object>(wrap(r));
  }, "A new contiguous copy of a tensor in dtype, without autograd (printing and tolist use it).");
  // Type promotion, as torch.result_type / promote_types / can_cast.
  m.def("result_type", [](py::object a, py::object b) {
    ResultTypeState state;
    for (PyObject* o : {a.ptr(), b.ptr()}) {
      if (is_tensor(o)) {
        update_result_type(state, unwrap(o));
      } else if (is_number(o)) {
        update_result_type(state, to_scalar(o));
      } else {
        throw_error(ErrorKind::Type, str("result_type(): expected Tensor or Number arguments, but got ",
                                         Py_TYPE(o)->tp_name));
      }
    }
    return py::reinterpret_borrow<py::object>(dtype_object(result_type(state)));
  }, py::arg("tensor1"), py::arg("tensor2"),
     "The dtype an arithmetic op on the two operands (tensors or Python numbers) would produce.");
  m.def("promote_types", [](py::object a, py::object b) {
    TL_CHECK_TYPE(is_dtype(a.ptr()) && is_dtype(b.ptr()), "promote_types(): expected two torchlite.dtype arguments, "
                  "but got ", Py_TYPE(a.ptr())->tp_name, " and ", Py_TYPE(b.ptr())->tp_name);
    return py::reinterpret_borrow<py::object>(dtype_object(promote_types(to_scalar_type(a.ptr()),
                                                                         to_scalar_type(b.ptr()))));
  }, py::arg("type1"), py::arg("type2"),
     "The smallest dtype to which both type1 and type2 can be cast without losing category.");
  m.def("can_cast", [](py::object from, py::object to) {
    TL_CHECK_TYPE(is_dtype(from.ptr()) && is_dtype(to.ptr()), "can_cast(): expected two torchlite.dtype arguments, "
                  "but got ", Py_TYPE(from.ptr())->tp_name, " and ", Py_TYPE(to.ptr())->tp_name);
    return can_cast(to_scalar_type(from.ptr()), to_scalar_type(to.ptr()));
  }, py::arg("from_"), py::arg("to"),
     "Whether PyTorch's casting rules allow from_ to be cast to `to` (no float to int, no non-bool to bool).");
  m.def("_cuda_is_built", []() { return cuda::is_built(); });
  m.def("_cuda_device_count", []() { return cuda::device_count(); });
  m.def("_cuda_is_emulated", []() { return cuda::emulated(); });  // TORCHLITE_EMULATE_CUDA=1 (tests)
  m.def("_cuda_version", []() -> py::object {
    const char* v = cuda::version();
    if (!v) return py::none();
    return py::str(v);
  });
  m.def("_scalar_type_name", [](py::object d) {
    return std::string(scalar_type_name(to_scalar_type(d.ptr())));
  });
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const torchlite::Error&) {
      set_python_error(p);
    }
  });

  // ---- threads (core/Parallel.h) and the caching CPU allocator (core/CachingAllocator.h)
  m.def("get_num_threads", []() { return get_num_threads(); },
        "get_num_threads() -> int\n\nThe number of threads used for intra-op parallelism on the CPU (OpenMP "
        "loops and BLAS).");
  m.def("set_num_threads", [](py::handle n) { set_num_threads(thread_count_arg("set_num_threads", n)); },
        py::arg("n"),
        "set_num_threads(int)\n\nSets the number of threads used for intra-op parallelism on the CPU (OpenMP "
        "loops and BLAS), for every thread of the process. A forked child starts with one thread.");
  m.def("get_num_interop_threads", []() { return get_num_interop_threads(); },
        "get_num_interop_threads() -> int\n\ntorchlite has no inter-op thread pool: the value last set (1 at "
        "start-up).");
  m.def("set_num_interop_threads",
        [](py::handle n) { set_num_interop_threads(thread_count_arg("set_num_interop_threads", n)); },
        py::arg("n"),
        "set_num_interop_threads(int)\n\nRecorded for PyTorch compatibility; torchlite has no inter-op "
        "thread pool.");
  m.def("_cpu_allocator_stats", []() {
    CpuAllocatorStats s = cpu_allocator_stats();
    py::dict d;
    d["allocated_bytes"] = s.allocated_bytes;
    d["peak_allocated_bytes"] = s.peak_allocated_bytes;
    d["allocated_blocks"] = s.allocated_blocks;
    d["cached_bytes"] = s.cached_bytes;
    d["cached_blocks"] = s.cached_blocks;
    d["cache_limit"] = s.cache_limit;
    d["num_allocs"] = s.num_allocs;
    d["cache_hits"] = s.cache_hits;
    d["cache_misses"] = s.cache_misses;
    d["num_frees"] = s.num_frees;
    d["num_evictions"] = s.num_evictions;
    return d;
  }, "The caching CPU allocator's counters (bytes are size-class bytes).");
  m.def("_cpu_allocator_empty_cache", []() { cpu_allocator_empty_cache(); },
        py::call_guard<py::gil_scoped_release>(), "Returns every cached CPU block to the system.");
  m.def("_cpu_allocator_set_cache_limit", [](long long bytes) {
    TL_CHECK(bytes >= 0, "set_cache_limit expects a non-negative number of bytes, got ", bytes);
    py::gil_scoped_release no_gil;
    cpu_allocator_set_cache_limit(static_cast<size_t>(bytes));
  }, py::arg("bytes"), "Caps the bytes the CPU allocator keeps cached (0 turns caching off).");
  m.def("_cpu_allocator_get_cache_limit", []() { return cpu_allocator_cache_limit(); });
  m.def("_cpu_allocator_reset_stats", []() { cpu_allocator_reset_stats(); },
        "Zeroes the counters; the peak restarts at the bytes allocated now.");
  m.def("_cpu_allocator_round_size", [](size_t nbytes) { return cpu_allocator_round_size(nbytes); },
        py::arg("nbytes"), "The size class (bytes) an allocation of nbytes is rounded up to.");
  m.def("_cpu_allocator_hold_lock_for_testing", [](double seconds) { cpu_allocator_hold_lock_for_testing(seconds); },
        py::arg("seconds"), py::call_guard<py::gil_scoped_release>(),
        "Holds the CPU allocator's mutex for `seconds` without the GIL (fork-safety tests).");
}
