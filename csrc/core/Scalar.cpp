#include "core/Scalar.h"

#include <cmath>
#include <limits>

#include "core/ArrayRef.h"
#include "core/Error.h"

namespace torchlite {

std::string to_string(const Scalar& s) {
  switch (s.tag()) {
    case Scalar::Tag::Bool: return s.to_bool() ? "True" : "False";
    case Scalar::Tag::Int: return std::to_string(s.to_long());
    case Scalar::Tag::Complex:  // Python's (1+2j), (1-2j), (1+nanj)
      return str("(", s.to_double(), std::signbit(s.imag()) ? "" : "+", s.imag(), "j)");
    default: return str(s.to_double());
  }
}

template <typename T>
static bool fits_integral(const Scalar& s) {
  using L = std::numeric_limits<T>;
  if (s.is_floating_point()) {
    const double d = s.to_double();
    if (!std::isfinite(d)) return false;
    // As PyTorch, 127.5 does not fit int8. int64's max rounds up to 2^63 as a double, which does not fit
    // (PyTorch lets 2^63 through to an undefined conversion).
    const double max = static_cast<double>(L::max());
    if (!(d <= max && d < max + 1.0)) return false;
    if constexpr (L::is_signed) return d >= static_cast<double>(L::min());
    else return d >= 0;  // a negative float never fits an unsigned type (a negative int wraps), as PyTorch
  }
  const int64_t v = s.to_long();
  if constexpr (!L::is_signed && sizeof(T) == 8) return true;  // uint64 takes every int64 (negatives wrap)
  else if constexpr (L::is_signed) return v >= static_cast<int64_t>(L::min()) && v <= static_cast<int64_t>(L::max());
  else return v <= static_cast<int64_t>(L::max()) && v >= -static_cast<int64_t>(L::max());
}

static bool fits_floating(const Scalar& s, double max) {
  const double d = s.to_double();
  // An int never reaches here as inf.
  if (std::isinf(d) || std::isnan(d)) return s.is_floating_point() || s.is_complex();
  return d >= -max && d <= max;
}

bool scalar_fits(const Scalar& s, ScalarType t) {
  if (s.is_bool() || t == ScalarType::Bool) return true;
  if (s.is_complex() && !is_complex_type(t)) return false;  // a real dtype cannot hold the imaginary part
  switch (t) {
    case ScalarType::UInt16: return fits_integral<uint16_t>(s);
    case ScalarType::UInt32: return fits_integral<uint32_t>(s);
    case ScalarType::UInt64: return fits_integral<uint64_t>(s);
    case ScalarType::ComplexFloat: {
      const double max = static_cast<double>(std::numeric_limits<float>::max());
      return fits_floating(s, max) && fits_floating(Scalar(s.imag()), max);
    }
    case ScalarType::UInt8: return fits_integral<uint8_t>(s);
    case ScalarType::Int8: return fits_integral<int8_t>(s);
    case ScalarType::Int16: return fits_integral<int16_t>(s);
    case ScalarType::Int32: return fits_integral<int32_t>(s);
    case ScalarType::Int64: return fits_integral<int64_t>(s);
    case ScalarType::Half: return fits_floating(s, 65504.0);
    case ScalarType::BFloat16: return fits_floating(s, 3.3895313892515355e38);
    case ScalarType::Float: return fits_floating(s, static_cast<double>(std::numeric_limits<float>::max()));
    default: return true;
  }
}

// The C++ type names of PyTorch's message (c10's checked_convert), without the c10:: namespace.
static const char* checked_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::UInt8: return "uint8_t";
    case ScalarType::Int8: return "int8_t";
    case ScalarType::Int16: return "int16_t";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "int64_t";
    case ScalarType::Half: return "Half";
    case ScalarType::BFloat16: return "BFloat16";
    case ScalarType::Float: return "float";
    case ScalarType::Double: return "double";
    case ScalarType::UInt16: return "uint16_t";
    case ScalarType::UInt32: return "uint32_t";
    case ScalarType::UInt64: return "uint64_t";
    case ScalarType::ComplexFloat: return "c10::complex<float>";
    case ScalarType::ComplexDouble: return "c10::complex<double>";
    default: return "bool";
  }
}

void check_scalar_fits(const char* op, const Scalar& s, ScalarType t) {
  TL_CHECK(scalar_fits(s, t), op, ": value ", to_string(s), " cannot be converted to type ", checked_type_name(t),
           " without overflow");
}

std::string to_string(IntArrayRef a) {
  std::string s = "[";
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(a[i]);
  }
  return s + "]";
}

}  // namespace torchlite
