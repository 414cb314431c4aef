// torchlite.Generator (pybind11: a cold API). Copies of the C++ handle share one
// state, so torchlite.default_generator and the generator ops draw from are one.
#include "python/PyGenerator.h"

#include <pybind11/pybind11.h>

#include <cstring>

#include "core/CudaHooks.h"
#include "core/Philox.h"
#include "core/TensorFactory.h"
#include "kernels/ElementwiseIter.h"
#include "python/ArgParser.h"
#include "python/Errors.h"
#include "python/PyTensor.h"

namespace py = pybind11;

namespace torchlite::python {

static PyTypeObject* GeneratorType = nullptr;

bool is_generator(PyObject* obj) { return GeneratorType != nullptr && PyObject_TypeCheck(obj, GeneratorType); }

Generator to_generator(PyObject* obj) { return py::handle(obj).cast<Generator>(); }

// The state tensor: 16 bytes, the seed then the offset, little-endian uint64s.
constexpr int64_t kStateSize = 16;

// A seed as PyTorch takes it: an int in [-2^63, 2^64); a negative one wraps around (-1 -> 2^64 - 1).
static uint64_t to_seed(py::handle seed) {
  PyObject* o = seed.ptr();
  TL_CHECK(PyLong_Check(o) && !PyBool_Check(o), "manual_seed expected a long, but got ", Py_TYPE(o)->tp_name);
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      throw_error(ErrorKind::Value, "Overflow when unpacking long long");
    }
    return u;
  }
  TL_CHECK_VALUE(overflow == 0, "Overflow when unpacking long long");
  return static_cast<uint64_t>(v);
}

template <typename F>
static auto rethrow_python_errors(const F& f) {
  try {
    return f();
  } catch (const python_error&) {
    throw py::error_already_set();
  }
}

static py::object get_state(const Generator& g) {
  const PhiloxRange state = g.state();
  uint64_t words[2] = {state.seed, state.offset};
  Tensor t = empty_tensor(IntArrayRef(kStateSize), ScalarType::UInt8);
  std::memcpy(t.data_ptr(), words, sizeof(words));  // the host is little-endian (x86-64, aarch64)
  return py::reinterpret_steal<py::object>(rethrow_python_errors([&] { return wrap(t); }));
}

static void set_state(const Generator& g, py::handle state) {
  TL_CHECK_TYPE(is_tensor(state.ptr()), "expected a torchlite.uint8 tensor, but got ", Py_TYPE(state.ptr())->tp_name);
  const Tensor& t = unwrap(state.ptr());
  TL_CHECK_TYPE(t.scalar_type() == ScalarType::UInt8, "RNG state must be a torchlite.uint8 tensor, got ",
                scalar_type_python_name(t.scalar_type()));
  TL_CHECK(t.numel() == kStateSize, "Expected a Generator state of size ", kStateSize,
           " but found the input RNG state size to be ", t.numel());
  TL_CHECK(t.device().is_cpu(), "RNG state must be a CPU tensor");
  Tensor c = contiguous_as(t, ScalarType::UInt8);
  uint64_t words[2];
  std::memcpy(words, c.data_ptr(), sizeof(words));
  g.set_state(words[0], words[1]);
}

void init_generator(PyObject* module) {
  py::module_ m = py::reinterpret_borrow<py::module_>(module);
  py::class_<Generator> cls(m, "Generator", R"(Generator(device='cpu')

A random-number generator: the state (seed, offset) of a counter-based Philox4x32-10 stream. Pass it as
`generator=` to a random op; the op draws the numbers it needs and advances the offset. Numbers depend on
(seed, offset, element index) only, never on the number of threads.)");
  cls.def(py::init([](py::handle device) {
        Device d = rethrow_python_errors([&] { return to_device(device.ptr()); });
        TL_CHECK(!d.is_cuda() || cuda::device_count() > 0,
                 "CUDA is not available: torchlite was built without CUDA support or no CUDA device was found");
        return Generator(d);
      }),
      py::arg("device") = "cpu");
  cls.def("manual_seed", [](py::object self, py::handle seed) {
        self.cast<const Generator&>().set_seed(to_seed(seed));
        return self;
      }, py::arg("seed"), "Sets the seed (an int in [-2^63, 2^64); negative ones wrap) and restarts the stream. "
      "Returns the generator.");
  cls.def("seed", [](const Generator& g) { return g.seed_nondeterministically(); },
          "Seeds the generator from the OS's entropy source and returns the seed.");
  cls.def("initial_seed", [](const Generator& g) { return g.seed(); }, "The seed the stream started from.");
  cls.def("get_state", &get_state,
          "The state as a uint8 tensor of 16 bytes: the seed and the offset, little-endian uint64s.");
  cls.def("set_state", [](py::object self, py::handle state) {
        set_state(self.cast<const Generator&>(), state);
        return self;
      }, py::arg("new_state"), "Restores a state from get_state(). Returns the generator.");
  cls.def("get_offset", [](const Generator& g) { return g.offset(); },
          "The offset: how many 128-bit Philox blocks of the stream ops have taken since seeding.");
  cls.def("set_offset", [](py::object self, uint64_t offset) {
        self.cast<const Generator&>().set_offset(offset);
        return self;
      }, py::arg("offset"), "Moves the stream to `offset` (in 128-bit blocks). Returns the generator.");
  cls.def_property_readonly("device", [](const Generator& g) {
    return py::reinterpret_steal<py::object>(rethrow_python_errors([&] { return make_device_object(g.device()); }));
  });
  // copy.deepcopy and pickle: a new generator with the same device and state.
  cls.def(py::pickle(
      [](const Generator& g) {
        const PhiloxRange s = g.state();
        return py::make_tuple(to_string(g.device()), s.seed, s.offset);
      },
      [](const py::tuple& t) {
        TL_CHECK(t.size() == 3, "Generator.__setstate__: expected (device, seed, offset)");
        Generator g(parse_device(t[0].cast<std::string>()));
        g.set_state(t[1].cast<uint64_t>(), t[2].cast<uint64_t>());
        return g;
      }));
  GeneratorType = reinterpret_cast<PyTypeObject*>(cls.ptr());
  m.attr("default_generator") = py::cast(default_generator(DeviceType::CPU));
  // The CUDA default generator (one for all CUDA devices): torchlite.manual_seed seeds it too, as PyTorch
  // seeds every device, so the same seed draws the same numbers on the CPU and on CUDA.
  m.attr("_cuda_default_generator") = py::cast(default_generator(DeviceType::CUDA));
  m.def("_philox4x32", [](uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
    philox::Block b = philox::philox4x32_10(philox::Block{{c0, c1, c2, c3}}, k0, k1);
    return py::make_tuple(b.x[0], b.x[1], b.x[2], b.x[3]);
  }, "Philox4x32-10 of a counter (4 words) and a key (2 words): for known-answer tests.");
}

}  // namespace torchlite::python
