// Output shapes and checks of the fused scaled-dot-product attention (kernels/gpu/attention.inc).
#include "dispatch/ExactMeta.h"
#include "kernels/Attention.h"
#include "kernels/_scaled_dot_product_fused_attention.h"
#include "kernels/_scaled_dot_product_fused_attention_backward.h"

namespace torchlite {

std::array<TensorMeta, 2> meta::sdpa_fused_meta(const Tensor& query, const Tensor& key, const Tensor& value,
                                                const std::optional<Tensor>& attn_mask, bool is_causal,
                                                double scale) {
  const attention::Dims d = attention::check("_scaled_dot_product_fused_attention", query, key, value, attn_mask);
  return {exact_meta({d.B, d.L, d.Ev}, query),
          exact_meta({d.B, d.L}, query, attention::lse_dtype(query.scalar_type()))};
}

std::array<TensorMeta, 3> meta::sdpa_fused_backward_meta(const Tensor& grad_output, const Tensor& query,
                                                         const Tensor& key, const Tensor& value,
                                                         const std::optional<Tensor>& attn_mask, const Tensor& output,
                                                         const Tensor& logsumexp, bool is_causal, double scale,
                                                         ArrayRef<bool> output_mask) {
  const char* op = "_scaled_dot_product_fused_attention_backward";
  const attention::Dims d = attention::check(op, query, key, value, attn_mask);
  attention::check_sized(op, "grad_output", grad_output, query, {d.B, d.L, d.Ev});
  attention::check_sized(op, "output", output, query, {d.B, d.L, d.Ev});
  attention::check_sized(op, "logsumexp", logsumexp, query, {d.B, d.L});
  const auto sized = [&](bool wanted, std::initializer_list<int64_t> s) {
    return exact_meta(wanted ? DimVector(IntArrayRef(s)) : DimVector{0}, query);
  };
  return {sized(output_mask[0], {d.B, d.L, d.E}), sized(output_mask[1], {d.B, d.S, d.E}),
          sized(output_mask[2], {d.B, d.S, d.Ev})};
}

}  // namespace torchlite
