// Formula helpers of pointwise ops whose gradient is cut off outside a range,
// written with torchlite ops. Where a gradient is replaced, a denominator that
// would be 0 there is replaced too, so that double backward stays finite.
#include <cmath>

#include "autograd/FormulaHelpers.h"
#include "autograd/helpers_common.h"
#include "ops/div_Tensor.h"
#include "ops/ge_Tensor.h"
#include "ops/gt_Tensor.h"
#include "ops/le_Tensor.h"
#include "ops/logical_and.h"
#include "ops/logical_or.h"
#include "ops/lt_Tensor.h"
#include "ops/masked_fill_Scalar.h"
#include "ops/mul_Tensor.h"
#include "ops/sub_Tensor.h"
#include "ops/where_self.h"

namespace torchlite::autograd {

using helper_detail::number;

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

}  // namespace torchlite::autograd
