#include "core/ScalarType.h"

#include <atomic>

#include "core/Error.h"

namespace torchlite {

const char* scalar_type_name(ScalarType t) {
  static const char* names[] = {"Byte",   "Char",   "Short",  "Int",          "Long",
                                "Half",   "Float",  "Double", "Bool",         "BFloat16",
                                "UInt16", "UInt32", "UInt64", "ComplexFloat", "ComplexDouble",
                                "Undefined"};
  return names[static_cast<int>(t)];
}

const char* scalar_type_python_name(ScalarType t) {
  static const char* names[] = {"uint8",   "int8",    "int16",  "int32",     "int64",
                                "float16", "float32", "float64", "bool",     "bfloat16",
                                "uint16",  "uint32",  "uint64",  "complex64", "complex128",
                                "undefined"};
  return names[static_cast<int>(t)];
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  if (is_complex_type(a) || is_complex_type(b)) {
    TL_CHECK(!is_barebones_unsigned_type(a) && !is_barebones_unsigned_type(b),
             "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote ",
             scalar_type_name(a), " and ", scalar_type_name(b));
    // complex128 with anything, or complex64 with float64, is complex128; complex64 otherwise.
    if (a == ScalarType::ComplexDouble || b == ScalarType::ComplexDouble || a == ScalarType::Double ||
        b == ScalarType::Double)
      return ScalarType::ComplexDouble;
    return ScalarType::ComplexFloat;
  }
  if (is_barebones_unsigned_type(a) || is_barebones_unsigned_type(b)) {
    // PyTorch promotes them only with a floating type (which wins).
    if (is_floating_type(a)) return a;
    if (is_floating_type(b)) return b;
    TL_ERROR("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote ",
             scalar_type_name(a), " and ", scalar_type_name(b));
  }
  constexpr auto u1 = ScalarType::UInt8, i1 = ScalarType::Int8, i2 = ScalarType::Int16,
                 i4 = ScalarType::Int32, i8 = ScalarType::Int64, f2 = ScalarType::Half,
                 f4 = ScalarType::Float, f8 = ScalarType::Double, b1 = ScalarType::Bool,
                 bf = ScalarType::BFloat16;
  // PyTorch's promotion table (rows and columns in enum order).
  static constexpr ScalarType table[10][10] = {
      /*        u1  i1  i2  i4  i8  f2  f4  f8  b1  bf */
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, bf, bf},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex_type(from) && !is_complex_type(to)) return false;
  if (is_floating_type(from) && is_integral_type(to, /*include_bool=*/true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

static std::atomic<ScalarType> g_default_dtype{ScalarType::Float};

ScalarType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(ScalarType t) {
  TL_CHECK_TYPE(is_floating_type(t), "only floating-point types are supported as the default type, got ",
                scalar_type_python_name(t));
  g_default_dtype.store(t, std::memory_order_relaxed);
}

const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::UInt8: return "unsigned char";
    case ScalarType::Int8: return "signed char";
    case ScalarType::Int16: return "short int";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "long int";
    case ScalarType::Half: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float: return "float";
    case ScalarType::Double: return "double";
    case ScalarType::UInt16: return "unsigned short";
    case ScalarType::UInt32: return "unsigned int";
    case ScalarType::UInt64: return "unsigned long";
    case ScalarType::ComplexFloat: return "c10::complex<float>";
    case ScalarType::ComplexDouble: return "c10::complex<double>";
    default: return scalar_type_name(t);
  }
}

void throw_dtype_not_implemented(const char* op, ScalarType dtype) {
  throw_error(ErrorKind::NotImplemented, str("\"", op, "\" not implemented for '", scalar_type_name(dtype), "'"));
}

}  // namespace torchlite
