#pragma once
// A per-op table of device kernels: the third stage of the generated call path.
#include <atomic>

#include "core/Device.h"
#include "dispatch/OpInfo.h"

namespace torchlite {

[[noreturn]] void throw_missing_kernel(const OpInfo& op, Device device, const bool* available);

// When set (tests only: torchlite._C._set_gpu_kernels_on_host), CPU tensors run an op's hand-written CUDA
// kernel compiled for the host (kernels/gpu/Backend.h) instead of its CPU kernel, where it has one: the
// CUDA kernels' index math and results are then checked on machines without a GPU.
extern std::atomic<bool> g_gpu_kernels_on_host;

template <typename Fn>
struct KernelTable {
  Fn fns[kNumDeviceTypes];
  Fn on_host = nullptr;  // the CUDA kernel's source compiled for the host

  Fn get(const OpInfo& op, Device device) const {
    if (__builtin_expect(on_host != nullptr && device.is_cpu() && g_gpu_kernels_on_host.load(std::memory_order_relaxed),
                         0))
      return on_host;
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
