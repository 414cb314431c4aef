// Composite pointwise ops: written with other torchlite ops.
#include <limits>

#include "kernels/clamp_Tensor.h"
#include "kernels/clip.h"
#include "kernels/div_Tensor_mode.h"
#include "kernels/nan_to_num.h"
#include "kernels/positive.h"
#include "kernels/square.h"
#include "ops/_div_trunc.h"
#include "ops/_nan_to_num.h"
#include "ops/clone.h"
#include "ops/clamp.h"
#include "ops/div_Tensor.h"
#include "ops/floor_divide.h"
#include "ops/maximum.h"
#include "ops/minimum.h"
#include "ops/pow_Tensor_Scalar.h"
#include "ops/resolve_conj.h"
#include "ops/view_as_complex.h"
#include "ops/view_as_real.h"

namespace torchlite {

Tensor composite::div_Tensor_mode(const Tensor& self, const Tensor& other,
                                  std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode.has_value()) return torchlite::div(self, other);
  if (*rounding_mode == "trunc") return torchlite::_div_trunc(self, other);
  if (*rounding_mode == "floor") return torchlite::floor_divide(self, other);
  TL_ERROR("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *rounding_mode, "'");
}

Tensor composite::square(const Tensor& self) { return torchlite::pow(self, int64_t(2)); }

Tensor composite::clamp_Tensor(const Tensor& self, const std::optional<Tensor>& min,
                               const std::optional<Tensor>& max) {
  TL_CHECK(min.has_value() || max.has_value(), "clamp: At least one of 'min' or 'max' must not be None");
  if (!max.has_value()) return torchlite::maximum(self, *min);
  if (!min.has_value()) return torchlite::minimum(self, *max);
  return torchlite::minimum(torchlite::maximum(self, *min), *max);
}

Tensor composite::clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return torchlite::clamp(self, min, max);
}

// Integer and bool tensors hold no NaN or infinity: they are copied. Floating
// ones default +-inf to the dtype's largest finite values.
Tensor composite::nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                             std::optional<double> neginf) {
  double big;
  switch (self.scalar_type()) {
    case ScalarType::Half: big = 65504.0; break;
    case ScalarType::BFloat16: big = 3.3895313892515355e38; break;
    case ScalarType::Float: big = std::numeric_limits<float>::max(); break;
    case ScalarType::Double: big = std::numeric_limits<double>::max(); break;
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble:  // each part on its own, as PyTorch
      return torchlite::view_as_complex(
          composite::nan_to_num(torchlite::view_as_real(torchlite::resolve_conj(self)), nan, posinf, neginf));
    default: return torchlite::clone(self);
  }
  return torchlite::_nan_to_num(self, nan.value_or(0.0), posinf.value_or(big), neginf.value_or(-big));
}

Tensor composite::positive(const Tensor& self) { return self; }

}  // namespace torchlite
