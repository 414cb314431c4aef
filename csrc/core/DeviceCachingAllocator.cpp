#include "core/DeviceCachingAllocator.h"

#include <algorithm>
#include <utility>

#include "core/Error.h"

namespace torchlite {

size_t DeviceCachingAllocator::round_size(size_t nbytes) {
  constexpr size_t kSmall = 512, kLarge = size_t(1) << 20;
  if (nbytes <= kLarge) return std::max(kSmall, (nbytes + kSmall - 1) / kSmall * kSmall);
  // 8 classes per power of two: at most 12.5% above the request
  size_t pow2 = kLarge;
  while (pow2 * 2 < nbytes) pow2 *= 2;
  const size_t step = pow2 / 8;
  return (nbytes + step - 1) / step * step;
}

DeviceCachingAllocator::DeviceState& DeviceCachingAllocator::state(int device) {
  if (device >= static_cast<int>(devices_.size())) devices_.resize(static_cast<size_t>(device) + 1);
  return devices_[static_cast<size_t>(device)];
}

static std::string mib(size_t bytes) {
  return str(static_cast<double>(bytes) / (1 << 20), " MiB");
}

void* DeviceCachingAllocator::allocate(size_t nbytes, Device device) {
  if (nbytes == 0) return nullptr;
  const int d = device.index < 0 ? 0 : device.index;
  const size_t size = round_size(nbytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceState& s = state(d);
    ++s.stats.num_allocs;
    auto it = s.free_lists.find(size);
    if (it != s.free_lists.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      --s.stats.cached_blocks;
      ++s.stats.cache_hits;
      s.stats.allocated_bytes += size;
      s.stats.peak_allocated_bytes = std::max(s.stats.peak_allocated_bytes, s.stats.allocated_bytes);
      live_[p] = Block{d, size};
      return p;
    }
  }
  void* p = backend_.raw_alloc(size, d);
  if (p == nullptr) {
    // Out of memory: give the cached blocks of this device back and try once more.
    std::vector<std::pair<void*, int>> cached;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      release_cached(d, cached);
      ++state(d).stats.oom_retries;
    }
    for (auto& [ptr, dev] : cached) backend_.raw_free(ptr, dev);
    p = backend_.raw_alloc(size, d);
    if (p == nullptr) {
      std::lock_guard<std::mutex> lock(mutex_);
      const DeviceMemoryStats& st = state(d).stats;
      TL_ERROR(backend_.name, " out of memory. Tried to allocate ", mib(size), " on device ", d, ". torchlite holds ",
               mib(st.allocated_bytes), " in live tensors on it (its cache was emptied first).");
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceState& s = state(d);
  ++s.stats.backend_allocs;
  s.stats.allocated_bytes += size;
  s.stats.reserved_bytes += size;
  s.stats.peak_allocated_bytes = std::max(s.stats.peak_allocated_bytes, s.stats.allocated_bytes);
  s.stats.peak_reserved_bytes = std::max(s.stats.peak_reserved_bytes, s.stats.reserved_bytes);
  live_[p] = Block{d, size};
  return p;
}

void DeviceCachingAllocator::deallocate(void* ptr, Device) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(ptr);
  TL_CHECK(it != live_.end(), backend_.name, " allocator: freeing a pointer it did not allocate");
  const Block b = it->second;
  live_.erase(it);
  DeviceState& s = state(b.device);
  s.stats.allocated_bytes -= b.size;
  s.free_lists[b.size].push_back(ptr);
  ++s.stats.cached_blocks;
}

void DeviceCachingAllocator::release_cached(int device, std::vector<std::pair<void*, int>>& out) {
  DeviceState& s = state(device);
  for (auto& [size, blocks] : s.free_lists) {
    for (void* p : blocks) out.emplace_back(p, device);
    s.stats.reserved_bytes -= size * blocks.size();
    s.stats.backend_frees += blocks.size();
    blocks.clear();
  }
  s.stats.cached_blocks = 0;
}

void DeviceCachingAllocator::empty_cache() {
  std::vector<std::pair<void*, int>> cached;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t d = 0; d < devices_.size(); ++d) release_cached(static_cast<int>(d), cached);
  }
  for (auto& [ptr, dev] : cached) backend_.raw_free(ptr, dev);
}

DeviceMemoryStats DeviceCachingAllocator::stats(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  return state(device).stats;
}

void DeviceCachingAllocator::reset_peak_stats(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceMemoryStats& s = state(device).stats;
  s.peak_allocated_bytes = s.allocated_bytes;
  s.peak_reserved_bytes = s.reserved_bytes;
}

}  // namespace torchlite
