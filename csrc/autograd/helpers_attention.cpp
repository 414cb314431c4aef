// The fused scaled-dot-product attention's tangent (_scaled_dot_product_fused_attention, kernels/gpu/attention.inc),
// written with ops. With S = scale q k^T + mask (causal: -inf above the diagonal) and P = exp(S - logsumexp)
// (0 in a row masked throughout, whose logsumexp is -inf), output = P v, so
//   dS = scale (q_t k^T + q k_t^T),  dP = P (dS - sum(P dS)) along the keys,  output_t = dP v + P v_t.
#include "autograd/FormulaHelpers.h"
#include "autograd/helpers_common.h"
#include "ops/add_Tensor.h"
#include "ops/exp.h"
#include "ops/isneginf.h"
#include "ops/logical_not.h"
#include "ops/masked_fill_Scalar.h"
#include "ops/matmul.h"
#include "ops/mul_Tensor.h"
#include "ops/ones.h"
#include "ops/sub_Tensor.h"
#include "ops/sum_dim_IntList.h"
#include "ops/transpose_int.h"
#include "ops/tril.h"
#include "ops/unsqueeze.h"

#include <cmath>

namespace torchlite::autograd {

Tensor sdpa_fused_jvp(const Tensor& query_t, const Tensor& key_t, const Tensor& value_t, const Tensor& query,
                      const Tensor& key, const Tensor& value, const std::optional<Tensor>& attn_mask,
                      const Tensor& logsumexp, bool is_causal, double scale) {
  using helper_detail::number;
  const Tensor kt = transpose(key, 1, 2);
  Tensor scores = mul(matmul(query, kt), number(Scalar(scale)));
  if (attn_mask && attn_mask->defined()) scores = add(scores, *attn_mask);
  if (is_causal) {
    const DimVector ls{query.size(1), key.size(1)};
    scores = masked_fill(scores, logical_not(tril(ones(ls.ref(), ScalarType::Bool, query.device()), 0)),
                         Scalar(-INFINITY));
  }
  const Tensor lse = unsqueeze(logsumexp, 2);
  const Tensor dead = isneginf(lse);  // rows masked throughout: weights 0
  const Tensor p = masked_fill(exp(sub(scores, masked_fill(lse, dead, Scalar(0.0)))), dead, Scalar(0.0));
  const Tensor ds = mul(add(matmul(query_t, kt), matmul(query, transpose(key_t, 1, 2))), number(Scalar(scale)));
  const DimVector last{2};
  const Tensor pds = mul(p, ds);
  const Tensor dp = sub(pds, mul(p, sum(pds, last.ref(), true)));
  return add(matmul(dp, value), matmul(p, value_t));
}

}  // namespace torchlite::autograd
