// softmax and log_softmax along one dim: the input in `dtype` when given, then the fused kernels
// (_softmax, _log_softmax: kernels/cpu/softmax.cpp, kernels/gpu/softmax.inc), whose derivatives are
// ops too (_softmax_backward_data...).
#include "core/ScalarType.h"
#include "kernels/log_softmax_int.h"
#include "kernels/softmax_int.h"
#include "ops/_log_softmax.h"
#include "ops/_softmax.h"
#include "ops/to_dtype.h"

namespace torchlite {

namespace {

// self in `dtype` when given, checked floating (PyTorch names its kernel in the message).
Tensor softmax_input(const char* kernel, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor x = dtype ? torchlite::to(self, *dtype) : self;
  x.wrap_dim(dim);  // range check first, as PyTorch
  if (!is_floating_type(x.scalar_type())) throw_dtype_not_implemented(kernel, x.scalar_type());
  return x;
}

const char* kernel_name(const Tensor& self, int64_t dim, const char* lastdim, const char* other) {
  return self.dim() == 0 || self.wrap_dim(dim) == self.dim() - 1 ? lastdim : other;
}

}  // namespace

Tensor composite::softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const char* kernel = kernel_name(self, dim, "softmax_lastdim_kernel_impl", "softmax_kernel_impl");
  return torchlite::_softmax(softmax_input(kernel, self, dim, dtype), dim, /*half_to_float=*/false);
}

Tensor composite::log_softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const char* kernel = kernel_name(self, dim, "log_softmax_lastdim_kernel_impl", "log_softmax_kernel_impl");
  return torchlite::_log_softmax(softmax_input(kernel, self, dim, dtype), dim, /*half_to_float=*/false);
}

}  // namespace torchlite
