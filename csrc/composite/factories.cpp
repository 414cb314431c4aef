// Composite factories: written with other torchlite ops.
#include "kernels/full.h"
#include "kernels/ones.h"
#include "kernels/zeros.h"
#include "ops/empty.h"
#include "ops/fill_Scalar.h"

namespace torchlite {

Tensor composite::full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
                       std::optional<Device> device) {
  // Without a dtype, the result follows fill_value: bool, int64 or the default float dtype.
  ScalarType t = dtype.value_or(fill_value.is_bool()                 ? ScalarType::Bool
                                : fill_value.is_integral(false)      ? ScalarType::Int64
                                                                     : default_dtype());
  // The functional fill writes a fresh tensor, so the result starts at _version 0.
  return torchlite::fill(torchlite::empty(size, t, device), fill_value);
}

Tensor composite::zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return composite::full(size, int64_t(0), dtype.value_or(default_dtype()), device);
}

Tensor composite::ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return composite::full(size, int64_t(1), dtype.value_or(default_dtype()), device);
}

}  // namespace torchlite
