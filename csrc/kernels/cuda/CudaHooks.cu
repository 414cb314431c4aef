// The CUDA runtime hooks and a plain device allocator (the CUDA issue adds caching).
#include <cuda_runtime.h>

#include "core/Allocator.h"
#include "core/CudaHooks.h"
#include "core/Error.h"

namespace torchlite::cuda {

namespace {
class CudaAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device device) override {
    if (nbytes == 0) return nullptr;
    if (device.index >= 0) cudaSetDevice(device.index);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, nbytes);
    TL_CHECK(err == cudaSuccess, "CUDA out of memory: tried to allocate ", nbytes, " bytes (",
             cudaGetErrorString(err), ")");
    return p;
  }
  void deallocate(void* ptr, Device) override { cudaFree(ptr); }
};
CudaAllocator g_allocator;
}  // namespace

bool is_built() { return true; }

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

const char* version() {
  static char buf[16];
  int v = CUDART_VERSION;
  snprintf(buf, sizeof(buf), "%d.%d", v / 1000, (v % 1000) / 10);
  return buf;
}

void init() {
  if (device_count() > 0) register_allocator(DeviceType::CUDA, &g_allocator);
}

}  // namespace torchlite::cuda
