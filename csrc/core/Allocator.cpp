#include "core/Allocator.h"

#include "core/CudaHooks.h"
#include "core/Error.h"
#include "core/Macros.h"

namespace torchlite {

namespace {
// The CPU slot stays empty: cpu_allocator() (CachingAllocator.cpp) is a
// function-local singleton, so no static-initialization order is involved.
Allocator* g_allocators[kNumDeviceTypes] = {nullptr, nullptr};
}  // namespace

Allocator* get_allocator(Device device) {
  if (device.is_cpu()) return cpu_allocator();
  Allocator* a = g_allocators[static_cast<int>(device.type)];
  if (TL_UNLIKELY(a == nullptr)) {
    if (device.is_cuda()) cuda::throw_not_available();
    TL_ERROR("no allocator for device ", to_string(device));
  }
  return a;
}

void cuda::throw_not_available() {
  TL_ERROR("CUDA is not available: torchlite was built without CUDA support or no CUDA device was found "
           "(torchlite.cuda.is_available() is False)");
}

void register_allocator(DeviceType type, Allocator* allocator) {
  g_allocators[static_cast<int>(type)] = allocator;
}

}  // namespace torchlite
