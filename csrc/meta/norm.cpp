// Output shapes and checks of the normalization kernels, shared by all devices. The backward ops' gradient
// for weight (bias) has size 0 where output_mask leaves it out or there is no weight.
#include "dispatch/ExactMeta.h"
#include "kernels/Norm.h"
#include "kernels/_batch_norm_backward.h"
#include "kernels/_batch_norm_training.h"
#include "kernels/native_group_norm.h"
#include "kernels/native_group_norm_backward.h"
#include "kernels/native_layer_norm.h"
#include "kernels/native_layer_norm_backward.h"

namespace torchlite {

namespace {

const Tensor* opt(const std::optional<Tensor>& t) { return t && t->defined() ? &*t : nullptr; }

void check_grad(const char* op, const Tensor& grad, const Tensor& input) {
  TL_CHECK(grad.sizes().equals(input.sizes()), op, ": expected a gradient of the input's size ",
           to_string(input.sizes()), ", got ", to_string(grad.sizes()));
}

// The gradients' metas: the input's, then weight's and bias's (param_sizes) or size 0.
std::array<TensorMeta, 3> grad_metas(const Tensor& input, ArrayRef<bool> mask, bool has_weight,
                                     const DimVector& param_sizes) {
  return {exact_meta(mask[0] ? DimVector(input.sizes()) : DimVector{0}, input),
          exact_meta(mask[1] && has_weight ? param_sizes : DimVector{0}, input),
          exact_meta(mask[2] ? param_sizes : DimVector{0}, input)};
}

}  // namespace

std::array<TensorMeta, 3> meta::layer_norm_meta(const Tensor& input, IntArrayRef normalized_shape,
                                                const std::optional<Tensor>& weight,
                                                const std::optional<Tensor>& bias, double eps) {
  (void)eps;
  norm::check_floating("LayerNormKernelImpl", input);
  norm::check_layer_norm(input, normalized_shape, opt(weight), opt(bias));
  DimVector stats(input.sizes());
  for (size_t j = 0; j < normalized_shape.size(); ++j) stats[stats.size() - 1 - j] = 1;
  return {exact_meta(DimVector(input.sizes()), input), exact_meta(stats, input), exact_meta(stats, input)};
}

std::array<TensorMeta, 3> meta::layer_norm_backward_meta(const Tensor& grad_out, const Tensor& input,
                                                         IntArrayRef normalized_shape, const Tensor& mean,
                                                         const Tensor& rstd, const std::optional<Tensor>& weight,
                                                         const std::optional<Tensor>& bias,
                                                         ArrayRef<bool> output_mask) {
  norm::check_floating("LayerNormBackwardKernelImpl", input);
  const int64_t M = norm::check_layer_norm(input, normalized_shape, opt(weight), opt(bias));
  check_grad("native_layer_norm_backward", grad_out, input);
  const int64_t rows = M ? input.numel() / M : 0;
  TL_CHECK(mean.numel() == rows && rstd.numel() == rows, "native_layer_norm_backward: expected mean and rstd of ",
           rows, " elements, got ", mean.numel(), " and ", rstd.numel());
  return grad_metas(input, output_mask, opt(weight) != nullptr, DimVector(normalized_shape));
}

std::array<TensorMeta, 3> meta::group_norm_meta(const Tensor& input, const std::optional<Tensor>& weight,
                                                const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW,
                                                int64_t group, double eps) {
  (void)eps;
  norm::check_floating("GroupNormKernelImpl", input);
  norm::check_group_norm(input, opt(weight), opt(bias), N, C, HxW, group);
  return {exact_meta(DimVector(input.sizes()), input), exact_meta(DimVector{N, group}, input),
          exact_meta(DimVector{N, group}, input)};
}

std::array<TensorMeta, 3> meta::group_norm_backward_meta(const Tensor& grad_out, const Tensor& input,
                                                         const Tensor& mean, const Tensor& rstd,
                                                         const std::optional<Tensor>& weight, int64_t N, int64_t C,
                                                         int64_t HxW, int64_t group, ArrayRef<bool> output_mask) {
  norm::check_floating("GroupNormBackwardKernelImpl", input);
  norm::check_group_norm(input, opt(weight), nullptr, N, C, HxW, group);
  check_grad("native_group_norm_backward", grad_out, input);
  TL_CHECK(mean.numel() == N * group && rstd.numel() == N * group, "native_group_norm_backward: expected mean and "
           "rstd of ", N * group, " elements, got ", mean.numel(), " and ", rstd.numel());
  return grad_metas(input, output_mask, opt(weight) != nullptr, DimVector{C});
}

std::array<TensorMeta, 4> meta::batch_norm_training_meta(const Tensor& input, const std::optional<Tensor>& weight,
                                                         const std::optional<Tensor>& bias, double eps) {
  (void)eps;
  norm::check_floating("batch_norm", input);
  norm::check_batch_norm(input, opt(weight), opt(bias));
  const DimVector c{input.size(1)};
  return {exact_meta(DimVector(input.sizes()), input), exact_meta(c, input), exact_meta(c, input),
          exact_meta(c, input)};
}

std::array<TensorMeta, 3> meta::batch_norm_backward_meta(const Tensor& grad_output, const Tensor& input,
                                                         const std::optional<Tensor>& weight, const Tensor& mean,
                                                         const Tensor& invstd, ArrayRef<bool> output_mask) {
  norm::check_floating("batch_norm_backward", input);
  norm::check_batch_norm(input, opt(weight), nullptr);
  check_grad("batch_norm_backward", grad_output, input);
  const int64_t C = input.size(1);
  TL_CHECK(mean.numel() == C && invstd.numel() == C, "batch_norm_backward: expected mean and invstd of ", C,
           " elements, got ", mean.numel(), " and ", invstd.numel());
  return grad_metas(input, output_mask, opt(weight) != nullptr, DimVector{C});
}

}  // namespace torchlite
