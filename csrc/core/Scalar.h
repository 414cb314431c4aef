#pragma once
// A Python number on the C++ side: bool, int64 (kept exact), double or complex (two doubles).
#include <cstdint>
#include <optional>
#include <string>

#include "core/ScalarType.h"

namespace torchlite {

class Scalar {
 public:
  enum class Tag : uint8_t { Bool, Int, Double, Complex };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : tag_(Tag::Bool) { v_.i = v; }
  Scalar(int v) : tag_(Tag::Int) { v_.i = v; }
  Scalar(int64_t v) : tag_(Tag::Int) { v_.i = v; }
  Scalar(long long v) : tag_(Tag::Int) { v_.i = static_cast<int64_t>(v); }
  Scalar(double v) : tag_(Tag::Double) { v_.d = v; }
  Scalar(float v) : tag_(Tag::Double) { v_.d = v; }
  template <typename T>
  Scalar(Complex<T> v) : tag_(Tag::Complex), im_(static_cast<double>(v.im)) { v_.d = static_cast<double>(v.re); }

  Tag tag() const { return tag_; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_integral(bool include_bool) const {
    return tag_ == Tag::Int || (include_bool && tag_ == Tag::Bool);
  }
  bool is_floating_point() const { return tag_ == Tag::Double; }
  bool is_complex() const { return tag_ == Tag::Complex; }

  // The dtype a tensor made from this number gets (as a wrapped number).
  ScalarType type() const {
    switch (tag_) {
      case Tag::Bool: return ScalarType::Bool;
      case Tag::Int: return ScalarType::Int64;
      case Tag::Complex: return ScalarType::ComplexDouble;
      default: return ScalarType::Double;
    }
  }

  // A complex number's real part for the real conversions (ops that must refuse a complex check is_complex()).
  double to_double() const { return has_double() ? v_.d : static_cast<double>(v_.i); }
  // A double outside int64's range (or NaN) has no defined C++ conversion: it saturates here (NaN gives 0);
  // ops that must refuse such values check fits() first.
  int64_t to_long() const { return has_double() ? double_to_long(v_.d) : v_.i; }
  bool to_bool() const { return has_double() ? v_.d != 0 || im_ != 0 : v_.i != 0; }
  double imag() const { return im_; }
  Complex<double> to_complex() const { return {to_double(), im_}; }

  // Value converted to a computation type (double for floats, exact int64 for ints).
  template <typename T>
  T to() const {
    if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      return T(static_cast<R>(to_double()), static_cast<R>(im_));
    } else if constexpr (std::is_same_v<T, bool>) {
      return to_bool();
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(to_long());
    } else {
      return static_cast<T>(to_double());
    }
  }

 private:
  bool has_double() const { return tag_ == Tag::Double || tag_ == Tag::Complex; }
  static int64_t double_to_long(double d) {
    if (!(d == d)) return 0;
    if (d >= 9223372036854775808.0) return INT64_MAX;
    if (d < -9223372036854775808.0) return INT64_MIN;
    return static_cast<int64_t>(d);
  }

  Tag tag_;
  double im_ = 0;  // a complex number's imaginary part
  union {
    int64_t i;
    double d;
  } v_;
};

std::string to_string(const Scalar& s);

// PyTorch's checked conversion of a Python number to a tensor's dtype (c10's checked_convert): whether `s`
// can be stored in dtype `t` without overflow. Integer dtypes: values in range (an unsigned type also takes
// negative integers down to -max, which wrap as two's complement, but no negative float); NaN and infinities
// never fit. Floating types: finite values within the type's range, and any infinity or NaN; complex types:
// both parts so; a complex value fits no real dtype. bool takes anything.
bool scalar_fits(const Scalar& s, ScalarType t);
// Raises RuntimeError "<op>: value <s> cannot be converted to type <C++ type> without overflow".
void check_scalar_fits(const char* op, const Scalar& s, ScalarType t);
inline void check_scalar_fits(const char* op, const std::optional<Scalar>& s, ScalarType t) {
  if (s.has_value()) check_scalar_fits(op, *s, t);
}

}  // namespace torchlite
