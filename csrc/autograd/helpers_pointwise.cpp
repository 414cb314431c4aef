// Formula helpers of pointwise ops whose gradient is cut off outside a range,
// written with torchlite ops. Where a gradient is replaced, a denominator that
// would be 0 there is replaced too, so that double backward stays finite.
#include <cmath>

#include "autograd/FormulaHelpers.h"
#include "autograd/helpers_common.h"
#include "ops/add_Tensor.h"
#include "ops/conj.h"
#include "ops/div_Tensor.h"
#include "ops/eq_Tensor.h"
#include "ops/ge_Tensor.h"
#include "ops/gt_Tensor.h"
#include "ops/le_Tensor.h"
#include "ops/log.h"
#include "ops/logical_and.h"
#include "ops/logical_or.h"
#include "ops/lt_Tensor.h"
#include "ops/masked_fill_Scalar.h"
#include "ops/mul_Tensor.h"
#include "ops/pow_Tensor_Scalar.h"
#include "ops/pow_Tensor_Tensor.h"
#include "ops/sub_Tensor.h"
#include "ops/where_self.h"
#include "ops/xlogy_Scalar_Other.h"
#include "ops/xlogy_Tensor.h"
#include "ops/zeros_like.h"

namespace torchlite::autograd {

using helper_detail::number;

Scalar scalar_conj(const Scalar& s) {
  if (!s.is_complex()) return s;
  const Complex<double> z = s.to_complex();
  return Scalar(Complex<double>(z.re, -z.im));
}

Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps) {
  // PyTorch: a negative eps is no eps.
  bool clamped = eps.has_value() && *eps >= 0;
  double lo = clamped ? *eps : 0.0, hi = clamped ? 1.0 - *eps : 1.0;
  Tensor outside = logical_or(lt(self, number(lo)), gt(self, number(hi)));
  Tensor denom = where(outside, number(1.0), mul(self, sub(number(1.0), self)));
  return where(outside, number(clamped ? 0.0 : NAN), div(grad, denom));
}

Tensor threshold_backward(const Tensor& grad, const Tensor& self, const Scalar& threshold) {
  return where(le(self, number(threshold)), number(Scalar(0.0)), grad);  // one pass (masked_fill copies first)
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  if (!min.has_value() && !max.has_value()) return grad;
  Tensor inside;
  if (min.has_value()) inside = ge(self, number(*min));
  if (max.has_value()) {
    Tensor below = le(self, number(*max));
    inside = inside.defined() ? logical_and(inside, below) : below;
  }
  return where(inside, grad, number(0.0));
}

// pow's gradient for its base: exponent * self^(exponent - 1) (conjugated for complex numbers), and 0 where
// the exponent is 0 (self^0 is the constant 1, flat even at self = 0, where self^-1 is infinite), as PyTorch.
Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent) {
  const Complex<double> e = exponent.to_complex();
  if (e == Complex<double>(0)) return zeros_like(grad);
  const Scalar less = exponent.is_complex()           ? Scalar(Complex<double>(e.re - 1.0, e.im))
                      : exponent.is_integral(false) ? Scalar(exponent.to_long() - 1)
                                                    : Scalar(e.re - 1.0);
  return mul(grad, torchlite::conj(mul(number(exponent), pow(self, less))));
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  const Tensor flat = eq(exponent, number(0));
  const Tensor e = where(flat, number(1.0), exponent);  // there self^-1 would be infinite
  return where(flat, number(0.0), mul(grad, mul(e, pow(self, sub(e, number(1))))));
}

// pow's gradient for its exponent: self^exponent * log(self), and 0 where self is 0 and the exponent is not
// negative (0^e is 0 or 1 there, flat in e from the side where it is defined), as PyTorch.
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  const Tensor flat = logical_and(eq(self, number(0)), ge(exponent, number(0)));
  const Tensor base = where(flat, number(1.0), self);  // there log(self) would be -inf
  return where(flat, number(0.0), mul(grad, mul(result, log(base))));
}

Tensor pow_backward_exponent(const Tensor& grad, const Scalar& self, const Tensor& exponent, const Tensor& result) {
  if (self.to<double>() == 0.0) {  // log(0) = -inf where the exponent is negative, 0 where it is not
    return mul(grad, mul(result, where(ge(exponent, number(0)), number(0.0), number(-INFINITY))));
  }
  return mul(grad, mul(result, number(std::log(self.to<double>()))));
}

// atan2's gradients share 1 / (self^2 + other^2); at self = other = 0, where it is infinite, both are 0 (PyTorch).
Tensor atan2_recip(const Tensor& self, const Tensor& other) {
  const Tensor denom = add(mul(self, self), mul(other, other));
  const Tensor zero = eq(denom, number(0));
  return where(zero, number(0.0), div(number(1.0), where(zero, number(1.0), denom)));
}

// maximum(a, b)'s (and max(a, b)'s) gradient for a: grad where a wins, 0 where it loses, grad / 2 at ties; where
// either is NaN neither loses, so both get grad (PyTorch's rule). minimum: the same with the order reversed.
Tensor maximum_backward(const Tensor& grad, const Tensor& a, const Tensor& b) {
  return where(lt(a, b), number(0.0), where(eq(a, b), mul(grad, number(0.5)), grad));
}

Tensor minimum_backward(const Tensor& grad, const Tensor& a, const Tensor& b) {
  return where(gt(a, b), number(0.0), where(eq(a, b), mul(grad, number(0.5)), grad));
}

Tensor xlogy_backward_self(const Tensor& grad, const Tensor& self, const Tensor& other) {
  return where(logical_and(eq(self, number(0)), le(other, number(0))), number(0.0), xlogy(grad, other));
}

Tensor xlogy_backward_self(const Tensor& grad, const Tensor& self, const Scalar& other) {
  if (other.to<double>() > 0 || std::isnan(other.to<double>())) return xlogy(grad, other);
  return where(eq(self, number(0)), number(0.0), xlogy(grad, other));
}

}  // namespace torchlite::autograd
