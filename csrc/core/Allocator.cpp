#include "core/Allocator.h"

#include <cstdlib>
#include <new>

#include "core/Error.h"
#include "core/Macros.h"

namespace torchlite {

namespace {
class CpuAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device) override {
    if (nbytes == 0) return nullptr;
    // 64-byte alignment for vector loads; round the size up as aligned_alloc requires.
    size_t rounded = (nbytes + 63) & ~size_t(63);
    void* p = std::aligned_alloc(64, rounded);
    TL_CHECK(p != nullptr, "DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes,
             " bytes.");
    return p;
  }
  void deallocate(void* ptr, Device) override { std::free(ptr); }
};

CpuAllocator g_cpu_allocator;
Allocator* g_allocators[kNumDeviceTypes] = {&g_cpu_allocator, nullptr};
}  // namespace

Allocator* cpu_allocator() { return &g_cpu_allocator; }

Allocator* get_allocator(Device device) {
  Allocator* a = g_allocators[static_cast<int>(device.type)];
  if (TL_UNLIKELY(a == nullptr)) {
    if (device.is_cuda()) {
      TL_ERROR("CUDA is not available: torchlite was built without CUDA support or no CUDA device was found "
               "(torchlite.cuda.is_available() is False)");
    }
    TL_ERROR("no allocator for device ", to_string(device));
  }
  return a;
}

void register_allocator(DeviceType type, Allocator* allocator) {
  g_allocators[static_cast<int>(type)] = allocator;
}

}  // namespace torchlite
