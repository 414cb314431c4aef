// Formula helpers of the reductions and scans, written with torchlite ops.
// Where a gradient is replaced (0 where a norm is 0...), a denominator that would
// be 0 there is replaced too, so that double backward stays finite.
#include <cmath>

#include "autograd/FormulaHelpers.h"
#include "autograd/helpers_common.h"
#include "ops/abs.h"
#include "ops/add_Tensor.h"
#include "ops/cat.h"
#include "ops/cumprod.h"
#include "ops/conj.h"
#include "ops/cumsum.h"
#include "ops/arange_start_step.h"
#include "ops/div_Tensor.h"
#include "ops/eq_Tensor.h"
#include "ops/index_select.h"
#include "ops/isnan.h"
#include "ops/logical_and.h"
#include "ops/logical_not.h"
#include "ops/logical_or.h"
#include "ops/masked_fill_Scalar.h"
#include "ops/mean_dim.h"
#include "ops/mul_Tensor.h"
#include "ops/narrow.h"
#include "ops/new_ones.h"
#include "ops/new_zeros.h"
#include "ops/pow_Tensor_Scalar.h"
#include "ops/real.h"
#include "ops/reshape.h"
#include "ops/scatter_add.h"
#include "ops/scatter_src.h"
#include "ops/sgn.h"
#include "ops/sign.h"
#include "ops/sub_Tensor.h"
#include "ops/sum.h"
#include "ops/sum_dim_IntList.h"
#include "ops/unsqueeze.h"
#include "ops/where_self.h"
#include "ops/zeros_like.h"

namespace torchlite::autograd {

using helper_detail::number;
using helper_detail::unsqueeze_reduced;

namespace {

Tensor sum_all(const Tensor& x) { return sum(x, std::optional<ScalarType>()); }

// x in reverse order along dim. (An index_select rather than flip, whose composite
// does not record for autograd.)
Tensor reversed(const Tensor& x, int64_t dim) {
  int64_t n = x.size(dim);
  Tensor backwards = arange(Scalar(n - 1), Scalar(int64_t(-1)), Scalar(int64_t(-1)), ScalarType::Int64, x.device());
  return index_select(x, dim, backwards);
}

// x with 1 where `where` is true: a denominator that is safe where its quotient is
// replaced anyway.
Tensor one_where(const Tensor& where, const Tensor& x) { return masked_fill(x, where, Scalar(int64_t(1))); }

// The product of the elements before each element along dim (1 for the first).
Tensor exclusive_cumprod(const Tensor& x, int64_t dim) {
  int64_t n = x.size(dim);
  DimVector one(x.sizes());
  one[dim] = 1;
  return cat({new_ones(x, one), narrow(cumprod(x, dim), dim, 0, n - 1)}, dim);
}

// The product of the other elements along dim, for each element: the product of
// those before it times the product of those after it (exact with zeros).
Tensor product_of_others(const Tensor& x, int64_t dim) {
  if (x.size(dim) == 0) return x;
  Tensor after = reversed(exclusive_cumprod(reversed(x, dim), dim), dim);
  return mul(exclusive_cumprod(x, dim), after);
}

}  // namespace

// ------------------------------------------------------------------ prod

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  if (self.dim() == 0) return grad;
  Tensor others = reshape(product_of_others(reshape(self, {-1}), 0), self.sizes());
  return mul(grad, others);
}

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim) {
  if (self.dim() == 0) return grad;
  int64_t d = self.wrap_dim(dim);
  return mul(keepdim ? grad : unsqueeze(grad, d), product_of_others(self, d));
}

// ------------------------------------------------------------------ amax, amin, max, min, median

Tensor restore_reduced_dims(const Tensor& x, std::optional<IntArrayRef> dim, bool keepdim) {
  if (keepdim || !dim.has_value() || dim->empty()) return x;
  return unsqueeze_reduced(x, x.dim() + static_cast<int64_t>(dim->size()), dim, /*keepdim=*/false);
}

Tensor scale_grad_by_count(const Tensor& grad, const Tensor& mask, std::optional<IntArrayRef> dim) {
  Tensor count = sum(mask, dim, /*keepdim=*/true, std::nullopt);
  return mul(div(grad, count), mask);
}

Tensor aminmax_backward(const Tensor& grad_min, const Tensor& grad_max, const Tensor& self, const Tensor& min,
                        const Tensor& max, std::optional<int64_t> dim, bool keepdim) {
  int64_t d = dim.value_or(0);
  std::optional<IntArrayRef> dims;
  if (dim.has_value()) dims = IntArrayRef(d);
  Tensor total;
  for (auto [grad, value] : {std::pair(grad_min, min), std::pair(grad_max, max)}) {
    if (!grad.defined()) continue;
    Tensor ties = eq(unsqueeze_reduced(value, self.dim(), dims, keepdim), self);
    Tensor part = scale_grad_by_count(unsqueeze_reduced(grad, self.dim(), dims, keepdim), ties, dims);
    total = total.defined() ? add(total, part) : part;
  }
  return total;
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  // The elements equal to result; when result is NaN, the NaN ones.
  Tensor chosen = logical_or(eq(self, result), logical_and(isnan(self), isnan(result)));
  return mul(chosen, div(grad, sum_all(chosen)));
}

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim) {
  // A 0-dim input: the one value was selected.
  if (sizes.empty()) return reshape(grad, sizes);
  int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  Tensor g = keepdim ? grad : unsqueeze(grad, d);
  Tensor at = keepdim ? indices : unsqueeze(indices, d);
  return scatter(new_zeros(grad, sizes), d, at, g);
}

// ------------------------------------------------------------------ var, std, norm

namespace {

// d var / d self = var_factor * (self - mean): 2 / (N - correction), correction absent 1.
double var_factor(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction) {
  double n = static_cast<double>(helper_detail::reduced_numel(self.sizes(), dim));
  double dof = n - (correction.has_value() ? correction->to_double() : 1.0);
  // 2 / 0 is inf, as PyTorch: var itself is NaN or inf when dof <= 0.
  return dof == 0 ? INFINITY : 2.0 / dof;
}

Tensor centered(const Tensor& self, std::optional<IntArrayRef> dim) {
  return sub(self, mean(self, dim, /*keepdim=*/true, std::nullopt));
}

}  // namespace

Tensor var_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  double scale = var_factor(self, dim, correction);
  return mul(mul(unsqueeze_reduced(grad, self.dim(), dim, keepdim), number(scale)), centered(self, dim));
}

Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  // d std = d var / (2 std); 0 where std is 0 (a constant input), as PyTorch.
  Tensor zero = eq(result, number(0.0));
  Tensor grad_var = masked_fill(div(grad, mul(one_where(zero, result), number(2.0))), zero, Scalar(0.0));
  return var_backward(grad_var, self, dim, correction, keepdim);
}

namespace {

// var's (or std's) gradient plus mean's; either grad may be undefined.
Tensor plus_mean_backward(Tensor spread_part, const Tensor& grad_mean, const Tensor& self,
                          std::optional<IntArrayRef> dim, bool keepdim) {
  if (!grad_mean.defined()) return spread_part;
  double n = static_cast<double>(helper_detail::reduced_numel(self.sizes(), dim));
  Tensor mean_part = div(sum_backward(grad_mean, self.sizes(), dim, keepdim), number(n));
  return spread_part.defined() ? add(spread_part, mean_part) : mean_part;
}

}  // namespace

Tensor var_mean_backward(const Tensor& grad_var, const Tensor& grad_mean, const Tensor& self,
                         std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim) {
  Tensor var_part = grad_var.defined() ? var_backward(grad_var, self, dim, correction, keepdim) : Tensor();
  return plus_mean_backward(var_part, grad_mean, self, dim, keepdim);
}

Tensor std_mean_backward(const Tensor& grad_std, const Tensor& grad_mean, const Tensor& self, const Tensor& std_result,
                         std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim) {
  Tensor std_part =
      grad_std.defined() ? std_backward(std_result, grad_std, self, dim, correction, keepdim) : Tensor();
  return plus_mean_backward(std_part, grad_mean, self, dim, keepdim);
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& norm,
                     std::optional<IntArrayRef> dim, bool keepdim) {
  double order = p.has_value() ? p->to_double() : 2.0;
  if (order == 0) return new_zeros(grad, self.sizes());  // the count of nonzeros is piecewise constant
  Tensor g = unsqueeze_reduced(grad, self.dim(), dim, keepdim);
  Tensor n = unsqueeze_reduced(norm, self.dim(), dim, keepdim);
  if (std::isinf(order)) {
    // The elements whose |x| is the norm (NaN ones when the norm is NaN) share grad.
    Tensor extreme = logical_or(eq(abs(self), n), logical_and(isnan(self), isnan(n)));
    Tensor count = sum(extreme, dim, /*keepdim=*/true, std::nullopt);
    return mul(mul(sign(self), extreme), div(g, count));
  }
  if (order == 1) return mul(sgn(self), g);
  Tensor zero_norm = eq(n, number(0.0));
  if (order == 2) return mul(div(self, one_where(zero_norm, n)), g);  // self is 0 wherever the norm is
  // d |x|_p / dx = sgn(x) |x|^(p-1) / norm^(p-1), 0 at x = 0.
  Tensor scaled = mul(sgn(self), pow(one_where(eq(self, number(0.0)), abs(self)), Scalar(order - 1)));
  if (order < 1) return mul(mul(scaled, g), pow(n, Scalar(1 - order)));  // 0 where the norm is 0
  return mul(scaled, div(g, pow(one_where(zero_norm, n), Scalar(order - 1))));
}

// ------------------------------------------------------------------ scans

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  int64_t d = grad.wrap_dim(dim);
  return reversed(cumsum(reversed(grad, d), d), d);
}

namespace {

// cumprod's gradient. Output k is the product of x_0..x_k, so d out_k / d x_i (i <= k)
// is the product of the others; with z the first zero of each slice along dim:
//  - i < z: sum_{k >= i} grad_k out_k / x_i (outputs from z on are 0, as those products);
//  - i = z: sum_{k >= z} grad_k c_k, with c the cumprod of x with x_z taken as 1;
//  - i > z: x_z times the gradient of c at i (0; written so, its derivative in x_z is
//    right, which makes double backward exact; `past_zero` = false stops there).
// Each part is the same polynomial as the true gradient around x, so derivatives of
// this formula are derivatives of the gradient.
Tensor cumprod_grad(const Tensor& grad, const Tensor& self, int64_t d, const Tensor& result, bool past_zero) {
  Tensor is_zero = eq(self, number(0));
  Tensor zeros_so_far = cumsum(is_zero, d);
  Tensor before_zero = eq(zeros_so_far, number(0));
  Tensor first_zero = logical_and(is_zero, eq(zeros_so_far, number(1)));
  Tensor before = div(cumsum_backward(mul(grad, result), d), one_where(logical_not(before_zero), self));
  Tensor self_without_zero = masked_fill(self, first_zero, Scalar(int64_t(1)));
  Tensor without_zero = cumprod(self_without_zero, d);
  Tensor at_zero = cumsum_backward(mul(grad, without_zero), d);
  Tensor g = add(where(before_zero, before, number(0)), where(first_zero, at_zero, number(0)));
  if (!past_zero) return g;
  Tensor after_zero = logical_and(logical_not(before_zero), logical_not(first_zero));
  Tensor x_z = sum(where(first_zero, self, number(0)), IntArrayRef(d), /*keepdim=*/true, std::nullopt);
  Tensor rest = cumprod_grad(grad, self_without_zero, d, without_zero, /*past_zero=*/false);
  return add(g, where(after_zero, mul(x_z, rest), number(0)));
}

}  // namespace

Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result) {
  if (self.dim() == 0) return grad;
  return cumprod_grad(grad, self, self.wrap_dim(dim), result, /*past_zero=*/true);
}

Tensor cummaxmin_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t dim) {
  if (self.dim() == 0) return grad;
  return scatter_add(new_zeros(grad, self.sizes()), dim, indices, grad);
}

// ------------------------------------------------------------------ forward mode (jvp)
// Each tangent is J self_t, J the Jacobian the backward helpers above compute: the
// same treatment of ties, zeros and NaN. A product with a 0/1 mask is a `where`, so
// that a NaN or inf tangent elsewhere does not leak into the sum.

Tensor prod_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result) {
  if (self.dim() == 0) return self_t;
  Tensor others = reshape(product_of_others(reshape(self, {-1}), 0), self.sizes());
  return sum_all(mul(self_t, others));
}

Tensor prod_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim) {
  if (self.dim() == 0) return self_t;
  int64_t d = self.wrap_dim(dim);
  return sum(mul(self_t, product_of_others(self, d)), IntArrayRef(d), keepdim, std::nullopt);
}

Tensor amaxamin_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, std::optional<IntArrayRef> dim,
                    bool keepdim) {
  Tensor ties = eq(unsqueeze_reduced(result, self.dim(), dim, keepdim), self);
  Tensor count = sum(ties, dim, keepdim, std::nullopt);
  return div(sum(where(ties, self_t, number(0)), dim, keepdim, std::nullopt), count);
}

Tensor amaxamin_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, std::optional<int64_t> dim,
                    bool keepdim) {
  if (!dim.has_value()) return amaxamin_jvp(self_t, self, result, std::optional<IntArrayRef>(), keepdim);
  int64_t d = *dim;
  return amaxamin_jvp(self_t, self, result, std::optional<IntArrayRef>(IntArrayRef(d)), keepdim);
}

Tensor evenly_distribute_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result) {
  Tensor chosen = logical_or(eq(self, result), logical_and(isnan(self), isnan(result)));
  // None is chosen only in an empty self (median() is NaN there): the tangent is 0, an empty sum.
  Tensor count = sum_all(chosen);
  return div(sum_all(where(chosen, self_t, number(0))), one_where(eq(count, number(0)), count));
}

Tensor var_jvp(const Tensor& self_t, const Tensor& self, std::optional<IntArrayRef> dim,
               const std::optional<Scalar>& correction, bool keepdim) {
  // The factor applies to each term before the sum, as J self_t: inf * 0 terms are NaN when N == correction.
  // Complex: d|x - mean|^2 = 2 Re(conj(x - mean) dx) (var_factor holds the 2).
  Tensor c = centered(self, dim);
  if (is_complex_type(c.scalar_type())) c = torchlite::conj(c);
  Tensor terms = mul(mul(self_t, number(var_factor(self, dim, correction))), c);
  if (is_complex_type(terms.scalar_type())) terms = real(terms);
  return sum(terms, dim, keepdim, std::nullopt);
}

Tensor std_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, std::optional<IntArrayRef> dim,
               const std::optional<Scalar>& correction, bool keepdim) {
  // d std = d var / (2 std); 0 where std is 0, as std_backward.
  Tensor zero = eq(result, number(0.0));
  Tensor var_t = var_jvp(self_t, self, dim, correction, keepdim);
  return masked_fill(div(var_t, mul(one_where(zero, result), number(2.0))), zero, Scalar(0.0));
}

Tensor norm_jvp(const Tensor& self_t, const Tensor& self, const std::optional<Scalar>& p, const Tensor& result,
                std::optional<IntArrayRef> dim, bool keepdim) {
  auto reduce = [&](const Tensor& x) { return sum(x, dim, keepdim, std::nullopt); };
  double order = p.has_value() ? p->to_double() : 2.0;
  if (order == 0) return zeros_like(result);  // the count of nonzeros is piecewise constant
  if (std::isinf(order)) {
    // The elements whose |x| is the norm (NaN ones when the norm is NaN) share it.
    Tensor n = unsqueeze_reduced(result, self.dim(), dim, keepdim);
    Tensor extreme = logical_or(eq(abs(self), n), logical_and(isnan(self), isnan(n)));
    return div(reduce(where(extreme, mul(sign(self), self_t), number(0))), reduce(extreme));
  }
  if (order == 1) return reduce(mul(sgn(self), self_t));
  Tensor zero_norm = eq(result, number(0.0));
  if (order == 2) return div(reduce(mul(self, self_t)), one_where(zero_norm, result));  // self is 0 where the norm is
  // sgn(x) |x|^(p-1) / norm^(p-1) per element, 0 at x = 0.
  Tensor scaled = mul(sgn(self), pow(one_where(eq(self, number(0.0)), abs(self)), Scalar(order - 1)));
  Tensor dot = reduce(mul(scaled, self_t));
  if (order < 1) return mul(dot, pow(result, Scalar(1 - order)));  // 0 where the norm is 0
  return div(dot, pow(one_where(zero_norm, result), Scalar(order - 1)));
}

Tensor cumprod_jvp(const Tensor& self_t, const Tensor& self, int64_t dim, const Tensor& result) {
  if (self.dim() == 0) return self_t;
  int64_t d = self.wrap_dim(dim);
  // Output k's tangent is sum_{i <= k} t_i times the product of x_0..x_k but x_i. With z
  // the first zero of each slice along dim, the terms that do not vanish are:
  //  - i < z: result_k * t_i / x_i (for k >= z this is 0, as result_k);
  //  - i = z, k >= z: t_z times c_k, c the cumprod of x with x_z taken as 1.
  // (Terms i > z hold the factor x_z = 0. Exact to first order; the tangent is computed
  // below autograd, so nothing differentiates it.)
  Tensor is_zero = eq(self, number(0));
  Tensor zeros_so_far = cumsum(is_zero, d);
  Tensor before_zero = eq(zeros_so_far, number(0));
  Tensor first_zero = logical_and(is_zero, eq(zeros_so_far, number(1)));
  Tensor ratio = where(before_zero, div(self_t, one_where(logical_not(before_zero), self)), number(0));
  Tensor before = mul(result, cumsum(ratio, d));
  Tensor without_zero = cumprod(masked_fill(self, first_zero, Scalar(int64_t(1))), d);
  Tensor t_zero = sum(where(first_zero, self_t, number(0)), IntArrayRef(d), /*keepdim=*/true, std::nullopt);
  return add(before, where(before_zero, number(0), mul(t_zero, without_zero)));
}

}  // namespace torchlite::autograd
