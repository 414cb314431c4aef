#pragma once
// A per-op table of device kernels: the third stage of the generated call path.
#include <atomic>

#include "core/Device.h"
#include "core/DeviceGuard.h"
#include "dispatch/OpInfo.h"

namespace torchlite {

[[noreturn]] void throw_missing_kernel(const OpInfo& op, Device device, const bool* available);
// The emulated device's check of what a GPU needs: the tensors' device is the current one (core/DeviceGuard.h).
void check_emulated_device(const OpInfo& op, Device device);

// When set (tests only: torchlite._C._set_gpu_kernels_on_host), CPU tensors run an op's hand-written CUDA
// kernel compiled for the host (kernels/gpu/Backend.h) instead of its CPU kernel, where it has one: the
// CUDA kernels' index math and results are then checked on machines without a GPU.
extern std::atomic<bool> g_gpu_kernels_on_host;
// Set at import when TORCHLITE_EMULATE_CUDA=N (tests only; core/CudaEmulation.cpp): CUDA tensors then live
// in host memory and run the CUDA kernel compiled for the host, or, for an op whose CUDA kernel has no host
// compilation (the generated pointwise kernels), its CPU kernel. An op without a CUDA kernel still fails.
extern bool g_cuda_emulated;

template <typename Fn>
struct KernelTable {
  Fn fns[kNumDeviceTypes];
  Fn on_host = nullptr;  // the CUDA kernel's source compiled for the host
  bool has_cuda = false;  // the schema gives a CUDA kernel (whether or not this build compiled it)

  Fn get(const OpInfo& op, Device device) const {
    if (__builtin_expect(on_host != nullptr && device.is_cpu() && g_gpu_kernels_on_host.load(std::memory_order_relaxed),
                         0))
      return on_host;
    if (__builtin_expect(g_cuda_emulated && device.is_cuda() && has_cuda, 0)) {
      check_emulated_device(op, device);
      return on_host != nullptr ? on_host : fns[static_cast<int>(DeviceType::CPU)];
    }
    Fn f = fns[static_cast<int>(device.type)];
    if (__builtin_expect(f == nullptr, 0)) {
      bool available[kNumDeviceTypes];
      for (int i = 0; i < kNumDeviceTypes; ++i) available[i] = fns[i] != nullptr;
      throw_missing_kernel(op, device, available);
    }
    return f;
  }
};

}  // namespace torchlite

// The CUDA slot of a kernel table: the kernel when the build has CUDA, else empty.
#ifdef TORCHLITE_WITH_CUDA
#define TL_CUDA_KERNEL(fn) (fn)
#else
#define TL_CUDA_KERNEL(fn) nullptr
#endif
