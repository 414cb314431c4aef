// The CUDA device functions of core/CudaHooks.h: the real runtime's (cuda::runtime), or, when
// TORCHLITE_EMULATE_CUDA=N (1 to 8) is set at import, N emulated devices for tests on machines without a GPU.
//
// An emulated device "cuda:i" keeps its tensors in host memory, through the CUDA caching allocator's
// own logic (core/DeviceCachingAllocator.h) over malloc; copies between it and the host are memcpy. Its
// kernels are the CUDA kernels' host compilation, or for the generated pointwise kernels the CPU kernel of
// the same expression: the module's import puts them in the kernel tables (emulate_cuda_kernels,
// dispatch/KernelTable.h), which check that the tensors' device is the current one (core/DeviceGuard.h).
// NumPy still refuses its tensors, as for a real GPU. What it checks is everything above the kernels: that
// results stay on their device, the device rules and guards, copies between devices, autograd and the
// Python layer. It cannot check launches, device memory or cuBLAS.
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/Allocator.h"
#include "core/CudaHooks.h"
#include "core/Error.h"

namespace torchlite {
namespace cuda {
namespace {

int emulated_count() {
  static const int n = [] {
    const char* e = std::getenv("TORCHLITE_EMULATE_CUDA");
    const int v = e == nullptr ? 0 : std::atoi(e);
    return v < 0 ? 0 : v > 8 ? 8 : v;
  }();
  return n;
}

thread_local int t_current = 0;  // the calling thread's current emulated device, as CUDA keeps it per thread

void* host_alloc(size_t nbytes, int device) {
  TL_CHECK(device >= 0 && device < emulated_count(), "CUDA error in cudaSetDevice(", device,
           "): invalid device ordinal");  // as the runtime says it
  return std::aligned_alloc(64, (nbytes + 63) / 64 * 64);  // nullptr when out of memory: the allocator retries
}

void host_free(void* ptr, int /*device*/) { std::free(ptr); }

DeviceCachingAllocator& emulated_allocator() {
  static DeviceCachingAllocator a(DeviceAllocatorBackend{&host_alloc, &host_free, "CUDA"});
  return a;
}

// An emulated device's index for a device argument (-1: the current device), checked as the runtime does.
int emulated_index(int device) {
  if (device < 0) return t_current;
  TL_CHECK_INDEX(device < emulated_count(), "Invalid device id: ", device, " (", emulated_count(),
                 " CUDA device(s) present)");
  return device;
}

}  // namespace

bool emulated() { return emulated_count() > 0; }

int device_count() { return emulated() ? emulated_count() : runtime::device_count(); }

void init() {
  if (!emulated()) return runtime::init();
  register_allocator(DeviceType::CUDA, &emulated_allocator());
}

int current_device() { return emulated() ? t_current : runtime::current_device(); }

int exchange_device(int device) {
  if (!emulated()) return runtime::exchange_device(device);
  const int prev = t_current;
  if (prev == device) return -1;
  t_current = emulated_index(device);
  return prev;
}

void set_device(int device) {
  if (!emulated()) return runtime::set_device(device);
  TL_CHECK_INDEX(device >= 0, "Invalid device id: ", device);
  t_current = emulated_index(device);
}

void synchronize(int device) {
  if (!emulated()) return runtime::synchronize(device);
  emulated_index(device);  // the emulated device's work is done when its kernel returns
}

std::string device_name(int device) {
  if (!emulated()) return runtime::device_name(device);
  emulated_index(device);
  return "torchlite emulated CUDA device (host memory)";
}

DeviceMemoryStats memory_stats(int device) {
  return emulated() ? emulated_allocator().stats(emulated_index(device)) : runtime::memory_stats(device);
}

void reset_peak_memory_stats(int device) {
  if (!emulated()) return runtime::reset_peak_memory_stats(device);
  emulated_allocator().reset_peak_stats(emulated_index(device));
}

void empty_cache() {
  if (!emulated()) return runtime::empty_cache();
  emulated_allocator().empty_cache();
}

void memcpy(void* dst, const void* src, size_t nbytes, bool non_blocking) {
  if (!emulated()) return runtime::memcpy(dst, src, nbytes, non_blocking);
  if (nbytes > 0) std::memcpy(dst, src, nbytes);
}

bool blas_available() { return !emulated() && runtime::blas_available(); }

}  // namespace cuda
}  // namespace torchlite
