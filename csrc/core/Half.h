#pragma once
// IEEE half precision and bfloat16 storage types. Arithmetic happens in float
// (the op-math type); these types only convert.
#include <cstdint>
#include <cstring>

#include "core/Macros.h"

namespace torchlite {

namespace detail {
TL_HOST_DEVICE inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
TL_HOST_DEVICE inline float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// float -> half, round to nearest even, handles subnormals, inf and nan.
TL_HOST_DEVICE inline uint16_t float_to_half_bits(float f) {
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {  // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
  }
  if (ax >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (ax < 0x38800000u) {  // subnormal half (or zero)
    // Add 0.5 (as float) so that the FPU rounds the mantissa for us.
    float v = bits_float(ax) + 0.5f;
    return static_cast<uint16_t>(sign | (float_bits(v) - 0x3f000000u));
  }
  uint32_t mant_odd = (ax >> 13) & 1u;
  ax += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
  return static_cast<uint16_t>(sign | (ax >> 13));
}

TL_HOST_DEVICE inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    // subnormal: value = mant * 2^-24
    float v = static_cast<float>(mant) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

TL_HOST_DEVICE inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
  uint32_t rounding_bias = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding_bias) >> 16);
}
TL_HOST_DEVICE inline float bf16_bits_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}
}  // namespace detail

struct Half {
  uint16_t x;
  Half() = default;
  TL_HOST_DEVICE Half(float f) : x(detail::float_to_half_bits(f)) {}
  TL_HOST_DEVICE operator float() const { return detail::half_bits_to_float(x); }
  TL_HOST_DEVICE static Half from_bits(uint16_t b) {
    Half h;
    h.x = b;
    return h;
  }
};

struct BFloat16 {
  uint16_t x;
  BFloat16() = default;
  TL_HOST_DEVICE BFloat16(float f) : x(detail::float_to_bf16_bits(f)) {}
  TL_HOST_DEVICE operator float() const { return detail::bf16_bits_to_float(x); }
  TL_HOST_DEVICE static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.x = b;
    return h;
  }
};

}  // namespace torchlite
