#include "core/Promotion.h"

namespace torchlite {

static ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}

void update_result_type(ResultTypeState& state, const Tensor& t) {
  ScalarType current = t.scalar_type();
  if (t.is_wrapped_number()) {
    // A Python float promotes like the default dtype, not like double.
    if (is_floating_type(current)) current = default_dtype();
    state.wrapped_result = promote_skip_undefined(state.wrapped_result, current);
  } else if (t.dim() == 0) {
    state.zero_result = promote_skip_undefined(state.zero_result, current);
  } else {
    state.dim_result = promote_skip_undefined(state.dim_result, current);
  }
}

void update_result_type(ResultTypeState& state, const Scalar& s) {
  ScalarType current = s.is_floating_point() ? default_dtype() : s.type();
  state.wrapped_result = promote_skip_undefined(state.wrapped_result, current);
}

static ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_floating_type(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating_type(lower)) return promote_skip_undefined(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}

ScalarType result_type(const ResultTypeState& state) {
  return combine_categories(state.dim_result, combine_categories(state.zero_result, state.wrapped_result));
}

}  // namespace torchlite
