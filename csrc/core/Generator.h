#pragma once
// A random-number generator: a shared handle to the state (seed, offset) of a
// counter-based Philox4x32-10 stream (core/Philox.h). The stream is a sequence
// of 128-bit blocks; block b of a seed is Philox(key = seed, counter = b). A
// random op takes the blocks it needs, [offset, offset + n), under the
// generator's mutex and advances the offset; each element is then computed from
// (seed, offset, element index) alone, so results do not depend on the thread
// count. Copies of a Generator share one state (like torch.Generator objects).
#include <cstdint>
#include <memory>
#include <optional>

#include "core/Device.h"

namespace torchlite {

struct GeneratorImpl;

// PyTorch's default seed (torch.initial_seed() of a fresh process).
constexpr uint64_t kDefaultSeed = 67280421310721ULL;

// The part of the stream one op computes from: the seed and its first block.
struct PhiloxRange {
  uint64_t seed;
  uint64_t offset;
};

class Generator {
 public:
  explicit Generator(Device device = Device());  // seeded with kDefaultSeed

  Device device() const;
  uint64_t seed() const;
  uint64_t offset() const;
  PhiloxRange state() const;  // (seed, offset), read together
  // Sets the seed and restarts the stream (offset 0).
  void set_seed(uint64_t seed) const;
  // Reseeds from the OS's entropy source and returns the new seed.
  uint64_t seed_nondeterministically() const;
  void set_state(uint64_t seed, uint64_t offset) const;
  void set_offset(uint64_t offset) const;
  // Takes `blocks` blocks of the stream: returns where they start and advances the offset. Thread-safe.
  PhiloxRange take(uint64_t blocks) const;

  bool is_same(const Generator& o) const { return impl_ == o.impl_; }

 private:
  std::shared_ptr<GeneratorImpl> impl_;
};

// The default generator of a device type (torchlite.default_generator for the CPU).
const Generator& default_generator(DeviceType type);
// The generator a random op on `device` uses: `g` when given (it must be of that device type), else the
// default one.
const Generator& generator_for(const std::optional<Generator>& g, Device device);

}  // namespace torchlite
