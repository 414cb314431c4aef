// torchlite.cuda's C++ side: devices, synchronization and the device allocator's statistics, plus a
// host-memory-backed DeviceCachingAllocator for tests (the caching logic runs without a GPU).
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <unordered_map>

#include "core/CudaHooks.h"
#include "dispatch/KernelTable.h"
#include "core/DeviceCachingAllocator.h"
#include "core/Error.h"

namespace py = pybind11;

namespace torchlite::python {

namespace {

py::dict stats_dict(const DeviceMemoryStats& s) {
  py::dict d;
  d["allocated_bytes"] = s.allocated_bytes;
  d["peak_allocated_bytes"] = s.peak_allocated_bytes;
  d["reserved_bytes"] = s.reserved_bytes;
  d["peak_reserved_bytes"] = s.peak_reserved_bytes;
  d["cached_blocks"] = s.cached_blocks;
  d["num_allocs"] = s.num_allocs;
  d["cache_hits"] = s.cache_hits;
  d["backend_allocs"] = s.backend_allocs;
  d["backend_frees"] = s.backend_frees;
  d["oom_retries"] = s.oom_retries;
  return d;
}

// A backend over malloc with a capacity per device, for tests (one instance at a time).
struct HostBackend {
  static inline size_t capacity = 0;
  static inline std::unordered_map<int, size_t> used;
  static inline std::unordered_map<void*, std::pair<int, size_t>> blocks;
  static void* alloc(size_t n, int device) {
    if (used[device] + n > capacity) return nullptr;
    void* p = std::malloc(n);
    if (p == nullptr) return nullptr;
    blocks[p] = {device, n};
    used[device] += n;
    return p;
  }
  static void free(void* p, int device) {
    auto it = blocks.find(p);
    TL_CHECK(it != blocks.end() && it->second.first == device, "host backend: a bad free");
    used[device] -= it->second.second;
    blocks.erase(it);
    std::free(p);
  }
};

struct HostBackedDeviceAllocator {
  DeviceCachingAllocator allocator{DeviceAllocatorBackend{&HostBackend::alloc, &HostBackend::free, "Host-backed"}};
  explicit HostBackedDeviceAllocator(size_t capacity) {
    TL_CHECK(HostBackend::blocks.empty(), "one _HostBackedDeviceAllocator at a time");
    HostBackend::capacity = capacity;
    HostBackend::used.clear();
  }
  ~HostBackedDeviceAllocator() {
    allocator.empty_cache();
    for (auto& [p, info] : HostBackend::blocks) std::free(p);  // live blocks a test did not free
    HostBackend::blocks.clear();
  }
};

}  // namespace

void init_cuda(py::module_& m) {
  m.def("_cuda_current_device", []() { return cuda::current_device(); });
  m.def("_cuda_set_device", [](int device) { cuda::set_device(device); });
  m.def("_cuda_get_device_name", [](int device) { return cuda::device_name(device); }, py::arg("device") = -1);
  m.def("_cuda_synchronize", [](int device) { cuda::synchronize(device); }, py::arg("device") = -1);
  m.def("_cuda_memory_stats", [](int device) { return stats_dict(cuda::memory_stats(device)); },
        py::arg("device") = -1);
  m.def("_cuda_reset_peak_memory_stats", [](int device) { cuda::reset_peak_memory_stats(device); },
        py::arg("device") = -1);
  m.def("_cuda_empty_cache", []() { cuda::empty_cache(); });
  m.def("_cuda_set_blas_library", [](const std::string& path) { cuda::set_blas_library(path); });
  m.def("_cuda_blas_available", []() { return cuda::blas_available(); });
  m.def("_cuda_blas_error", []() { return cuda::blas_error(); });
  // Tests only: run the hand-written CUDA kernels, compiled for the host, on CPU tensors (dispatch/KernelTable.h).
  m.def("_set_gpu_kernels_on_host", [](bool on) { return set_gpu_kernels_on_host(on); }, py::arg("on"));
  m.def("_device_allocator_round_size", [](size_t n) { return DeviceCachingAllocator::round_size(n); });

  py::class_<HostBackedDeviceAllocator>(m, "_HostBackedDeviceAllocator",
                                        "The CUDA caching allocator's logic over host memory, for tests.")
      .def(py::init<size_t>(), py::arg("capacity_per_device"))
      .def("allocate", [](HostBackedDeviceAllocator& a, size_t n, int device) {
        return reinterpret_cast<uintptr_t>(a.allocator.allocate(n, Device(DeviceType::CUDA, device)));
      })
      .def("free", [](HostBackedDeviceAllocator& a, uintptr_t p, int device) {
        a.allocator.deallocate(reinterpret_cast<void*>(p), Device(DeviceType::CUDA, device));
      })
      .def("stats", [](HostBackedDeviceAllocator& a, int device) { return stats_dict(a.allocator.stats(device)); })
      .def("reset_peak_stats", [](HostBackedDeviceAllocator& a, int device) { a.allocator.reset_peak_stats(device); })
      .def("empty_cache", [](HostBackedDeviceAllocator& a) { a.allocator.empty_cache(); })
      .def_static("backend_used", [](int device) { return HostBackend::used[device]; });
}

}  // namespace torchlite::python
