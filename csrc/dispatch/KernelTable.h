#pragma once
// A per-op table of device kernels: the third stage of the generated call path.
#include "core/Device.h"
#include "dispatch/OpInfo.h"

namespace torchlite {

[[noreturn]] void throw_missing_kernel(const OpInfo& op, Device device, const bool* available);

template <typename Fn>
struct KernelTable {
  Fn fns[kNumDeviceTypes];

  Fn get(const OpInfo& op, Device device) const {
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
