#pragma once
// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011): a counter-based generator. One call maps a 128-bit
// counter and a 64-bit key to 128 random bits, so any element of a stream can be
// computed on its own, on any thread or device, in any order.
//
// torchlite's stream for a seed: block b = philox4x32_10(counter = {b_lo, b_hi, 0, 0},
// key = {seed_lo, seed_hi}). Also here: the conversions from random words to
// uniform floats in [0, 1), shared by the CPU kernels and (later) CUDA ones.
#include <cstdint>

#include "core/Macros.h"

namespace torchlite::philox {

struct Block {
  uint32_t x[4];
};

TL_HOST_DEVICE inline Block philox4x32_10(Block ctr, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;  // round multipliers
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;  // key schedule increments
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
    uint64_t p0 = static_cast<uint64_t>(kMul0) * ctr.x[0];
    uint64_t p1 = static_cast<uint64_t>(kMul1) * ctr.x[2];
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    ctr = Block{{hi1 ^ ctr.x[1] ^ k0, lo1, hi0 ^ ctr.x[3] ^ k1, lo0}};
  }
  return ctr;
}

// Block `index` of the stream of `seed`.
TL_HOST_DEVICE inline Block stream_block(uint64_t seed, uint64_t index) {
  return philox4x32_10(Block{{static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0u, 0u}},
                       static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// The 32-bit words of a stream from block `base` on: word w is lane w % 4 of block base + w / 4. Reading
// words in increasing order computes each block once.
class Words {
 public:
  TL_HOST_DEVICE Words(uint64_t seed, uint64_t base) : seed_(seed), base_(base) {}
  TL_HOST_DEVICE uint32_t operator[](uint64_t w) {
    uint64_t b = w >> 2;
    if (b != cached_) {
      block_ = stream_block(seed_, base_ + b);
      cached_ = b;
    }
    return block_.x[w & 3];
  }
  TL_HOST_DEVICE uint64_t u64(uint64_t w) { return static_cast<uint64_t>((*this)[w + 1]) << 32 | (*this)[w]; }

 private:
  uint64_t seed_, base_;
  uint64_t cached_ = ~uint64_t(0);
  Block block_{};
};

// Uniform in [0, 1) from the top `digits` bits of a word (24 for float, 11 for half, 8 for bfloat16):
// every value is exact in the target type, so rounding never reaches 1.
TL_HOST_DEVICE inline float uniform_from_bits(uint32_t x, int digits) {
  return static_cast<float>(x >> (32 - digits)) * (1.0f / static_cast<float>(1u << digits));
}
// Uniform in [0, 1) with 53 random bits (double).
TL_HOST_DEVICE inline double uniform_double(uint64_t x) {
  return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

}  // namespace torchlite::philox
