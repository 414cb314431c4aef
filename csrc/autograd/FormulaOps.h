#pragma once
// The arithmetic derivative formulas are written in: `grad * other`,
// `1 - result`, `self >= min`, `exponent - 1`. Operators on Tensors call the
// torchlite ops (so formulas stay differentiable); a number or Scalar operand
// becomes a wrapped-number tensor, which promotes as a Python number does
// (`float32 * 2.0` stays float32). Scalars combine with numbers exactly as
// Python's numbers do. Generated backward code uses this namespace.
#include <cmath>

#include "core/Scalar.h"
#include "core/Tensor.h"
#include "core/TensorFactory.h"
#include "ops/div.h"
#include "ops/eq.h"
#include "ops/ge.h"
#include "ops/gt.h"
#include "ops/le.h"
#include "ops/lt.h"
#include "ops/mul.h"
#include "ops/ne.h"
#include "ops/neg.h"
#include "ops/sub.h"
#include "ops/add.h"
#include "ops/logical_and.h"
#include "ops/logical_or.h"
#include "ops/logical_not.h"
#include "ops/where.h"

namespace torchlite::autograd::formula {

inline Tensor wrap(const Scalar& s) { return scalar_to_tensor(s, /*wrapped=*/true); }

#define TL_FORMULA_BINARY(op, fn)                                                                  \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return fn(a, b); }                 \
  inline Tensor operator op(const Tensor& a, const Scalar& b) { return fn(a, wrap(b)); }           \
  inline Tensor operator op(const Scalar& a, const Tensor& b) { return fn(wrap(a), b); }
TL_FORMULA_BINARY(+, add)
TL_FORMULA_BINARY(-, sub)
TL_FORMULA_BINARY(*, mul)
TL_FORMULA_BINARY(/, div)
TL_FORMULA_BINARY(==, eq)
TL_FORMULA_BINARY(!=, ne)
TL_FORMULA_BINARY(<, lt)
TL_FORMULA_BINARY(<=, le)
TL_FORMULA_BINARY(>, gt)
TL_FORMULA_BINARY(>=, ge)
TL_FORMULA_BINARY(&&, logical_and)
TL_FORMULA_BINARY(||, logical_or)
#undef TL_FORMULA_BINARY

inline Tensor operator-(const Tensor& a) { return neg(a); }
inline Tensor operator!(const Tensor& a) { return logical_not(a); }

// Scalar arithmetic (`exponent - 1`): ints stay exact, anything with a float is a float.
inline Scalar scalar_binary(const Scalar& a, const Scalar& b, char op) {
  if (a.is_integral(true) && b.is_integral(true) && op != '/') {
    const int64_t x = a.to_long(), y = b.to_long();
    return op == '+' ? x + y : op == '-' ? x - y : x * y;
  }
  const double x = a.to_double(), y = b.to_double();
  return op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
}
inline Scalar operator+(const Scalar& a, const Scalar& b) { return scalar_binary(a, b, '+'); }
inline Scalar operator-(const Scalar& a, const Scalar& b) { return scalar_binary(a, b, '-'); }
inline Scalar operator*(const Scalar& a, const Scalar& b) { return scalar_binary(a, b, '*'); }
inline Scalar operator/(const Scalar& a, const Scalar& b) { return scalar_binary(a, b, '/'); }
inline Scalar operator-(const Scalar& a) { return scalar_binary(int64_t(0), a, '-'); }

// log of a Scalar operand (pow(Scalar self, Tensor exponent)'s formula).
inline Scalar log(const Scalar& s) { return std::log(s.to_double()); }

// where() with a number for either branch: `where(mask, grad, 0)`.
inline Tensor where(const Tensor& c, const Tensor& a, const Scalar& b) { return torchlite::where(c, a, wrap(b)); }
inline Tensor where(const Tensor& c, const Scalar& a, const Tensor& b) { return torchlite::where(c, wrap(a), b); }

}  // namespace torchlite::autograd::formula
