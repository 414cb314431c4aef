#pragma once
// PyTorch's result_type: tensors with dims outrank 0-dim tensors, which outrank
// wrapped Python numbers, within the same category (bool < integral < floating < complex).
#include <optional>

#include "core/Scalar.h"
#include "core/Tensor.h"

namespace torchlite {

struct ResultTypeState {
  ScalarType dim_result = ScalarType::Undefined;
  ScalarType zero_result = ScalarType::Undefined;
  ScalarType wrapped_result = ScalarType::Undefined;
};

void update_result_type(ResultTypeState& state, const Tensor& t);
void update_result_type(ResultTypeState& state, const Scalar& s);
inline void update_result_type(ResultTypeState& state, const std::optional<Scalar>& s) {
  if (s.has_value()) update_result_type(state, *s);
}
ScalarType result_type(const ResultTypeState& state);

}  // namespace torchlite
