// The losses computed elementwise and then reduced (mse, l1, smooth_l1, huber, binary cross entropy with and
// without logits, kl_div, soft margin, hinge embedding, margin ranking, cosine embedding, Poisson NLL,
// multi margin, triplet margin) and the distances they use (pairwise_distance, cosine_similarity), written
// with other ops, as PyTorch computes them.
#include <cmath>

#include "composite/Numbers.h"
#include "core/TensorFactory.h"
#include "kernels/binary_cross_entropy.h"
#include "kernels/binary_cross_entropy_with_logits.h"
#include "kernels/cdist.h"
#include "kernels/cosine_embedding_loss.h"
#include "kernels/cosine_similarity.h"
#include "kernels/hinge_embedding_loss.h"
#include "kernels/huber_loss.h"
#include "kernels/kl_div.h"
#include "kernels/l1_loss.h"
#include "kernels/margin_ranking_loss.h"
#include "kernels/mse_loss.h"
#include "kernels/multi_margin_loss.h"
#include "kernels/pairwise_distance.h"
#include "kernels/pdist.h"
#include "kernels/poisson_nll_loss.h"
#include "kernels/smooth_l1_loss.h"
#include "kernels/soft_margin_loss.h"
#include "kernels/triplet_margin_loss.h"
#include "ops/_binary_cross_entropy_elementwise.h"
#include "ops/abs.h"
#include "ops/add_Tensor.h"
#include "ops/all.h"
#include "ops/broadcast_tensors.h"
#include "ops/clamp_min.h"
#include "ops/div_Tensor.h"
#include "ops/eq_Tensor.h"
#include "ops/exp.h"
#include "ops/gather.h"
#include "ops/ge_Tensor.h"
#include "ops/index_select.h"
#include "ops/le_Tensor.h"
#include "ops/linalg_vector_norm.h"
#include "ops/log.h"
#include "ops/log_sigmoid.h"
#include "ops/log1p.h"
#include "ops/logical_and.h"
#include "ops/lt_Tensor.h"
#include "ops/masked_fill_Scalar.h"
#include "ops/masked_select.h"
#include "ops/minimum.h"
#include "ops/mul_Tensor.h"
#include "ops/ne_Tensor.h"
#include "ops/neg.h"
#include "ops/norm.h"
#include "ops/ones.h"
#include "ops/reshape.h"
#include "ops/scatter_value.h"
#include "ops/sqrt.h"
#include "ops/sub_Tensor.h"
#include "ops/sum_dim_IntList.h"
#include "ops/triu.h"
#include "ops/unsqueeze.h"
#include "ops/where_self.h"
#include "ops/zeros_like.h"

namespace torchlite {

namespace {

using loss::check_reduction;
using loss::reduce;

// The losses PyTorch's kernels do not take complex numbers for: "<op>" not implemented for 'ComplexFloat'.
void refuse_complex(const char* op, const Tensor& self, const Tensor& target) {
  if (is_complex_type(self.scalar_type()) || is_complex_type(target.scalar_type())) {
    throw_dtype_not_implemented(op, promote_types(self.scalar_type(), target.scalar_type()));
  }
}

// where(cond, a, b) with b a number.
Tensor where_else(const Tensor& cond, const Tensor& a, double b) { return torchlite::where(cond, a, number(b)); }

}  // namespace

Tensor composite::mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction("mse_loss", reduction);
  refuse_complex("mse_loss", self, target);  // as PyTorch's CPU kernel
  const Tensor d = sub(self, target);
  return reduce(mul(d, d), reduction);
}

Tensor composite::l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction("l1_loss", reduction);
  return reduce(abs(sub(self, target)), reduction);
}

Tensor composite::smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  check_reduction("smooth_l1_loss", reduction);
  refuse_complex("smooth_l1_loss", self, target);  // as PyTorch's CPU kernel
  TL_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0) return l1_loss(self, target, reduction);
  const Tensor z = abs(sub(self, target));
  const Tensor quadratic = mul(mul(z, z), number(0.5 / beta)), linear = sub(z, number(0.5 * beta));
  return reduce(torchlite::where(lt(z, number(beta)), quadratic, linear), reduction);
}

Tensor composite::huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  check_reduction("huber_loss", reduction);
  refuse_complex("huber_loss", self, target);
  TL_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  const Tensor z = abs(sub(self, target));
  const Tensor quadratic = mul(mul(z, z), number(0.5)), linear = mul(sub(z, number(0.5 * delta)), number(delta));
  return reduce(torchlite::where(lt(z, number(delta)), quadratic, linear), reduction);
}

Tensor composite::binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                       int64_t reduction) {
  check_reduction("binary_cross_entropy", reduction);
  if (self.numel() > 0) {
    const Tensor inside = logical_and(ge(self, number(0.0)), le(self, number(1.0)));
    TL_CHECK(item(all(inside)).to<bool>(), "all elements of input should be between 0 and 1");
  }
  Tensor l = _binary_cross_entropy_elementwise(self, target);
  if (weight && weight->defined()) l = mul(l, *weight);
  return reduce(l, reduction);
}

Tensor composite::binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                                   const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& pos_weight, int64_t reduction) {
  check_reduction("binary_cross_entropy_with_logits", reduction);
  // (1 - target) x - log_weight * log(sigmoid(x)), log_weight = 1 + (pos_weight - 1) target.
  Tensor log_weight;
  if (pos_weight && pos_weight->defined()) log_weight = add(mul(sub(*pos_weight, number(int64_t(1))), target), number(1.0));
  const Tensor ls = log_sigmoid(self);
  Tensor l = sub(mul(sub(number(1.0), target), self), log_weight.defined() ? mul(log_weight, ls) : ls);
  if (weight && weight->defined()) l = mul(l, *weight);
  return reduce(l, reduction);
}

Tensor composite::kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  check_reduction("kl_div", reduction);
  TL_CHECK(!is_complex_type(self.scalar_type()) && !is_complex_type(target.scalar_type()),
           "kl_div: Complex inputs not supported.");
  Tensor l;
  if (log_target) {
    l = mul(exp(target), sub(target, self));
  } else {  // target log(target) is 0 at target 0 (PyTorch's xlogy); a negative target gives NaN
    const Tensor safe = torchlite::where(eq(target, number(0.0)), number(1.0), target);
    l = sub(mul(target, log(safe)), mul(target, self));
  }
  return reduce(l, reduction);
}

Tensor composite::soft_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction("soft_margin_loss", reduction);
  return reduce(log1p(exp(neg(mul(target, self)))), reduction);
}

Tensor composite::hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin, int64_t reduction) {
  check_reduction("hinge_embedding_loss", reduction);
  const Tensor margin_part = where_else(ne(target, number(int64_t(1))), clamp_min(sub(number(margin), self), 0.0), 0.0);
  const Tensor self_part = where_else(ne(target, number(int64_t(-1))), self, 0.0);
  return reduce(add(margin_part, self_part), reduction);
}

Tensor composite::margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                      double margin, int64_t reduction) {
  check_reduction("margin_ranking_loss", reduction);
  return reduce(clamp_min(add(neg(mul(target, sub(input1, input2))), number(margin)), 0.0), reduction);
}

Tensor composite::cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                        double margin, int64_t reduction) {
  check_reduction("cosine_embedding_loss", reduction);
  TL_CHECK(input1.dim() == input2.dim(), "cosine_embedding_loss: expected input1 and input2 to have the same "
           "number of dimensions, got ", input1.dim(), " and ", input2.dim());
  TL_CHECK(input1.dim() >= 1 && input1.dim() == target.dim() + 1, "cosine_embedding_loss: expected a target of ",
           input1.dim() - 1, " dims for inputs of ", input1.dim(), ", got ", target.dim());
  constexpr double kEps = 1e-12;
  const int64_t dim[] = {input1.dim() - 1};
  const IntArrayRef d(dim, 1);
  const Tensor prod = sum(mul(input1, input2), d);
  const Tensor mag1 = add(sum(mul(input1, input1), d), number(kEps));
  const Tensor mag2 = add(sum(mul(input2, input2), d), number(kEps));
  const Tensor cos = div(prod, sqrt(mul(mag1, mag2)));
  const Tensor pos = where_else(eq(target, number(int64_t(1))), sub(number(1.0), cos), 0.0);
  const Tensor negative = where_else(eq(target, number(int64_t(-1))), clamp_min(sub(cos, number(margin)), 0.0), 0.0);
  return reduce(add(pos, negative), reduction);
}

Tensor composite::poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                                   int64_t reduction) {
  check_reduction("poisson_nll_loss", reduction);
  Tensor l = log_input ? sub(exp(input), mul(target, input)) : sub(input, mul(target, log(add(input, number(eps)))));
  if (full) {  // Stirling's approximation of log(target!), where target > 1
    const Tensor stirling = add(sub(mul(target, log(target)), target),
                                mul(log(mul(target, number(2 * M_PI))), number(0.5)));
    l = add(l, masked_fill(stirling, le(target, number(1.0)), Scalar(0.0)));
  }
  return reduce(l, reduction);
}

Tensor composite::multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p, const Scalar& margin,
                                    const std::optional<Tensor>& weight, int64_t reduction) {
  check_reduction("multi_margin_loss", reduction);
  const int64_t pv = p.to<int64_t>();
  TL_CHECK(pv == 1 || pv == 2, "only p == 1 and p == 2 supported");
  TL_CHECK((self.dim() == 2 && target.dim() == 1 && target.size(0) == self.size(0)) ||
               (self.dim() <= 1 && target.numel() == 1),
           "inconsistent target size, expected ", self.dim() == 2 ? self.size(0) : 1, " but got ",
           to_string(target.sizes()));
  const int64_t C = self.dim() == 0 ? 1 : self.size(-1);
  const DimVector rows{self.dim() == 2 ? self.size(0) : 1, C}, one{rows[0], 1};
  const Tensor x = torchlite::reshape(self, rows.ref());
  const Tensor y = torchlite::reshape(target, one.ref());
  if (y.numel() > 0) {
    const Tensor ok = logical_and(ge(y, number(int64_t(0))), lt(y, number(C)));
    TL_CHECK(item(all(ok)).to<bool>(), "multi_margin_loss: target out of range, expected values in [0, ", C, ")");
  }
  // max(0, margin - x[y] + x[i]) for i != y (x[y]'s own term is set to 0), weighted by weight[y].
  Tensor z = clamp_min(add(sub(number(margin.to<double>()), gather(x, 1, y)), x), 0.0);
  if (pv == 2) z = mul(z, z);
  if (weight && weight->defined()) z = mul(z, unsqueeze(index_select(*weight, 0, torchlite::reshape(y, {-1})), 1));
  z = scatter(z, 1, y, Scalar(0.0));
  const int64_t classes_dim[] = {1};
  Tensor per_row = div(sum(z, IntArrayRef(classes_dim, 1)), number(static_cast<double>(C)));
  if (self.dim() <= 1) per_row = torchlite::reshape(per_row, target.sizes());  // (a 1-D input: target's shape)
  return reduce(per_row, reduction);
}

Tensor composite::pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const int64_t last = std::max(x1.dim(), x2.dim()) - 1;
  // linalg_vector_norm: a complex difference's norm is its moduli's
  if (last < 0) return linalg_vector_norm(add(sub(x1, x2), number(eps)), Scalar(p), std::nullopt, keepdim);
  const int64_t dim[] = {last};
  return linalg_vector_norm(add(sub(x1, x2), number(eps)), Scalar(p), IntArrayRef(dim, 1), keepdim);
}

Tensor composite::cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  const int64_t nd = std::max(x1.dim(), x2.dim());
  const int64_t d = dim < 0 ? dim + nd : dim;
  TL_CHECK_INDEX(d >= 0 && d < std::max<int64_t>(nd, 1), "Dimension out of range (expected to be in range of [",
                 -std::max<int64_t>(nd, 1), ", ", std::max<int64_t>(nd, 1) - 1, "], but got ", dim, ")");
  const int64_t dims[] = {d};
  const IntArrayRef r(dims, 1);
  // Broadcast, each normalized by max(its norm, eps), then their products summed along dim.
  const Tensor both[] = {x1, x2};
  const std::vector<Tensor> b = broadcast_tensors(ArrayRef<Tensor>(both, 2));
  const Tensor n1 = clamp_min(norm(b[0], Scalar(2.0), r, true), eps);
  const Tensor n2 = clamp_min(norm(b[1], Scalar(2.0), r, true), eps);
  return sum(mul(div(b[0], n1), div(b[1], n2)), r);
}

Tensor composite::triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                      double margin, double p, double eps, bool swap, int64_t reduction) {
  check_reduction("triplet_margin_loss", reduction);
  TL_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(), "The anchor, positive, and negative "
           "tensors are expected to have the same number of dimensions, but got: anchor ", anchor.dim(),
           "D, positive ", positive.dim(), "D, and negative ", negative.dim(), "D inputs");
  const Tensor d_pos = pairwise_distance(anchor, positive, p, eps, false);
  Tensor d_neg = pairwise_distance(anchor, negative, p, eps, false);
  if (swap) d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps, false));
  return reduce(clamp_min(sub(add(d_pos, number(margin)), d_neg), 0.0), reduction);
}

Tensor composite::cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  (void)compute_mode;  // (always the direct differences: exact, and differentiable at zero distance)
  TL_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  TL_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  TL_CHECK(is_floating_type(x1.scalar_type()), "cdist only supports floating-point dtypes, X1 got: ",
           scalar_type_name(x1.scalar_type()));
  TL_CHECK(is_floating_type(x2.scalar_type()), "cdist only supports floating-point dtypes, X2 got: ",
           scalar_type_name(x2.scalar_type()));
  TL_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
           " X2: ", x2.size(-1));
  TL_CHECK(p >= 0, "cdist only supports non-negative p values");
  const int64_t last[] = {-1};
  return norm(sub(unsqueeze(x1, -2), unsqueeze(x2, -3)), Scalar(p), IntArrayRef(last, 1), false);
}

Tensor composite::pdist(const Tensor& self, double p) {
  TL_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  TL_CHECK(is_floating_type(self.scalar_type()), "pdist only supports floating-point dtypes");
  TL_CHECK(p >= 0, "pdist only supports non-negative p values");
  const DimVector nn{self.size(0), self.size(0)};
  const Tensor upper = triu(ones(nn.ref(), ScalarType::Bool, self.device()), 1);  // the pairs i < j
  return masked_select(cdist(self, self, p, std::nullopt), upper);
}

}  // namespace torchlite
