#pragma once
// The caching CPU allocator behind cpu_allocator(): freed blocks go to free
// lists keyed by a rounded size class and are handed out again to allocations
// of the same class, so a loop of out-of-place ops on large tensors does not
// pay fresh page faults every iteration. Blocks are 64-byte aligned; each is
// preceded by a 64-byte header recording its size class, so every block can be
// freed by this allocator whether or not it was ever cached.
//
// Thread-safe (one mutex, never held while calling malloc/free) and fork-safe
// (the mutex is taken around fork(), so a child never inherits it locked).
// The cache is capped: a free that would take the cached bytes over the limit
// first releases the least recently cached blocks. The limit defaults to
// min(1 GiB, physical memory / 4); the environment variable
// TORCHLITE_CPU_CACHE_LIMIT (bytes, with an optional K/M/G suffix; 0 turns
// caching off) overrides it at start-up, cpu_allocator_set_cache_limit later.
#include <cstddef>
#include <cstdint>

namespace torchlite {

struct CpuAllocatorStats {
  size_t allocated_bytes = 0;       // live blocks, in rounded (size-class) bytes
  size_t peak_allocated_bytes = 0;  // the high-water mark of allocated_bytes
  size_t allocated_blocks = 0;
  size_t cached_bytes = 0;          // blocks kept in the free lists
  size_t cached_blocks = 0;
  size_t cache_limit = 0;
  uint64_t num_allocs = 0;          // every allocate() call with nbytes > 0
  uint64_t cache_hits = 0;          // allocations served from the free lists
  uint64_t cache_misses = 0;        // allocations that went to the system
  uint64_t num_frees = 0;
  uint64_t num_evictions = 0;       // cached blocks released to make room or by empty_cache
};

CpuAllocatorStats cpu_allocator_stats();
// Returns every cached block to the system (live blocks are untouched).
void cpu_allocator_empty_cache();
// Sets the cap on cached bytes and evicts down to it; 0 disables caching.
void cpu_allocator_set_cache_limit(size_t bytes);
size_t cpu_allocator_cache_limit();
// Resets the counters and sets the peak to the bytes allocated now.
void cpu_allocator_reset_stats();

// The size class an allocation of nbytes is rounded to (exposed for tests):
// multiples of 64 up to 1 KiB, then 8 classes per power of two (at most 12.5%
// above the request).
size_t cpu_allocator_round_size(size_t nbytes);

// Holds the allocator's mutex for `seconds` (tests of fork safety: a fork()
// from another thread meanwhile must not hand the child a locked mutex).
void cpu_allocator_hold_lock_for_testing(double seconds);

}  // namespace torchlite
