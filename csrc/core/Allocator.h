#pragma once
// Device memory allocators. The CPU one is always there; the CUDA one is
// registered by the CUDA part of the build.
#include <cstddef>

#include "core/Device.h"

namespace torchlite {

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(size_t nbytes, Device device) = 0;
  virtual void deallocate(void* ptr, Device device) = 0;
};

// The caching CPU allocator (core/CachingAllocator.h).
Allocator* cpu_allocator();
// Throws a RuntimeError naming the device type when none is registered
// (e.g. "CUDA is not available" on a machine without a GPU).
Allocator* get_allocator(Device device);
void register_allocator(DeviceType type, Allocator* allocator);

}  // namespace torchlite
