#pragma once
// A Python number on the C++ side: bool, int64 (kept exact) or double.
#include <cstdint>
#include <string>

#include "core/ScalarType.h"

namespace torchlite {

class Scalar {
 public:
  enum class Tag : uint8_t { Bool, Int, Double };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : tag_(Tag::Bool) { v_.i = v; }
  Scalar(int v) : tag_(Tag::Int) { v_.i = v; }
  Scalar(int64_t v) : tag_(Tag::Int) { v_.i = v; }
  Scalar(long long v) : tag_(Tag::Int) { v_.i = static_cast<int64_t>(v); }
  Scalar(double v) : tag_(Tag::Double) { v_.d = v; }
  Scalar(float v) : tag_(Tag::Double) { v_.d = v; }

  Tag tag() const { return tag_; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_integral(bool include_bool) const {
    return tag_ == Tag::Int || (include_bool && tag_ == Tag::Bool);
  }
  bool is_floating_point() const { return tag_ == Tag::Double; }

  // The dtype a tensor made from this number gets (as a wrapped number).
  ScalarType type() const {
    switch (tag_) {
      case Tag::Bool: return ScalarType::Bool;
      case Tag::Int: return ScalarType::Int64;
      default: return ScalarType::Double;
    }
  }

  double to_double() const { return tag_ == Tag::Double ? v_.d : static_cast<double>(v_.i); }
  int64_t to_long() const { return tag_ == Tag::Double ? static_cast<int64_t>(v_.d) : v_.i; }
  bool to_bool() const { return tag_ == Tag::Double ? v_.d != 0 : v_.i != 0; }

  // Value converted to a computation type (double for floats, exact int64 for ints).
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return to_bool();
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(to_long());
    } else {
      return static_cast<T>(to_double());
    }
  }

 private:
  Tag tag_;
  union {
    int64_t i;
    double d;
  } v_;
};

std::string to_string(const Scalar& s);

}  // namespace torchlite
