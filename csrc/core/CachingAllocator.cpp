// The caching CPU allocator (see CachingAllocator.h for the contract).
//
// Layout of a block: [64-byte BlockHeader][payload of `size` bytes]. The
// header records the size class, so deallocate needs no size and no lookup
// table, and while the block sits in the cache it also holds the links of two
// intrusive lists: its size class's free list (most recently freed first, so a
// reused block is likely still in cache) and one list of all cached blocks in
// the order they were freed (oldest evicted first when the cache is full).
// The mutex guards the lists and the counters only: malloc and free run
// outside it.
#include "core/CachingAllocator.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <thread>

#include "core/Allocator.h"
#include "core/Error.h"
#include "core/Macros.h"

namespace torchlite {

namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kHeaderSize = 64;
// Size classes: multiples of 64 bytes up to 1 KiB (16 classes), then 8 per
// power of two: (2^k, 2^(k+1)] is split in steps of 2^(k-3).
constexpr size_t kSmallLimit = 1024;
constexpr int kNumSmallClasses = static_cast<int>(kSmallLimit / kAlignment);
constexpr int kClassesPerPowerOfTwo = 8;
constexpr int kMinLog2 = 10;  // the first power-of-two range is (1 KiB, 2 KiB]
constexpr int kMaxLog2 = 45;  // the last is (32 TiB, 64 TiB]; larger blocks are never cached
constexpr int kNumBuckets = kNumSmallClasses + (kMaxLog2 - kMinLog2 + 1) * kClassesPerPowerOfTwo;
constexpr int kNoBucket = -1;
// Requests above this fail up front instead of overflowing the size arithmetic.
constexpr size_t kMaxRequest = size_t(1) << 62;
constexpr size_t kDefaultCacheLimit = size_t(1) << 30;
// Blocks from this size on ask for transparent huge pages (as NumPy does): a
// first touch then faults 2 MiB at a time instead of 4 KiB.
constexpr size_t kHugePageThreshold = size_t(4) << 20;
constexpr size_t kHugePageSize = size_t(2) << 20;

constexpr uint64_t kLiveMagic = 0x4c4954454c495645ull;    // "LITELIVE"
constexpr uint64_t kCachedMagic = 0x4c49544543414348ull;  // "LITECACH"

struct alignas(kAlignment) BlockHeader {
  uint64_t magic;
  size_t size;  // payload bytes: the size class
  int bucket;   // index of the size class, or kNoBucket
  // Valid only while the block is cached.
  BlockHeader* bucket_prev;
  BlockHeader* bucket_next;
  BlockHeader* older;  // the all-cached-blocks list, in the order they were freed
  BlockHeader* newer;
};
static_assert(sizeof(BlockHeader) == kHeaderSize, "the header must keep the payload 64-byte aligned");

struct SizeClass {
  size_t size;
  int bucket;
};

SizeClass size_class(size_t n) {
  if (n <= kSmallLimit) {
    size_t rounded = (std::max<size_t>(n, 1) + kAlignment - 1) & ~(kAlignment - 1);
    return {rounded, static_cast<int>(rounded / kAlignment) - 1};
  }
  int k = 63 - __builtin_clzll(static_cast<unsigned long long>(n - 1));  // 2^k < n <= 2^(k+1)
  if (k > kMaxLog2) return {(n + kAlignment - 1) & ~(kAlignment - 1), kNoBucket};
  size_t step = size_t(1) << (k - 3);
  size_t rounded = (n + step - 1) & ~(step - 1);
  int sub = static_cast<int>(rounded >> (k - 3)) - kClassesPerPowerOfTwo;  // 1..8
  return {rounded, kNumSmallClasses + (k - kMinLog2) * kClassesPerPowerOfTwo + sub - 1};
}

void advise_huge_pages(void* raw, size_t nbytes) {
#ifdef MADV_HUGEPAGE
  if (nbytes < kHugePageThreshold) return;
  uintptr_t begin = (reinterpret_cast<uintptr_t>(raw) + kHugePageSize - 1) & ~(kHugePageSize - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(raw) + nbytes) & ~(kHugePageSize - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint: errors ignored
#else
  (void)raw;
  (void)nbytes;
#endif
}

inline BlockHeader* header_of(void* payload) {
  return reinterpret_cast<BlockHeader*>(static_cast<char*>(payload) - kHeaderSize);
}
inline void* payload_of(BlockHeader* b) { return reinterpret_cast<char*>(b) + kHeaderSize; }

[[noreturn]] void fatal(const char* what, const void* ptr) {
  std::fprintf(stderr, "torchlite: CPU allocator: %s (pointer %p)\n", what, ptr);
  std::abort();
}

// "512M", "2G", "1073741824", "0": bytes with an optional K/M/G (binary) suffix.
bool parse_bytes(const char* s, size_t* out) {
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (end == s || errno != 0 || *s == '-') return false;
  int shift = 0;
  switch (*end) {
    case 'k': case 'K': shift = 10; ++end; break;
    case 'm': case 'M': shift = 20; ++end; break;
    case 'g': case 'G': shift = 30; ++end; break;
    default: break;
  }
  if (*end == 'i') ++end;
  if (*end == 'b' || *end == 'B') ++end;
  if (*end != '\0') return false;
  if (shift && v > (~0ull >> shift)) return false;
  *out = static_cast<size_t>(v << shift);
  return true;
}

size_t initial_cache_limit() {
  size_t limit = kDefaultCacheLimit;
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    limit = std::min(limit, static_cast<size_t>(pages) * static_cast<size_t>(page_size) / 4);
  }
  if (const char* env = std::getenv("TORCHLITE_CPU_CACHE_LIMIT")) {
    size_t parsed;
    if (parse_bytes(env, &parsed)) {
      limit = parsed;
    } else {
      std::fprintf(stderr,
                   "torchlite: ignoring TORCHLITE_CPU_CACHE_LIMIT=%s (expected bytes with an optional K, M or G "
                   "suffix)\n", env);
    }
  }
  return limit;
}

class CachingCpuAllocator final : public Allocator {
 public:
  CachingCpuAllocator() : limit_(initial_cache_limit()) {
    // A child forked while another thread held the mutex would deadlock on
    // its first allocation: hold the mutex across fork() instead.
    pthread_atfork([] { instance()->mutex_.lock(); },
                   [] { instance()->mutex_.unlock(); },
                   [] { instance()->mutex_.unlock(); });
  }

  // Never destroyed: tensors may be freed during interpreter shutdown.
  static CachingCpuAllocator* instance() {
    static CachingCpuAllocator* const allocator = new CachingCpuAllocator();
    return allocator;
  }

  void* allocate(size_t nbytes, Device) override {
    if (nbytes == 0) return nullptr;
    if (TL_UNLIKELY(nbytes > kMaxRequest)) out_of_memory(nbytes);
    const SizeClass c = size_class(nbytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.num_allocs;
      count_allocated(c.size);
      if (c.bucket != kNoBucket) {
        if (BlockHeader* b = buckets_[c.bucket]) {
          unlink(b);
          ++stats_.cache_hits;
          b->magic = kLiveMagic;
          return payload_of(b);
        }
      }
      ++stats_.cache_misses;
    }
    void* raw = std::aligned_alloc(kAlignment, kHeaderSize + c.size);
    if (TL_UNLIKELY(raw == nullptr)) {
      // Cached blocks of other sizes may be what stands in the way.
      empty_cache();
      raw = std::aligned_alloc(kAlignment, kHeaderSize + c.size);
      if (raw == nullptr) {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          stats_.allocated_bytes -= c.size;
          --stats_.allocated_blocks;
        }
        out_of_memory(nbytes);
      }
    }
    advise_huge_pages(raw, kHeaderSize + c.size);
    BlockHeader* b = new (raw) BlockHeader{kLiveMagic, c.size, c.bucket, nullptr, nullptr, nullptr, nullptr};
    return payload_of(b);
  }

  void deallocate(void* ptr, Device) override {
    if (ptr == nullptr) return;
    BlockHeader* b = header_of(ptr);
    if (TL_UNLIKELY(b->magic != kLiveMagic)) {
      fatal(b->magic == kCachedMagic ? "double free" : "freeing memory it did not allocate", ptr);
    }
    BlockHeader* evicted = nullptr;
    bool keep;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.num_frees;
      stats_.allocated_bytes -= b->size;
      --stats_.allocated_blocks;
      keep = b->bucket != kNoBucket && b->size <= limit_;
      if (keep) {
        evicted = evict_down_to(limit_ - b->size);
        push(b);
      }
    }
    release(evicted);
    if (!keep) {
      b->magic = 0;
      std::free(b);
    }
  }

  CpuAllocatorStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    CpuAllocatorStats s = stats_;
    s.cache_limit = limit_;
    return s;
  }

  void reset_stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    CpuAllocatorStats fresh;
    fresh.allocated_bytes = stats_.allocated_bytes;
    fresh.peak_allocated_bytes = stats_.allocated_bytes;
    fresh.allocated_blocks = stats_.allocated_blocks;
    fresh.cached_bytes = stats_.cached_bytes;
    fresh.cached_blocks = stats_.cached_blocks;
    stats_ = fresh;
  }

  void empty_cache() {
    BlockHeader* evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      evicted = evict_down_to(0);
    }
    release(evicted);
  }

  void set_limit(size_t bytes) {
    BlockHeader* evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      limit_ = bytes;
      evicted = evict_down_to(bytes);
    }
    release(evicted);
  }

  size_t limit() {
    std::lock_guard<std::mutex> lock(mutex_);
    return limit_;
  }

  void hold_lock_for_testing(double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }

 private:
  [[noreturn]] static void out_of_memory(size_t nbytes) {
    TL_ERROR("DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes, " bytes.");
  }

  void count_allocated(size_t size) {
    stats_.allocated_bytes += size;
    ++stats_.allocated_blocks;
    stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  }

  // Adds b to the front of its free list and as the newest cached block.
  void push(BlockHeader* b) {
    b->magic = kCachedMagic;
    BlockHeader*& head = buckets_[b->bucket];
    b->bucket_prev = nullptr;
    b->bucket_next = head;
    if (head) head->bucket_prev = b;
    head = b;
    b->newer = nullptr;
    b->older = newest_;
    if (newest_) newest_->newer = b;
    newest_ = b;
    if (!oldest_) oldest_ = b;
    stats_.cached_bytes += b->size;
    ++stats_.cached_blocks;
  }

  // Removes a cached block from both lists.
  void unlink(BlockHeader* b) {
    if (b->bucket_prev) b->bucket_prev->bucket_next = b->bucket_next;
    else buckets_[b->bucket] = b->bucket_next;
    if (b->bucket_next) b->bucket_next->bucket_prev = b->bucket_prev;
    if (b->newer) b->newer->older = b->older;
    else newest_ = b->older;
    if (b->older) b->older->newer = b->newer;
    else oldest_ = b->newer;
    stats_.cached_bytes -= b->size;
    --stats_.cached_blocks;
  }

  // Takes the oldest cached blocks out until at most `target` bytes stay
  // cached; returns them chained through bucket_next, for release() to free
  // once the mutex is dropped.
  BlockHeader* evict_down_to(size_t target) {
    BlockHeader* chain = nullptr;
    while (stats_.cached_bytes > target && oldest_) {
      BlockHeader* b = oldest_;
      unlink(b);
      ++stats_.num_evictions;
      b->bucket_next = chain;
      chain = b;
    }
    return chain;
  }

  static void release(BlockHeader* chain) {
    while (chain) {
      BlockHeader* next = chain->bucket_next;
      chain->magic = 0;
      std::free(chain);
      chain = next;
    }
  }

  std::mutex mutex_;
  size_t limit_;
  BlockHeader* buckets_[kNumBuckets] = {};
  BlockHeader* newest_ = nullptr;
  BlockHeader* oldest_ = nullptr;
  CpuAllocatorStats stats_;
};

}  // namespace

Allocator* cpu_allocator() { return CachingCpuAllocator::instance(); }

CpuAllocatorStats cpu_allocator_stats() { return CachingCpuAllocator::instance()->stats(); }
void cpu_allocator_empty_cache() { CachingCpuAllocator::instance()->empty_cache(); }
void cpu_allocator_set_cache_limit(size_t bytes) { CachingCpuAllocator::instance()->set_limit(bytes); }
size_t cpu_allocator_cache_limit() { return CachingCpuAllocator::instance()->limit(); }
void cpu_allocator_reset_stats() { CachingCpuAllocator::instance()->reset_stats(); }
size_t cpu_allocator_round_size(size_t nbytes) { return size_class(nbytes).size; }
void cpu_allocator_hold_lock_for_testing(double seconds) {
  CachingCpuAllocator::instance()->hold_lock_for_testing(seconds);
}

}  // namespace torchlite
