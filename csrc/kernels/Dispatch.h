#pragma once
// Running a generic lambda on the C++ type of a dtype, for the hand-written CPU
// kernels: dispatch_dtype(t, "op", [&](auto tag) { using T = decltype(tag); ... }).
#include <type_traits>

#include "core/Complex.h"
#include "core/Half.h"
#include "core/ScalarType.h"
#include "dispatch/Meta.h"

namespace torchlite {

// Whether T is a floating type (float, double, Half, BFloat16).
template <typename T>
inline constexpr bool is_floating_v =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// f(T{}) for the C++ type of t (bool only when with_bool); other dtypes raise
// "<op>" not implemented for 'X', as PyTorch words it.
template <typename F>
void dispatch_dtype(ScalarType t, const char* op, const F& f, bool with_bool = true) {
  switch (t) {
    case ScalarType::Bool:
      if (!with_bool) break;
      f(bool{});
      return;
    case ScalarType::UInt8: f(uint8_t{}); return;
    case ScalarType::Int8: f(int8_t{}); return;
    case ScalarType::Int16: f(int16_t{}); return;
    case ScalarType::Int32: f(int32_t{}); return;
    case ScalarType::Int64: f(int64_t{}); return;
    case ScalarType::Half: f(Half{}); return;
    case ScalarType::BFloat16: f(BFloat16{}); return;
    case ScalarType::Float: f(float{}); return;
    case ScalarType::Double: f(double{}); return;
    default: break;
  }
  throw_dtype_not_implemented(op, t);
}

// f(T{}) for dispatch_dtype's dtypes and the complex ones (Complex<float>, Complex<double>), for kernels whose
// work complex numbers support (moving, adding, multiplying, comparing for equality).
template <typename F>
void dispatch_dtype_and_complex(ScalarType t, const char* op, const F& f, bool with_bool = true) {
  switch (t) {
    case ScalarType::ComplexFloat: f(Complex<float>{}); return;
    case ScalarType::ComplexDouble: f(Complex<double>{}); return;
    default: dispatch_dtype(t, op, f, with_bool);
  }
}

// f(T{}) for every dtype: dispatch_dtype's and the barebones unsigned (uint16/32/64) and complex ones, for
// kernels that only move or convert elements (copies, casts).
template <typename F>
void dispatch_any_dtype(ScalarType t, const char* op, const F& f) {
  switch (t) {
    case ScalarType::UInt16: f(uint16_t{}); return;
    case ScalarType::UInt32: f(uint32_t{}); return;
    case ScalarType::UInt64: f(uint64_t{}); return;
    case ScalarType::ComplexFloat: f(Complex<float>{}); return;
    case ScalarType::ComplexDouble: f(Complex<double>{}); return;
    default: dispatch_dtype(t, op, f);
  }
}

// f(T{}) for the floating dtypes only (f is instantiated for no other type).
template <typename F>
void dispatch_floating(ScalarType t, const char* op, const F& f) {
  switch (t) {
    case ScalarType::Half: f(Half{}); return;
    case ScalarType::BFloat16: f(BFloat16{}); return;
    case ScalarType::Float: f(float{}); return;
    case ScalarType::Double: f(double{}); return;
    default: throw_dtype_not_implemented(op, t);
  }
}

}  // namespace torchlite
