#pragma once
// Value conversion between dtypes without undefined behaviour: out-of-range or
// NaN floats going to integers give the integer type's minimum (what x86 gives). A complex value going to a real
// type keeps its real part (PyTorch warns that the imaginary part is discarded); to bool, it is true unless zero.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/Complex.h"
#include "core/Half.h"
#include "core/Macros.h"

namespace torchlite {

template <typename To, typename From>
TL_HOST_DEVICE inline To convert(From v) {
  if constexpr (is_complex_v<From>) {
    if constexpr (is_complex_v<To>) {
      return To(v);
    } else if constexpr (std::is_same_v<To, bool>) {
      return v.re != 0 || v.im != 0;
    } else {
      return convert<To>(v.re);
    }
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    return To(convert<R>(v), R(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<float>(v) != 0.0f || static_cast<double>(v) != 0.0;
  } else if constexpr (std::is_integral_v<To> &&
                       (std::is_floating_point_v<From> || std::is_same_v<From, Half> ||
                        std::is_same_v<From, BFloat16>)) {
    double d = static_cast<double>(static_cast<std::conditional_t<std::is_floating_point_v<From>, From, float>>(v));
    int64_t i;
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
      i = static_cast<int64_t>(d);
    } else {
      i = std::numeric_limits<int64_t>::min();
    }
    return static_cast<To>(static_cast<std::make_unsigned_t<To>>(static_cast<uint64_t>(i)));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From> && !std::is_same_v<From, bool>) {
    // Wrap modulo 2^n, as PyTorch does.
    return static_cast<To>(static_cast<std::make_unsigned_t<To>>(static_cast<uint64_t>(static_cast<int64_t>(v))));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace torchlite
