// nn.functional layers written with other ops: gelu (over its two pointwise forms), glu, prelu,
// pixel_shuffle / pixel_unshuffle, one_hot, bilinear and scaled_dot_product_attention.
#include <cmath>
#include <string>

#include "composite/Numbers.h"
#include "core/TensorFactory.h"
#include "kernels/bilinear.h"
#include "kernels/gelu.h"
#include "kernels/glu.h"
#include "kernels/one_hot.h"
#include "kernels/pixel_shuffle.h"
#include "kernels/pixel_unshuffle.h"
#include "kernels/prelu.h"
#include "kernels/scaled_dot_product_attention.h"
#include "dispatch/Meta.h"
#include "ops/_gelu_erf.h"
#include "ops/_scaled_dot_product_fused_attention.h"
#include "ops/_gelu_tanh.h"
#include "ops/add_Tensor.h"
#include "ops/all.h"
#include "ops/dropout.h"
#include "ops/einsum.h"
#include "ops/expand.h"
#include "ops/ge_Tensor.h"
#include "ops/logical_not.h"
#include "ops/lt_Tensor.h"
#include "ops/masked_fill_Scalar.h"
#include "ops/matmul.h"
#include "ops/max.h"
#include "ops/min.h"
#include "ops/mul_Tensor.h"
#include "ops/narrow.h"
#include "ops/ones.h"
#include "ops/permute.h"
#include "ops/repeat_interleave_self_int.h"
#include "ops/reshape.h"
#include "ops/scatter_value.h"
#include "ops/sigmoid.h"
#include "ops/softmax_int.h"
#include "ops/transpose_int.h"
#include "ops/to_dtype.h"
#include "ops/tril.h"
#include "ops/unsqueeze.h"
#include "ops/where_self.h"
#include "ops/zeros.h"
#include "ops/zeros_like.h"

namespace torchlite {

Tensor composite::gelu(const Tensor& self, std::string_view approximate) {
  if (approximate == "none") return _gelu_erf(self);
  if (approximate == "tanh") return _gelu_tanh(self);
  TL_ERROR("approximate argument must be either none or tanh.");
  return Tensor();
}

Tensor composite::glu(const Tensor& self, int64_t dim) {
  if (is_complex_type(self.scalar_type())) throw_dtype_not_implemented("glu", self.scalar_type());  // as PyTorch
  TL_CHECK(self.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t d = self.wrap_dim(dim), n = self.size(d);
  TL_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", n);
  return mul(narrow(self, d, 0, n / 2), sigmoid(narrow(self, d, n / 2, n / 2)));
}

Tensor composite::prelu(const Tensor& self, const Tensor& weight) {
  const int64_t n = weight.numel();
  TL_CHECK(weight.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = ", weight.dim());
  Tensor w = weight;
  if (n != 1) {
    TL_CHECK(self.dim() >= 1, "Not allow zero-dim input tensor.");
    const int64_t channels = self.dim() >= 2 ? self.size(1) : self.size(0);
    TL_CHECK(n == channels, "Mismatch of parameter numbers and input channel size. Found parameter numbers = ", n,
             " and channel size = ", channels, ".");
    DimVector shape(static_cast<size_t>(self.dim()), 1);
    shape[self.dim() >= 2 ? 1 : 0] = n;
    w = reshape(weight, shape.ref());
  }
  return torchlite::where(ge(self, number(0.0)), self, mul(w, self));
}

Tensor composite::pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  TL_CHECK(self.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
           self.dim(), " dimension(s)");
  TL_CHECK(upscale_factor > 0, "pixel_shuffle expects a positive upscale_factor, but got ", upscale_factor);
  const int64_t r = upscale_factor, nd = self.dim(), c = self.size(nd - 3), h = self.size(nd - 2),
                w = self.size(nd - 1);
  int64_t rr = 0;
  const bool overflow = __builtin_mul_overflow(r, r, &rr);
  TL_CHECK(!overflow && c % rr == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
           "of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r, "^2");
  DimVector lead;
  for (int64_t j = 0; j < nd - 3; ++j) lead.push_back(self.size(j));
  // (*, C, r, r, H, W) -> (*, C, H, r, W, r) -> (*, C, H r, W r)
  DimVector split = lead, perm, out = lead;
  for (int64_t v : {c / rr, r, r, h, w}) split.push_back(v);
  const int64_t b = static_cast<int64_t>(lead.size());
  for (int64_t j = 0; j < b; ++j) perm.push_back(j);
  for (int64_t j : {0, 3, 1, 4, 2}) perm.push_back(b + j);
  for (int64_t v : {c / rr, h * r, w * r}) out.push_back(v);
  return reshape(permute(reshape(self, split.ref()), perm.ref()), out.ref());
}

Tensor composite::pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  TL_CHECK(self.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
           self.dim(), " dimension(s)");
  TL_CHECK(downscale_factor > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", downscale_factor);
  const int64_t r = downscale_factor, nd = self.dim(), c = self.size(nd - 3), h = self.size(nd - 2),
                w = self.size(nd - 1);
  TL_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
           " is not divisible by ", r);
  TL_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
           " is not divisible by ", r);
  DimVector lead;
  for (int64_t j = 0; j < nd - 3; ++j) lead.push_back(self.size(j));
  // (*, C, H, r, W, r) -> (*, C, r, r, H, W) -> (*, C r r, H, W)
  DimVector split = lead, perm, out = lead;
  for (int64_t v : {c, h / r, r, w / r, r}) split.push_back(v);
  const int64_t b = static_cast<int64_t>(lead.size());
  for (int64_t j = 0; j < b; ++j) perm.push_back(j);
  for (int64_t j : {0, 2, 4, 1, 3}) perm.push_back(b + j);
  for (int64_t v : {c * r * r, h / r, w / r}) out.push_back(v);
  return reshape(permute(reshape(self, split.ref()), perm.ref()), out.ref());
}

Tensor composite::one_hot(const Tensor& self, int64_t num_classes) {
  TL_CHECK(self.scalar_type() == ScalarType::Int64, "one_hot is only applicable to index tensor of type LongTensor.");
  int64_t classes = num_classes;
  if (self.numel() == 0) {
    TL_CHECK(classes > 0, "Can not infer total number of classes from empty tensor.");
  } else {
    TL_CHECK(item(torchlite::min(self)).to<int64_t>() >= 0, "Class values must be non-negative.");
    const int64_t top = item(torchlite::max(self)).to<int64_t>();
    if (classes == -1) classes = top + 1;
    TL_CHECK(top < classes, "Class values must be smaller than num_classes.");
  }
  DimVector shape(self.sizes());
  shape.push_back(classes);
  return scatter(zeros(shape.ref(), ScalarType::Int64, self.device()), -1, unsqueeze(self, -1), Scalar(int64_t(1)));
}

Tensor composite::bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                           const std::optional<Tensor>& bias) {
  TL_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got ", input1.dim(), " and ",
           input2.dim());
  TL_CHECK(weight.dim() == 3, "bilinear(): weight must be three-dimensional, got ", weight.dim(), " dims");
  TL_CHECK(input1.size(-1) == weight.size(1), "bilinear(): input1 size does not match weight size: got ",
           input1.size(-1), " but expected ", weight.size(1));
  TL_CHECK(input2.size(-1) == weight.size(2), "bilinear(): input2 size does not match weight size: got ",
           input2.size(-1), " but expected ", weight.size(2));
  const Tensor operands[] = {input1, weight, input2};
  Tensor y = einsum("...i,oij,...j->...o", ArrayRef<Tensor>(operands, 3));
  return bias && bias->defined() ? add(y, *bias) : y;
}

namespace {

// scaled_dot_product_attention through the fused kernel (_scaled_dot_product_fused_attention, its backward
// recomputing the weights): the batch dims of query, key and value broadcast and flattened into one, a bool mask
// made additive (0 where True, -inf elsewhere) and viewed as (batch, L, S) without copying its broadcast dims.
// Empty when the shapes do not fit it (a mask with more batch dims than the rest): the composite below runs.
std::optional<Tensor> fused_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                      const std::optional<Tensor>& attn_mask, bool is_causal, double scale) {
  const int64_t L = query.size(-2), S = key.size(-2), E = query.size(-1), Ev = value.size(-1);
  const auto lead = [](const Tensor& t) { return IntArrayRef(t.sizes().data(), static_cast<size_t>(t.dim() - 2)); };
  const DimVector batch = broadcast_sizes(broadcast_sizes(lead(query), lead(key)), lead(value));
  const bool has_mask = attn_mask && attn_mask->defined();
  if (has_mask && attn_mask->dim() > static_cast<int64_t>(batch.size()) + 2) return std::nullopt;
  int64_t B = 1;
  for (int64_t b : batch) B *= b;
  const auto flat = [&](const Tensor& t, int64_t rows, int64_t cols) {
    DimVector full = batch;
    full.push_back(rows);
    full.push_back(cols);
    const DimVector three{B, rows, cols};
    return reshape(expand(t, full.ref()), three.ref());
  };
  std::optional<Tensor> mask;
  if (has_mask) {
    Tensor m = *attn_mask;
    if (m.scalar_type() == ScalarType::Bool) {
      m = masked_fill(zeros_like(m, query.scalar_type()), logical_not(m), Scalar(-INFINITY));
    } else if (m.scalar_type() != query.scalar_type()) {
      m = to(m, query.scalar_type());
    }
    mask = flat(m, L, S);
  }
  const auto out = _scaled_dot_product_fused_attention(flat(query, L, E), flat(key, S, E), flat(value, S, Ev), mask,
                                                       is_causal, scale);
  DimVector shape = batch;
  shape.push_back(L);
  shape.push_back(Ev);
  return reshape(std::get<0>(out), shape.ref());
}

}  // namespace

Tensor composite::scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                               const std::optional<Tensor>& attn_mask, double dropout_p,
                                               bool is_causal, std::optional<double> scale, bool enable_gqa) {
  TL_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, "scaled_dot_product_attention: expected query, "
           "key and value of at least 2 dims (..., L, E), got ", query.dim(), ", ", key.dim(), " and ", value.dim());
  TL_CHECK(!(is_causal && attn_mask && attn_mask->defined()), "_scaled_dot_product_attention: Explicit attn_mask "
           "should not be set when is_causal=True");
  Tensor k = key, v = value;
  if (enable_gqa && query.dim() >= 3 && key.dim() >= 3 && query.size(-3) != key.size(-3)) {
    const int64_t hq = query.size(-3), hk = key.size(-3);
    TL_CHECK(hk > 0 && hq % hk == 0, "scaled_dot_product_attention: the query's ", hq, " heads are not a multiple of "
             "the key's ", hk);
    k = repeat_interleave(key, hq / hk, key.dim() - 3);
    v = repeat_interleave(value, hq / value.size(-3), value.dim() - 3);
  }
  const int64_t L = query.size(-2), S = k.size(-2);
  const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  const bool mask_grad = attn_mask && attn_mask->defined() && attn_mask->requires_grad();
  if (dropout_p == 0 && !mask_grad && is_floating_type(query.scalar_type())) {
    if (const std::optional<Tensor> y = fused_attention(query, k, v, attn_mask, is_causal, s)) return *y;
  }
  Tensor scores = mul(matmul(query, transpose(k, -2, -1)), number(s));
  if (is_causal) {  // position i attends to positions <= i
    const DimVector ls{L, S};
    const Tensor keep = tril(ones(ls.ref(), ScalarType::Bool, query.device()), 0);
    scores = masked_fill(scores, logical_not(keep), Scalar(-INFINITY));
  } else if (attn_mask && attn_mask->defined()) {
    scores = attn_mask->scalar_type() == ScalarType::Bool ? masked_fill(scores, logical_not(*attn_mask),
                                                                        Scalar(-INFINITY))
                                                          : add(scores, *attn_mask);
  }
  Tensor weights = softmax(scores, -1);
  if (dropout_p > 0) weights = dropout(weights, dropout_p, true);
  return matmul(weights, v);
}

}  // namespace torchlite
