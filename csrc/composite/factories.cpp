// Composite factories: written with other torchlite ops.
#include "kernels/eye.h"
#include "kernels/fill_Tensor.h"
#include "kernels/full.h"
#include "kernels/full_like.h"
#include "kernels/new_empty.h"
#include "kernels/new_empty_strided.h"
#include "kernels/new_full.h"
#include "kernels/new_ones.h"
#include "kernels/new_zeros.h"
#include "kernels/ones.h"
#include "kernels/ones_like.h"
#include "kernels/zeros.h"
#include "kernels/zeros_like.h"
#include "ops/_to_copy.h"
#include "ops/clone.h"
#include "ops/diagonal.h"
#include "ops/empty.h"
#include "ops/empty_like.h"
#include "ops/empty_strided.h"
#include "ops/expand.h"
#include "ops/fill_Scalar.h"

namespace torchlite {

// fill(self, value) for a 0-dim tensor value: value cast to self's dtype and device, broadcast to self's shape (a
// fresh tensor: autograd sums the gradient back into value).
Tensor composite::fill_Tensor(const Tensor& self, const Tensor& value) {
  return clone(expand(_to_copy(value, self.scalar_type(), self.device()), self.sizes()));
}

Tensor composite::full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
                       std::optional<Device> device) {
  // Without a dtype, the result follows fill_value: bool, int64, the default float dtype or its complex one.
  ScalarType t = dtype.value_or(fill_value.is_bool()                 ? ScalarType::Bool
                                : fill_value.is_integral(false)      ? ScalarType::Int64
                                : fill_value.is_complex()            ? to_complex_type(default_dtype())
                                                                     : default_dtype());
  check_scalar_fits("full", fill_value, t);  // before allocating
  // The functional fill writes a fresh tensor, so the result starts at _version 0.
  return torchlite::fill(torchlite::empty(size, t, device), fill_value);
}

Tensor composite::zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return composite::full(size, int64_t(0), dtype.value_or(default_dtype()), device);
}

Tensor composite::ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return composite::full(size, int64_t(1), dtype.value_or(default_dtype()), device);
}

// *_like: self's shape (and strides when dense), dtype and device unless given.
Tensor composite::zeros_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return torchlite::fill_(torchlite::empty_like(self, dtype, device), int64_t(0));
}

Tensor composite::ones_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return torchlite::fill_(torchlite::empty_like(self, dtype, device), int64_t(1));
}

Tensor composite::full_like(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                            std::optional<Device> device) {
  check_scalar_fits("full_like", fill_value, dtype.value_or(self.scalar_type()));  // before allocating
  return torchlite::fill_(torchlite::empty_like(self, dtype, device), fill_value);
}

// new_*: a fresh tensor of the given size with self's dtype and device unless given.
Tensor composite::new_empty(const Tensor& self, IntArrayRef size, std::optional<ScalarType> dtype,
                            std::optional<Device> device) {
  return torchlite::empty(size, dtype.value_or(self.scalar_type()), device.value_or(self.device()));
}

Tensor composite::new_empty_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                                    std::optional<ScalarType> dtype, std::optional<Device> device) {
  return torchlite::empty_strided(size, stride, dtype.value_or(self.scalar_type()), device.value_or(self.device()));
}

Tensor composite::new_zeros(const Tensor& self, IntArrayRef size, std::optional<ScalarType> dtype,
                            std::optional<Device> device) {
  return composite::full(size, int64_t(0), dtype.value_or(self.scalar_type()), device.value_or(self.device()));
}

Tensor composite::new_ones(const Tensor& self, IntArrayRef size, std::optional<ScalarType> dtype,
                           std::optional<Device> device) {
  return composite::full(size, int64_t(1), dtype.value_or(self.scalar_type()), device.value_or(self.device()));
}

Tensor composite::new_full(const Tensor& self, IntArrayRef size, const Scalar& fill_value,
                           std::optional<ScalarType> dtype, std::optional<Device> device) {
  return composite::full(size, fill_value, dtype.value_or(self.scalar_type()), device.value_or(self.device()));
}

Tensor composite::eye(int64_t n, std::optional<int64_t> m, std::optional<ScalarType> dtype,
                      std::optional<Device> device) {
  TL_CHECK(n >= 0, "eye: n must be greater or equal to 0, got ", n);
  const int64_t cols = m.value_or(n);
  TL_CHECK(cols >= 0, "eye: m must be greater or equal to 0, got ", cols);
  const DimVector size{n, cols};
  Tensor r = composite::zeros(size.ref(), dtype, device);
  torchlite::fill_(torchlite::diagonal(r, 0, 0, 1), int64_t(1));
  return r;
}

}  // namespace torchlite
