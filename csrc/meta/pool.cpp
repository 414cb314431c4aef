// Output shapes and checks of the pooling ops, shared by all devices.
#include "dispatch/ExactMeta.h"
#include "kernels/Pool.h"
#include "kernels/_adaptive_avg_pool.h"
#include "kernels/_adaptive_avg_pool_backward.h"
#include "kernels/_adaptive_max_pool.h"
#include "kernels/_avg_pool.h"
#include "kernels/_avg_pool_backward.h"
#include "kernels/_max_pool_backward.h"
#include "kernels/_max_pool_with_indices.h"

namespace torchlite {

namespace {

void check_dtype(const char* op, const Tensor& self) {
  if (self.scalar_type() == ScalarType::Bool) throw_dtype_not_implemented(op, ScalarType::Bool);
}

DimVector ones(size_t d) { return DimVector(d, 1); }

}  // namespace

std::array<TensorMeta, 2> meta::max_pool_meta(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  check_dtype("max_pool", self);
  const pool::Geometry g = pool::check("max_pool", self, kernel_size, stride, padding, dilation, ceil_mode);
  return {exact_meta(g.out_sizes, self), exact_meta(g.out_sizes, self, ScalarType::Int64)};
}

TensorMeta meta::max_pool_backward_meta(const Tensor& grad_output, const Tensor& self, const Tensor& indices,
                                        IntArrayRef kernel_size) {
  check_dtype("max_pool_backward", self);
  TL_CHECK(grad_output.sizes().equals(indices.sizes()), "max_pool_backward: grad_output of size ",
           to_string(grad_output.sizes()), " does not match indices of size ", to_string(indices.sizes()));
  TL_CHECK(indices.scalar_type() == ScalarType::Int64, "max_pool_backward: expected int64 indices, got ",
           scalar_type_name(indices.scalar_type()));
  TL_CHECK(indices.dim() == self.dim() && self.dim() > static_cast<int64_t>(kernel_size.size()),
           "max_pool_backward: expected indices with self's ", self.dim(), " dims, got ", indices.dim());
  // The kernel reads planes * (indices' spatial numel) values: the leading (plane) dims must be self's.
  for (int64_t j = 0; j < self.dim() - static_cast<int64_t>(kernel_size.size()); ++j)
    TL_CHECK(indices.size(j) == self.size(j), "max_pool_backward: indices of size ", to_string(indices.sizes()),
             " do not match self of size ", to_string(self.sizes()), " in dim ", j);
  return exact_meta(DimVector(self.sizes()), self);
}

TensorMeta meta::avg_pool_meta(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                               bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  check_dtype("avg_pool", self);
  TL_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  return exact_meta(pool::check("avg_pool", self, kernel_size, stride, padding, ones(kernel_size.size()).ref(),
                                ceil_mode).out_sizes,
                    self);
}

TensorMeta meta::avg_pool_backward_meta(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                        bool count_include_pad, std::optional<int64_t> divisor_override) {
  check_dtype("avg_pool_backward", self);
  const pool::Geometry g =
      pool::check("avg_pool_backward", self, kernel_size, stride, padding, ones(kernel_size.size()).ref(), ceil_mode);
  TL_CHECK(grad_output.sizes().equals(g.out_sizes.ref()), "avg_pool_backward: expected grad_output of size ",
           to_string(g.out_sizes.ref()), ", got ", to_string(grad_output.sizes()));
  return exact_meta(DimVector(self.sizes()), self);
}

static void check_floating(const char* op, const Tensor& self) {
  if (!is_floating_type(self.scalar_type())) throw_dtype_not_implemented(op, self.scalar_type());
}

TensorMeta meta::adaptive_avg_pool_meta(const Tensor& self, IntArrayRef output_size) {
  const pool::Geometry g = pool::check_adaptive("adaptive_avg_pool", self, output_size);
  check_floating("adaptive_avg_pool", self);
  return exact_meta(g.out_sizes, self);
}

TensorMeta meta::adaptive_avg_pool_backward_meta(const Tensor& grad_output, const Tensor& self,
                                                 IntArrayRef output_size) {
  const pool::Geometry g = pool::check_adaptive("adaptive_avg_pool_backward", self, output_size);
  check_floating("adaptive_avg_pool_backward", self);
  TL_CHECK(grad_output.sizes().equals(g.out_sizes.ref()), "adaptive_avg_pool_backward: expected grad_output of size ",
           to_string(g.out_sizes.ref()), ", got ", to_string(grad_output.sizes()));
  return exact_meta(DimVector(self.sizes()), self);
}

std::array<TensorMeta, 2> meta::adaptive_max_pool_meta(const Tensor& self, IntArrayRef output_size) {
  const pool::Geometry g = pool::check_adaptive("adaptive_max_pool", self, output_size);
  check_floating("adaptive_max_pool", self);
  return {exact_meta(g.out_sizes, self), exact_meta(g.out_sizes, self, ScalarType::Int64)};
}

}  // namespace torchlite
