// Formula helpers of the nn.functional ops (softmax, log_softmax...), written with torchlite ops so that
// higher-order gradients record through them.
#include "autograd/FormulaHelpers.h"
#include "autograd/helpers_common.h"
#include "ops/_cross_entropy_backward.h"
#include "ops/_log_softmax_backward_data.h"
#include "ops/add_Tensor.h"
#include "ops/col2im.h"
#include "ops/div_Tensor.h"
#include "ops/full.h"
#include "ops/index_add.h"
#include "ops/index_fill_int_Scalar.h"
#include "ops/index_select.h"
#include "ops/ones_like.h"
#include "ops/unsqueeze.h"
#include "ops/zeros.h"
#include "ops/zeros_like.h"
#include "ops/constant_pad_nd.h"
#include "ops/convolution.h"
#include "ops/convolution_backward.h"
#include "ops/expand.h"
#include "ops/gather.h"
#include "ops/reshape.h"
#include "ops/view.h"
#include "ops/exp.h"
#include "ops/mul_Tensor.h"
#include "ops/neg.h"
#include "ops/sub_Tensor.h"
#include "ops/sum_dim_IntList.h"

namespace torchlite::autograd {

namespace {

// The sum of t along dim, kept as a size-1 dim (so it broadcasts against t).
Tensor sum_along(const Tensor& t, int64_t dim) {
  return sum(t, IntArrayRef(dim), /*keepdim=*/true, std::nullopt);
}

}  // namespace

Tensor softmax_jvp(const Tensor& self_t, const Tensor& result, int64_t dim) {
  return mul(result, sub(self_t, sum_along(mul(result, self_t), dim)));
}

Tensor log_softmax_jvp(const Tensor& self_t, const Tensor& result, int64_t dim) {
  return sub(self_t, sum_along(mul(exp(result), self_t), dim));
}

// d/d(output) of output * (grad_output - sum(grad_output * output)), applied to grad.
Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim) {
  Tensor direct = mul(grad, sub(grad_output, sum_along(mul(grad_output, output), dim)));
  return sub(direct, mul(grad_output, sum_along(mul(grad, output), dim)));
}

// d/d(output) of grad_output - exp(output) * sum(grad_output), applied to grad.
Tensor log_softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output,
                                   int64_t dim) {
  return neg(mul(mul(grad, exp(output)), sum_along(grad_output, dim)));
}

Tensor cross_entropy_forward_backward(const Tensor& grad_output, const Tensor& grad_log_probs, const Tensor& log_probs,
                                      const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                                      int64_t ignore_index, const Tensor& total_weight) {
  Tensor grad;
  if (grad_output.defined())
    grad = _cross_entropy_backward(grad_output, log_probs, target, weight, reduction, ignore_index, total_weight);
  if (!grad_log_probs.defined()) return grad;
  Tensor through_log_probs = _log_softmax_backward_data(grad_log_probs, log_probs, log_probs.dim() == 1 ? 0 : 1,
                                                        log_probs.scalar_type());
  return grad.defined() ? add(grad, through_log_probs) : through_log_probs;
}

Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices, IntArrayRef kernel_size) {
  const int64_t lead = indices.dim() - static_cast<int64_t>(kernel_size.size());
  DimVector g_shape, i_shape;
  for (int64_t j = 0; j < lead; ++j) {
    g_shape.push_back(grad.size(j));
    i_shape.push_back(indices.size(j));
  }
  g_shape.push_back(-1);
  i_shape.push_back(-1);
  return reshape(gather(reshape(grad, g_shape.ref()), lead, reshape(indices, i_shape.ref())), indices.sizes());
}

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  DimVector negated;
  for (int64_t p : pad) negated.push_back(-p);
  return constant_pad_nd(grad, negated.ref(), 0);
}

Tensor embedding_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                          bool scale_grad_by_freq) {
  const int64_t n = weight.size(0), dim = weight.size(1);
  const DimVector rows{-1, dim}, flat{-1};
  const Tensor idx = reshape(indices, flat.ref());
  Tensor g = reshape(grad, rows.ref());
  if (scale_grad_by_freq) {  // each row's gradient over the number of times the batch names it
    const DimVector counts_shape{n};
    const Tensor counts = index_add(zeros(counts_shape.ref(), grad.scalar_type(), grad.device()), 0, idx,
                                    ones_like(idx, grad.scalar_type()));
    g = div(g, unsqueeze(index_select(counts, 0, idx), 1));
  }
  Tensor result = index_add(zeros_like(weight), 0, idx, g);
  if (padding_idx >= 0 && padding_idx < n) {
    const DimVector one{1};
    result = index_fill(result, 0, full(one.ref(), Scalar(padding_idx), ScalarType::Int64, grad.device()), Scalar(0));
  }
  return result;
}

Tensor im2col_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef kernel_size, IntArrayRef dilation,
                       IntArrayRef padding, IntArrayRef stride) {
  const DimVector image{sizes[sizes.size() - 2], sizes[sizes.size() - 1]};
  return col2im(grad, image.ref(), kernel_size, dilation, padding, stride);
}

Tensor convolution_jvp(const Tensor& input_t, const Tensor& weight_t, const std::optional<Tensor>& bias_t,
                       const Tensor& input, const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                       IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  return add(convolution(input_t, weight, bias_t, stride, padding, dilation, transposed, output_padding, groups),
             convolution(input, weight_t, std::nullopt, stride, padding, dilation, transposed, output_padding, groups));
}

std::tuple<Tensor, Tensor, Tensor> convolution_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggb, const Tensor& grad_output, const Tensor& input,
    const Tensor& weight, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
    IntArrayRef output_padding, int64_t groups, std::array<bool, 3> grad_input_mask) {
  auto plus = [](const Tensor& a, const Tensor& b) { return a.defined() ? add(a, b) : b; };
  Tensor g_grad_output, g_input, g_weight;
  if (grad_input_mask[0]) {
    if (ggI.defined())
      g_grad_output = convolution(ggI, weight, std::nullopt, stride, padding, dilation, transposed, output_padding,
                                  groups);
    if (ggW.defined())
      g_grad_output = plus(g_grad_output, convolution(input, ggW, std::nullopt, stride, padding, dilation, transposed,
                                                      output_padding, groups));
    if (ggb.defined()) {
      DimVector shape(static_cast<size_t>(grad_output.dim()), 1);
      shape[1] = ggb.numel();
      g_grad_output = plus(g_grad_output, expand(view(ggb, shape.ref()), grad_output.sizes()));
    }
  }
  if (grad_input_mask[1] && ggW.defined()) {
    const bool mask[] = {true, false, false};
    g_input = std::get<0>(convolution_backward(grad_output, input, ggW, stride, padding, dilation, transposed,
                                               output_padding, groups, ArrayRef<bool>(mask)));
  }
  if (grad_input_mask[2] && ggI.defined()) {
    const bool mask[] = {false, true, false};
    g_weight = std::get<1>(convolution_backward(grad_output, ggI, weight, stride, padding, dilation, transposed,
                                                output_padding, groups, ArrayRef<bool>(mask)));
  }
  return {g_grad_output, g_input, g_weight};
}

}  // namespace torchlite::autograd
