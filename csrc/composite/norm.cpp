// layer_norm, group_norm, batch_norm (training: the batch-statistics kernel, then the running statistics
// moved in place; evaluation: one affine map by the running statistics), instance_norm (batch norm of a
// (1, N * C, *) view, as PyTorch does it) and rms_norm.
#include <limits>

#include "composite/Numbers.h"
#include "core/TensorFactory.h"
#include "kernels/batch_norm.h"
#include "dispatch/NormShape.h"
#include "kernels/group_norm.h"
#include "kernels/instance_norm.h"
#include "kernels/layer_norm.h"
#include "kernels/native_batch_norm.h"
#include "kernels/rms_norm.h"
#include "ops/_batch_norm_training.h"
#include "ops/_to_copy.h"
#include "ops/add_Tensor.h"
#include "ops/addcmul.h"
#include "ops/copy.h"
#include "ops/empty.h"
#include "ops/mean_dim.h"
#include "ops/mul_Tensor.h"
#include "ops/native_group_norm.h"
#include "ops/native_layer_norm.h"
#include "ops/neg.h"
#include "ops/repeat.h"
#include "ops/reshape.h"
#include "ops/rsqrt.h"
#include "ops/view.h"

namespace torchlite {

namespace {


bool given(const std::optional<Tensor>& t) { return t && t->defined(); }

// (C) viewed as (1, C, 1, ...) against an input of `dim` dims.
Tensor per_channel(const Tensor& t, int64_t dim) {
  DimVector shape(static_cast<size_t>(dim), 1);
  shape[1] = t.numel();
  return reshape(t, shape.ref());
}

// running = (1 - momentum) running + momentum * value, in place.
void move_running(const Tensor& running, const Tensor& value, double momentum) {
  add_(mul_(running, number(1 - momentum)), value, Scalar(momentum));
}

}  // namespace

Tensor composite::layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                             const std::optional<Tensor>& bias, double eps, bool cudnn_enable) {
  (void)cudnn_enable;
  return std::get<0>(native_layer_norm(input, normalized_shape, weight, bias, eps));
}

Tensor composite::group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                             const std::optional<Tensor>& bias, double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  TL_CHECK(input.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", input.dim());
  const int64_t N = input.size(0), C = input.size(1), HxW = N * C ? input.numel() / (N * C) : 1;
  return std::get<0>(native_group_norm(input, weight, bias, N, C, HxW, num_groups, eps));
}

std::tuple<Tensor, Tensor, Tensor> composite::native_batch_norm(const Tensor& input,
                                                                const std::optional<Tensor>& weight,
                                                                const std::optional<Tensor>& bias,
                                                                const std::optional<Tensor>& running_mean,
                                                                const std::optional<Tensor>& running_var,
                                                                bool training, double momentum, double eps) {
  TL_CHECK(input.dim() >= 2, "batch_norm: expected an input of at least 2 dims (N, C, *), got ",
           to_string(input.sizes()));
  if (!is_floating_type(input.scalar_type())) throw_dtype_not_implemented("batch_norm", input.scalar_type());
  const int64_t C = input.size(1);
  for (const auto* stat : {&running_mean, &running_var}) {
    if (!given(*stat)) continue;
    TL_CHECK((*stat)->numel() == C, stat == &running_mean ? "running_mean" : "running_var", " should contain ", C,
             " elements not ", (*stat)->numel());
  }
  if (training) {
    auto [output, mean, invstd, var] = _batch_norm_training(input, weight, bias, eps);
    const int64_t n = C ? input.numel() / C : 0;
    if (given(running_mean)) move_running(*running_mean, mean, momentum);
    if (given(running_var)) {
      move_running(*running_var, n > 1 ? mul(var, number(static_cast<double>(n) / static_cast<double>(n - 1))) : var,
                   momentum);
    }
    return {output, mean, invstd};
  }
  TL_CHECK(given(running_mean), "running_mean must be defined in evaluation mode");
  TL_CHECK(given(running_var), "running_var must be defined in evaluation mode");
  // y = x * scale + shift, scale = weight / sqrt(running_var + eps), shift = bias - running_mean * scale.
  Tensor scale = rsqrt(add(*running_var, number(eps)));
  if (given(weight)) scale = mul(scale, *weight);
  Tensor shift = neg(mul(*running_mean, scale));
  if (given(bias)) shift = add(shift, *bias);
  const Tensor dtype_of = _to_copy(scale, input.scalar_type());
  const Tensor output = addcmul(per_channel(_to_copy(shift, input.scalar_type()), input.dim()), input,
                                per_channel(dtype_of, input.dim()));
  const Tensor none = empty(DimVector{0}.ref(), input.scalar_type(), input.device());
  return {output, none, none};
}

Tensor composite::batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                             const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                             const std::optional<Tensor>& running_var, bool training, double momentum, double eps,
                             bool cudnn_enabled) {
  (void)cudnn_enabled;
  return std::get<0>(native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

Tensor composite::instance_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                                const std::optional<Tensor>& running_var, bool use_input_stats, double momentum,
                                double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  TL_CHECK(use_input_stats || (given(running_mean) && given(running_var)), "Expected running_mean and running_var "
           "to be defined when use_input_stats is false");
  TL_CHECK(input.dim() >= 2, "instance_norm: expected an input of at least 2 dims (N, C, *), got ",
           to_string(input.sizes()));
  const int64_t N = input.size(0), C = input.size(1);
  DimVector shape(input.sizes());
  shape[0] = 1;
  shape[1] = N * C;
  const DimVector reps{N};
  auto repeated = [&](const std::optional<Tensor>& t) -> std::optional<Tensor> {
    if (!given(t)) return std::nullopt;
    return repeat(*t, reps.ref());
  };
  const std::optional<Tensor> rm = repeated(running_mean), rv = repeated(running_var);
  const Tensor out = batch_norm(reshape(input, shape.ref()), repeated(weight), repeated(bias), rm, rv,
                                use_input_stats, momentum, eps, false);
  const DimVector nc{N, C}, dim0{0};
  if (use_input_stats) {  // the running statistics: the average over the batch of each image's
    if (given(running_mean)) copy_(*running_mean, mean(view(*rm, nc.ref()), dim0.ref(), false));
    if (given(running_var)) copy_(*running_var, mean(view(*rv, nc.ref()), dim0.ref(), false));
  }
  return reshape(out, input.sizes());
}

Tensor composite::rms_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                           std::optional<double> eps) {
  norm::check_normalized_shape(input, normalized_shape);
  if (given(weight)) norm::check_normalized_param("weight", *weight, normalized_shape);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  TL_CHECK(is_floating_type(input.scalar_type()) || is_complex_type(input.scalar_type()),
           "rms_norm: expected a floating or complex input, got ", scalar_type_name(input.scalar_type()));
  // Half and bfloat16 inputs are normalized in float, as PyTorch does.
  const bool low = input.scalar_type() == ScalarType::Half || input.scalar_type() == ScalarType::BFloat16;
  const Tensor x = low ? _to_copy(input, ScalarType::Float) : input;
  // eps None: the machine epsilon of the type it is computed in. Complex inputs: mean(x * x), not of |x|^2,
  // as PyTorch's.
  const double e = eps ? *eps
                       : (to_real_type(input.scalar_type()) == ScalarType::Double
                              ? std::numeric_limits<double>::epsilon()
                              : std::numeric_limits<float>::epsilon());
  DimVector dims;
  for (int64_t j = input.dim() - k; j < input.dim(); ++j) dims.push_back(j);
  Tensor y = mul(x, rsqrt(add(mean(mul(x, x), dims.ref(), true), number(e))));
  if (low) y = _to_copy(y, input.scalar_type());
  return given(weight) ? mul(y, *weight) : y;
}

}  // namespace torchlite
