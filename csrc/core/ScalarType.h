#pragma once
// The dtypes, their C++ types, and PyTorch's type-promotion lattice.
#include <cstdint>
#include <string>

#include "core/Complex.h"
#include "core/Half.h"

namespace torchlite {

// Order matters: it is the index into the promotion table in ScalarType.cpp.
enum class ScalarType : int8_t {
  UInt8 = 0,
  Int8,
  Int16,
  Int32,
  Int64,
  Half,
  Float,
  Double,
  Bool,
  BFloat16,
  // PyTorch's "barebones" unsigned types: storage, conversion and a few ops; no promotion with other integers.
  UInt16,
  UInt32,
  UInt64,
  ComplexFloat,   // complex64
  ComplexDouble,  // complex128
  Undefined,
};
constexpr int kNumScalarTypes = 15;

const char* scalar_type_name(ScalarType t);  // "Float", "Long", ... as PyTorch's error messages
// PyTorch's C++ name of a dtype in out= messages: "double", "long int", "c10::Half".
const char* cpp_type_name(ScalarType t);
// "\"neg\" not implemented for 'Bool'" (NotImplementedError, as PyTorch words it).
[[noreturn]] void throw_dtype_not_implemented(const char* op, ScalarType dtype);
const char* scalar_type_python_name(ScalarType t);  // "float32", "int64", ...
inline std::string to_string(ScalarType t) { return scalar_type_name(t); }

constexpr int64_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::UInt8:
    case ScalarType::Int8:
    case ScalarType::Bool:
      return 1;
    case ScalarType::Int16:
    case ScalarType::UInt16:
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return 2;
    case ScalarType::Int32:
    case ScalarType::UInt32:
    case ScalarType::Float:
      return 4;
    case ScalarType::Int64:
    case ScalarType::UInt64:
    case ScalarType::Double:
    case ScalarType::ComplexFloat:
      return 8;
    case ScalarType::ComplexDouble:
      return 16;
    default:
      return 0;
  }
}

constexpr bool is_floating_type(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::Float || t == ScalarType::Double ||
         t == ScalarType::BFloat16;
}
// The dtype PyTorch computes a reduced-precision floating dtype's values in (float32); any other unchanged.
constexpr ScalarType opmath_dtype(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 ? ScalarType::Float : t;
}
constexpr bool is_barebones_unsigned_type(ScalarType t) {
  return t == ScalarType::UInt16 || t == ScalarType::UInt32 || t == ScalarType::UInt64;
}
constexpr bool is_integral_type(ScalarType t, bool include_bool) {
  return (t >= ScalarType::UInt8 && t <= ScalarType::Int64) || is_barebones_unsigned_type(t) ||
         (include_bool && t == ScalarType::Bool);
}
constexpr bool is_complex_type(ScalarType t) {
  return t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble;
}
constexpr bool is_signed_type(ScalarType t) {
  return t != ScalarType::UInt8 && t != ScalarType::Bool && !is_barebones_unsigned_type(t);
}
// complex64 for float16/bfloat16/float32, complex128 for float64 (a complex dtype unchanged).
constexpr ScalarType to_complex_type(ScalarType t) {
  return t == ScalarType::Double || t == ScalarType::ComplexDouble ? ScalarType::ComplexDouble
                                                                   : ScalarType::ComplexFloat;
}
// The real dtype of a complex one: float32 for complex64, float64 for complex128 (any other unchanged).
constexpr ScalarType to_real_type(ScalarType t) {
  return t == ScalarType::ComplexFloat ? ScalarType::Float : t == ScalarType::ComplexDouble ? ScalarType::Double : t;
}

// Raises RuntimeError for a barebones unsigned type with another integer type or bool, as PyTorch does.
ScalarType promote_types(ScalarType a, ScalarType b);
// PyTorch's canCast: no float -> integral, no non-bool -> bool.
bool can_cast(ScalarType from, ScalarType to);

// The process-wide default floating dtype (float32 unless set_default_dtype changed it).
ScalarType default_dtype();
void set_default_dtype(ScalarType t);

// C++ type of a dtype, and the op-math type computations run in.
template <typename T> struct ScalarTypeOf;
template <> struct ScalarTypeOf<uint8_t> { static constexpr ScalarType value = ScalarType::UInt8; };
template <> struct ScalarTypeOf<int8_t> { static constexpr ScalarType value = ScalarType::Int8; };
template <> struct ScalarTypeOf<int16_t> { static constexpr ScalarType value = ScalarType::Int16; };
template <> struct ScalarTypeOf<int32_t> { static constexpr ScalarType value = ScalarType::Int32; };
template <> struct ScalarTypeOf<int64_t> { static constexpr ScalarType value = ScalarType::Int64; };
template <> struct ScalarTypeOf<Half> { static constexpr ScalarType value = ScalarType::Half; };
template <> struct ScalarTypeOf<float> { static constexpr ScalarType value = ScalarType::Float; };
template <> struct ScalarTypeOf<double> { static constexpr ScalarType value = ScalarType::Double; };
template <> struct ScalarTypeOf<bool> { static constexpr ScalarType value = ScalarType::Bool; };
template <> struct ScalarTypeOf<BFloat16> { static constexpr ScalarType value = ScalarType::BFloat16; };
template <> struct ScalarTypeOf<uint16_t> { static constexpr ScalarType value = ScalarType::UInt16; };
template <> struct ScalarTypeOf<uint32_t> { static constexpr ScalarType value = ScalarType::UInt32; };
template <> struct ScalarTypeOf<uint64_t> { static constexpr ScalarType value = ScalarType::UInt64; };
template <> struct ScalarTypeOf<Complex<float>> { static constexpr ScalarType value = ScalarType::ComplexFloat; };
template <> struct ScalarTypeOf<Complex<double>> { static constexpr ScalarType value = ScalarType::ComplexDouble; };

template <typename T> struct OpMathType { using type = T; };
template <> struct OpMathType<Half> { using type = float; };
template <> struct OpMathType<BFloat16> { using type = float; };
template <typename T> using opmath_t = typename OpMathType<T>::type;

}  // namespace torchlite
