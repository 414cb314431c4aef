#pragma once
// A caching allocator for device memory (the CUDA allocator), written against a raw backend so that its
// logic runs, and is tested, on machines without a GPU (tests drive it with a host-memory backend).
//
// Device memory cannot carry a header, so live blocks are found in a map from pointer to (device, size
// class). A freed block goes to its device's free list for its size class (the CPU allocator's classes:
// multiples of 512 bytes up to 1 MiB here, then 8 classes per power of two) and is handed out again to a
// request of the same class on the same device. All work runs on each device's default stream, in order,
// so a freed block may be reused at once. When the backend runs out of memory, the device's cached blocks
// are released and the allocation is tried once more; if it still fails, a RuntimeError says how much was
// asked for and how much torchlite holds. Thread-safe (one mutex, not held while calling the backend).
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/Allocator.h"

namespace torchlite {

struct DeviceAllocatorBackend {
  // nullptr when the device has no memory left (any other failure throws).
  void* (*raw_alloc)(size_t nbytes, int device);
  void (*raw_free)(void* ptr, int device);
  const char* name;  // "CUDA"
};

struct DeviceMemoryStats {
  size_t allocated_bytes = 0;       // live blocks, in size-class bytes
  size_t peak_allocated_bytes = 0;  // high-water mark of allocated_bytes since the last reset
  size_t reserved_bytes = 0;        // live + cached: what the backend handed out and torchlite holds
  size_t peak_reserved_bytes = 0;
  size_t cached_blocks = 0;
  uint64_t num_allocs = 0;
  uint64_t cache_hits = 0;
  uint64_t backend_allocs = 0;
  uint64_t backend_frees = 0;
  uint64_t oom_retries = 0;  // backend allocations retried after emptying the cache
};

class DeviceCachingAllocator final : public Allocator {
 public:
  explicit DeviceCachingAllocator(DeviceAllocatorBackend backend) : backend_(backend) {}
  ~DeviceCachingAllocator() override = default;  // blocks still cached at exit are left to the driver

  void* allocate(size_t nbytes, Device device) override;
  void deallocate(void* ptr, Device device) override;

  DeviceMemoryStats stats(int device);
  void reset_peak_stats(int device);
  void empty_cache();  // every device's cached blocks go back to the backend
  static size_t round_size(size_t nbytes);

 private:
  struct DeviceState {
    std::unordered_map<size_t, std::vector<void*>> free_lists;  // size class -> cached blocks
    DeviceMemoryStats stats;
  };
  struct Block {
    int device;
    size_t size;
  };
  DeviceState& state(int device);  // mutex held
  void release_cached(int device, std::vector<std::pair<void*, int>>& out);  // mutex held

  DeviceAllocatorBackend backend_;
  std::mutex mutex_;
  std::vector<DeviceState> devices_;
  std::unordered_map<void*, Block> live_;
};

}  // namespace torchlite
