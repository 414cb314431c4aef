// The CUDA device functions of core/CudaHooks.h: the real runtime's (cuda::runtime), or, when
// TORCHLITE_EMULATE_CUDA=1 is set at import, one emulated device for tests on machines without a GPU.
//
// The emulated device "cuda:0" keeps its tensors in host memory, through the CUDA caching allocator's
// own logic (core/DeviceCachingAllocator.h) over malloc; copies between it and the host are memcpy; its
// kernels are the CUDA kernels' host compilation, or for the generated pointwise kernels the CPU kernel
// of the same expression (dispatch/KernelTable.h). NumPy still refuses its tensors, as for a real GPU.
// What it checks is everything above the kernels: that results stay on their device, the device rules,
// copies between devices, autograd and the Python layer. It cannot check launches, device memory or cuBLAS.
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/Allocator.h"
#include "core/CudaHooks.h"
#include "core/Error.h"
#include "dispatch/KernelTable.h"

namespace torchlite {

bool g_cuda_emulated = false;

namespace cuda {
namespace {

void* host_alloc(size_t nbytes, int device) {
  TL_CHECK(device == 0, "CUDA error in cudaSetDevice(", device, "): invalid device ordinal");  // as the runtime
  return std::aligned_alloc(64, (nbytes + 63) / 64 * 64);  // nullptr when out of memory: the allocator retries
}

void host_free(void* ptr, int /*device*/) { std::free(ptr); }

DeviceCachingAllocator& emulated_allocator() {
  static DeviceCachingAllocator a(DeviceAllocatorBackend{&host_alloc, &host_free, "CUDA"});
  return a;
}

// The emulated device's index (0) for a device argument (-1: the current device), checked as the runtime does.
int emulated_index(int device) {
  TL_CHECK_INDEX(device < 1, "Invalid device id: ", device, " (1 CUDA device(s) present)");
  return 0;
}

}  // namespace

bool emulated() {
  static const bool on = [] {
    const char* e = std::getenv("TORCHLITE_EMULATE_CUDA");
    return e != nullptr && std::strcmp(e, "1") == 0;
  }();
  return on;
}

int device_count() { return emulated() ? 1 : runtime::device_count(); }

void init() {
  if (!emulated()) return runtime::init();
  g_cuda_emulated = true;
  register_allocator(DeviceType::CUDA, &emulated_allocator());
}

int current_device() { return emulated() ? 0 : runtime::current_device(); }

void set_device(int device) {
  if (!emulated()) return runtime::set_device(device);
  TL_CHECK_INDEX(device >= 0, "Invalid device id: ", device);
  emulated_index(device);
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
