#pragma once
// Argument checks and dtype facts of the random kernels (kernels/gpu/random.inc, compiled for CUDA and the
// CPU, and randperm in kernels/cpu/random.cpp), so that every device refuses the same arguments with the
// same words.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "core/Error.h"
#include "core/Half.h"
#include "core/ScalarType.h"
#include "kernels/Dispatch.h"

namespace torchlite::random_args {

// ------------------------------------------------------------------ dtypes

// Significand bits (with the implicit one) of a floating type.
template <typename T>
constexpr int digits() {
  if constexpr (std::is_same_v<T, Half>) return 11;
  else if constexpr (std::is_same_v<T, BFloat16>) return 8;
  else return std::numeric_limits<T>::digits;
}

// The largest finite value of a floating type, as a double.
template <typename T>
constexpr double max_value() {
  if constexpr (std::is_same_v<T, Half>) return 65504.0;
  else if constexpr (std::is_same_v<T, BFloat16>) return 3.3895313892515355e38;
  else return static_cast<double>(std::numeric_limits<T>::max());
}

// The C++ type names PyTorch's range messages use ("to - 1 is out of bounds for unsigned char").
template <typename T>
constexpr const char* cpp_type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, uint8_t>) return "unsigned char";
  else if constexpr (std::is_same_v<T, int8_t>) return "signed char";
  else if constexpr (std::is_same_v<T, int16_t>) return "short int";
  else if constexpr (std::is_same_v<T, int32_t>) return "int";
  else if constexpr (std::is_same_v<T, int64_t>) return "long int";
  else if constexpr (std::is_same_v<T, Half>) return "c10::Half";
  else if constexpr (std::is_same_v<T, BFloat16>) return "c10::BFloat16";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else return "double";
}

// The <cstdint> names randperm's overflow message uses.
template <typename T>
constexpr const char* fixed_width_name() {
  if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
  else return "int64_t";
}

// The next representable value below x (x finite).
template <typename T>
T step_down(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::nextafter(x, -std::numeric_limits<T>::infinity());
  } else {
    uint16_t b = x.x;
    if ((b & 0x7fff) == 0) b = 0x8001;  // +-0 -> the negative subnormal closest to 0
    else if (b & 0x8000) ++b;           // negative: away from zero
    else --b;                           // positive: toward zero
    return T::from_bits(b);
  }
}

// The largest value of T strictly below `to`: where rounding a uniform sample to T reaches `to`.
template <typename T>
T largest_below(double to) {
  T t = static_cast<T>(to);
  while (!(static_cast<double>(t) < to)) t = step_down(t);
  return t;
}

template <typename T>
void check_uniform_bounds(double from, double to, ScalarType dtype) {
  const double hi = max_value<T>();
  TL_CHECK(from >= -hi && from <= hi, "from is out of bounds for ", cpp_type_name<T>());
  TL_CHECK(to >= -hi && to <= hi, "to is out of bounds for ", cpp_type_name<T>());
  TL_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  TL_CHECK(to - from <= hi, "uniform_ expects to-from <= std::numeric_limits<", scalar_type_name(dtype),
           ">::max(), but found to=", to, " and from=", from, " which result in to-from to exceed the limit");
}

inline void check_std(double std) { TL_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std); }

// The range a dtype can hold: [min, max] for integers (bool: [0, 1]), [-max, max] for floating types.
template <typename T>
bool in_range(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v == 0 || v == 1;
  } else if constexpr (is_floating_v<T>) {
    return static_cast<double>(v) >= -max_value<T>() && static_cast<double>(v) <= max_value<T>();
  } else {
    return v >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           v <= static_cast<int64_t>(std::numeric_limits<T>::max());
  }
}

// The largest value random_ draws with no `to`: the dtype's max, or 2^digits for floating types (the
// last integer from which all smaller ones are exact).
template <typename T>
int64_t random_max() {
  if constexpr (is_floating_v<T>) return int64_t(1) << digits<T>();
  else if constexpr (std::is_same_v<T, bool>) return 1;
  else return static_cast<int64_t>(std::numeric_limits<T>::max());
}

// The number of values random_(from, to) draws from (to: None draws up to the dtype's max): 0 stands
// for 2^64 (all int64 values).
template <typename T>
uint64_t random_range(int64_t from, std::optional<int64_t> to) {
  if (to.has_value()) {
    TL_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
    TL_CHECK(in_range<T>(from), "from is out of bounds for ", cpp_type_name<T>());
    TL_CHECK(in_range<T>(*to - 1), "to - 1 is out of bounds for ", cpp_type_name<T>());
    return static_cast<uint64_t>(*to) - static_cast<uint64_t>(from);
  }
  const int64_t to_inc = random_max<T>();
  TL_CHECK(in_range<T>(from), "from is out of bounds for ", cpp_type_name<T>());
  TL_CHECK(from <= to_inc, "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
           "casted to dtype, but got from=", from, " > to_inc=", to_inc);
  return static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1;  // 0: all 2^64 values
}

}  // namespace torchlite::random_args
