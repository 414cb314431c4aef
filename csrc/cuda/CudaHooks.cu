// The CUDA runtime hooks: devices, synchronization, and the caching device allocator over cudaMalloc.
#include <cuda_runtime.h>

#include <string>

#include "core/Allocator.h"
#include "core/CudaHooks.h"
#include "core/Error.h"

namespace torchlite::cuda {

static void check(cudaError_t err, const char* what) {
  TL_CHECK(err == cudaSuccess, "CUDA error in ", what, ": ", cudaGetErrorString(err));
}

bool is_built() { return true; }

const char* version() {
  static char buf[16];
  int v = CUDART_VERSION;
  snprintf(buf, sizeof(buf), "%d.%d", v / 1000, (v % 1000) / 10);
  return buf;
}

namespace runtime {

namespace {
// The raw backend of the caching allocator (core/DeviceCachingAllocator.h): cudaMalloc / cudaFree on the
// device. Out of memory is nullptr (the allocator empties its cache and retries); other errors throw.
// Makes `device` current for its lifetime (allocations on another device leave the current one as it was).
struct OnDevice {
  int prev = -1;
  explicit OnDevice(int device) {
    int cur = 0;
    check(cudaGetDevice(&cur), "cudaGetDevice");
    if (cur == device) return;
    check(cudaSetDevice(device), ("cudaSetDevice(" + std::to_string(device) + ")").c_str());
    prev = cur;
  }
  ~OnDevice() {
    if (prev >= 0) cudaSetDevice(prev);
  }
};
void* raw_alloc(size_t nbytes, int device) {
  OnDevice on(device);
  void* p = nullptr;
  cudaError_t err = cudaMalloc(&p, nbytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear it: the allocator retries
    return nullptr;
  }
  check(err, "cudaMalloc");
  return p;
}
void raw_free(void* ptr, int device) {
  OnDevice on(device);
  cudaFree(ptr);
}
DeviceCachingAllocator& allocator() {
  static DeviceCachingAllocator a(DeviceAllocatorBackend{&raw_alloc, &raw_free, "CUDA"});
  return a;
}
// A device index, -1 meaning the current device, checked against the devices present.
int resolve_device(int device) {
  const int n = device_count();
  if (n == 0) throw_not_available();
  if (device < 0) check(cudaGetDevice(&device), "cudaGetDevice");
  TL_CHECK_INDEX(device < n, "Invalid device id: ", device, " (", n, " CUDA device(s) present)");
  return device;
}
}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

void init() {
  if (device_count() > 0) register_allocator(DeviceType::CUDA, &allocator());
}

int current_device() {
  if (device_count() == 0) throw_not_available();
  int d = 0;
  check(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}

int exchange_device(int device) {
  int prev = 0;
  check(cudaGetDevice(&prev), "cudaGetDevice");
  if (prev == device) return -1;
  check(cudaSetDevice(resolve_device(device)), "cudaSetDevice");
  return prev;
}

void set_device(int device) {
  TL_CHECK_INDEX(device >= 0, "Invalid device id: ", device);
  check(cudaSetDevice(resolve_device(device)), "cudaSetDevice");
}

void synchronize(int device) {
  OnDevice on(resolve_device(device));
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, resolve_device(device)), "cudaGetDeviceProperties");
  return prop.name;
}

DeviceMemoryStats memory_stats(int device) {
  return allocator().stats(resolve_device(device));
}

void reset_peak_memory_stats(int device) {
  allocator().reset_peak_stats(resolve_device(device));
}

void empty_cache() {
  if (device_count() > 0) allocator().empty_cache();
}

void memcpy(void* dst, const void* src, size_t nbytes, bool non_blocking) {
  if (nbytes == 0) return;
  check(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, /*stream=*/0), "cudaMemcpyAsync");
  if (!non_blocking) check(cudaStreamSynchronize(0), "cudaStreamSynchronize");
}

}  // namespace runtime

}  // namespace torchlite::cuda
