// max_pool1d/2d/3d (with indices) and avg_pool1d/2d/3d over the N-d pooling ops (_max_pool_with_indices,
// _avg_pool), which take 1 to 3 spatial dims and batched or unbatched inputs alike.
#include "core/TensorFactory.h"
#include "kernels/adaptive_avg_pool1d.h"
#include "kernels/adaptive_avg_pool2d.h"
#include "kernels/adaptive_avg_pool3d.h"
#include "kernels/adaptive_max_pool1d.h"
#include "kernels/adaptive_max_pool2d.h"
#include "kernels/adaptive_max_pool3d.h"
#include "kernels/avg_pool1d.h"
#include "kernels/avg_pool2d.h"
#include "kernels/avg_pool3d.h"
#include "kernels/max_pool1d.h"
#include "kernels/max_pool1d_with_indices.h"
#include "kernels/max_pool2d.h"
#include "kernels/max_pool2d_with_indices.h"
#include "kernels/max_pool3d.h"
#include "kernels/max_pool3d_with_indices.h"
#include "ops/_adaptive_avg_pool.h"
#include "ops/_adaptive_max_pool.h"
#include "ops/_avg_pool.h"
#include "ops/_max_pool_with_indices.h"
#include "ops/complex.h"
#include "ops/imag.h"
#include "ops/real.h"

namespace torchlite {

namespace {

std::tuple<Tensor, Tensor> max_pool(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                    IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return torchlite::_max_pool_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode);
}

}  // namespace

Tensor composite::max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                             IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool(self, kernel_size, stride, padding, dilation, ceil_mode));
}
Tensor composite::max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                             IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool(self, kernel_size, stride, padding, dilation, ceil_mode));
}
Tensor composite::max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                             IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool(self, kernel_size, stride, padding, dilation, ceil_mode));
}
std::tuple<Tensor, Tensor> composite::max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                              IntArrayRef stride, IntArrayRef padding,
                                                              IntArrayRef dilation, bool ceil_mode) {
  return max_pool(self, kernel_size, stride, padding, dilation, ceil_mode);
}
std::tuple<Tensor, Tensor> composite::max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                              IntArrayRef stride, IntArrayRef padding,
                                                              IntArrayRef dilation, bool ceil_mode) {
  return max_pool(self, kernel_size, stride, padding, dilation, ceil_mode);
}
std::tuple<Tensor, Tensor> composite::max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                              IntArrayRef stride, IntArrayRef padding,
                                                              IntArrayRef dilation, bool ceil_mode) {
  return max_pool(self, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor composite::avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                             bool ceil_mode, bool count_include_pad) {
  return torchlite::_avg_pool(self, kernel_size, stride, padding, ceil_mode, count_include_pad, std::nullopt);
}
Tensor composite::avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                             bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return torchlite::_avg_pool(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}
Tensor composite::avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                             bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return torchlite::_avg_pool(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}

namespace {

// _adaptive_avg_pool, for complex tensors part by part (an average is linear): PyTorch's 2-d pooling takes
// them, its 1-d and 3-d ones do not (the kernel refuses them).
Tensor adaptive_avg_complex(const Tensor& self, IntArrayRef output_size) {
  if (!is_complex_type(self.scalar_type())) return torchlite::_adaptive_avg_pool(self, output_size);
  return torchlite::complex(torchlite::_adaptive_avg_pool(torchlite::real(self), output_size),
                            torchlite::_adaptive_avg_pool(torchlite::imag(self), output_size));
}

}  // namespace

Tensor composite::adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  return torchlite::_adaptive_avg_pool(self, output_size);
}
Tensor composite::adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_complex(self, output_size);
}
Tensor composite::adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return torchlite::_adaptive_avg_pool(self, output_size);
}
std::tuple<Tensor, Tensor> composite::adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  return torchlite::_adaptive_max_pool(self, output_size);
}
std::tuple<Tensor, Tensor> composite::adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  return torchlite::_adaptive_max_pool(self, output_size);
}
std::tuple<Tensor, Tensor> composite::adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size) {
  return torchlite::_adaptive_max_pool(self, output_size);
}

}  // namespace torchlite
