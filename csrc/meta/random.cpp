// Output shapes and dtypes of the random ops with hand-written kernels, shared by all devices.
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/_standard_gamma_grad.h"
#include "kernels/binomial.h"
#include "kernels/normal_Tensor_Tensor.h"
#include "kernels/normal_Tensor_float.h"
#include "kernels/normal_float_Tensor.h"
#include "kernels/randperm.h"

namespace torchlite {

// normal(mean, std): mean and std broadcast together; the result has mean's dtype, as in PyTorch.
TensorMeta meta::normal_Tensor_Tensor_meta(const Tensor& mean, const Tensor& std,
                                           const std::optional<Generator>& generator) {
  static constexpr OpInfo kOp{"normal", "Tensor_Tensor", ""};
  return meta_broadcast(kOp, {&mean, &std}, mean.scalar_type());
}

TensorMeta meta::normal_Tensor_float_meta(const Tensor& mean, double std, const std::optional<Generator>& generator) {
  TensorMeta m;
  m.sizes.assign(mean.sizes());
  m.dtype = mean.scalar_type();
  m.device = mean.device();
  return m;
}

TensorMeta meta::normal_float_Tensor_meta(double mean, const Tensor& std, const std::optional<Generator>& generator) {
  TensorMeta m;
  m.sizes.assign(std.sizes());
  m.dtype = std.scalar_type();
  m.device = std.device();
  return m;
}

TensorMeta meta::randperm_meta(int64_t n, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                               std::optional<Device> device) {
  check_sizes_nonnegative("randperm", IntArrayRef(n));
  TensorMeta m;
  m.sizes = {n};
  m.dtype = dtype.value_or(ScalarType::Int64);
  m.device = device.value_or(Device());
  return m;
}

// binomial(count, prob): broadcast together, count's dtype; both floating and of one dtype, as in PyTorch.
TensorMeta meta::binomial_meta(const Tensor& count, const Tensor& prob, const std::optional<Generator>& generator) {
  static constexpr OpInfo kOp{"binomial", "", ""};
  TL_CHECK_VALUE(is_floating_type(count.scalar_type()), "binomial only supports floating-point dtypes for count, got: ",
                 scalar_type_name(count.scalar_type()));
  TL_CHECK(prob.scalar_type() == count.scalar_type(), "Found dtype ", scalar_type_name(prob.scalar_type()),
           " but expected ", scalar_type_name(count.scalar_type()));
  return meta_broadcast(kOp, {&count, &prob}, count.scalar_type());
}

// _standard_gamma_grad(self, output): broadcast together, self's dtype.
TensorMeta meta::_standard_gamma_grad_meta(const Tensor& self, const Tensor& output) {
  static constexpr OpInfo kOp{"_standard_gamma_grad", "", ""};
  return meta_broadcast(kOp, {&self, &output}, self.scalar_type());
}

}  // namespace torchlite
