#pragma once
// The functions `pointwise:` expressions may call (listed in codegen/helpers.yaml),
// with overloads for the op-math types on the host and on CUDA devices.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/Macros.h"

namespace torchlite::scalar_math {

template <typename T>
TL_HOST_DEVICE inline T abs(T x) {
  if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
    return x;
  } else if constexpr (std::is_integral_v<T>) {
    // Wraps for the most negative value, as PyTorch does.
    return x < 0 ? static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x)) : x;
  } else {
    return ::fabs(x);
  }
}
TL_HOST_DEVICE inline float abs(float x) { return ::fabsf(x); }

TL_HOST_DEVICE inline float exp(float x) { return ::expf(x); }
TL_HOST_DEVICE inline double exp(double x) { return ::exp(x); }
TL_HOST_DEVICE inline float log(float x) { return ::logf(x); }
TL_HOST_DEVICE inline double log(double x) { return ::log(x); }
TL_HOST_DEVICE inline float sqrt(float x) { return ::sqrtf(x); }
TL_HOST_DEVICE inline double sqrt(double x) { return ::sqrt(x); }
TL_HOST_DEVICE inline float tanh(float x) { return ::tanhf(x); }
TL_HOST_DEVICE inline double tanh(double x) { return ::tanh(x); }

TL_HOST_DEVICE inline float pow(float x, float y) { return ::powf(x, y); }
TL_HOST_DEVICE inline double pow(double x, double y) { return ::pow(x, y); }
// Integer power by squaring. A negative exponent gives 0 unless the base is 1 or -1
// (PyTorch refuses negative integer exponents before the kernel runs).
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
TL_HOST_DEVICE inline T pow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return base || !exp;
  } else {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? -1 : 1;
      return 0;
    }
    // Multiply in the unsigned type so that overflow wraps instead of being UB.
    using U = std::make_unsigned_t<T>;
    U result = 1, b = static_cast<U>(base);
    while (exp) {
      if (exp & 1) result *= b;
      b *= b;
      exp >>= 1;
    }
    return static_cast<T>(result);
  }
}

// NaN-propagating min and max.
template <typename T>
TL_HOST_DEVICE inline T min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return b < a ? b : a;
}
template <typename T>
TL_HOST_DEVICE inline T max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? b : a;
}

}  // namespace torchlite::scalar_math
