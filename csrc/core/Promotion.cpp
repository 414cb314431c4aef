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
    // A Python float promotes like the default dtype, not like double; a Python complex like the default
    // complex dtype (complex64, or complex128 when the default dtype is float64).
    if (is_complex_type(current)) current = to_complex_type(default_dtype());
    else if (is_floating_type(current)) current = default_dtype();
    state.wrapped_result = promote_skip_undefined(state.wrapped_result, current);
  } else if (t.dim() == 0) {
    state.zero_result = promote_skip_undefined(state.zero_result, current);
  } else {
    state.dim_result = promote_skip_undefined(state.dim_result, current);
  }
}

void update_result_type(ResultTypeState& state, const Scalar& s) {
  ScalarType current = s.is_complex()         ? to_complex_type(default_dtype())
                       : s.is_floating_point() ? default_dtype()
                                               : s.type();
  state.wrapped_result = promote_skip_undefined(state.wrapped_result, current);
}

static ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_complex_type(higher)) return higher;
  // A complex number of a lower category keeps a floating higher's precision (float64 + 1j: complex128;
  // float16 + 1j: complex64, torchlite having no complex32); an integral higher takes the complex as is.
  if (is_complex_type(lower)) return is_floating_type(higher) ? to_complex_type(higher) : lower;
  if (is_floating_type(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating_type(lower)) return promote_skip_undefined(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}

ScalarType result_type(const ResultTypeState& state) {
  return combine_categories(state.dim_result, combine_categories(state.zero_result, state.wrapped_result));
}

}  // namespace torchlite
