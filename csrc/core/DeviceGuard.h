#pragma once
// Makes a CUDA tensor's device the current one while an op's kernel runs on it, as PyTorch's device guard
// does: kernels launch, cuBLAS works and temporaries are allocated on the current device. Restores the
// previous device on exit. Costs one branch for CPU tensors and one cudaGetDevice for CUDA tensors.
#include "core/Device.h"

namespace torchlite {

namespace cuda {  // defined in core/CudaEmulation.cpp with the rest of core/CudaHooks.h
int current_device();
// Makes `device` current; returns the previous device when it changed, else -1.
int exchange_device(int device);
}  // namespace cuda

class DeviceGuard {
 public:
  explicit DeviceGuard(Device device) {
    if (__builtin_expect(device.is_cuda() && device.index >= 0, 0)) prev_ = cuda::exchange_device(device.index);
  }
  ~DeviceGuard() {
    if (prev_ >= 0) cuda::exchange_device(prev_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = -1;
};

}  // namespace torchlite
