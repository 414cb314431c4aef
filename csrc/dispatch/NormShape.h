#pragma once
// The check that an input ends in normalized_shape (layer_norm, rms_norm), with PyTorch's message. Returns
// the number of elements a normalized row has.
#include <string>

#include "core/Error.h"
#include "core/Tensor.h"

namespace torchlite::norm {

inline int64_t check_normalized_shape(const Tensor& input, IntArrayRef normalized_shape) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  TL_CHECK(k >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
           "element, but got normalized_shape = ", to_string(normalized_shape));
  bool ok = input.dim() >= k;
  for (int64_t j = 0; ok && j < k; ++j) ok = input.size(input.dim() - k + j) == normalized_shape[j];
  if (!ok) {
    std::string expected = "[*";
    for (int64_t v : normalized_shape) expected += ", " + std::to_string(v);
    TL_ERROR("Given normalized_shape=", to_string(normalized_shape), ", expected input with shape ", expected,
             "], but got input of size", to_string(input.sizes()));
  }
  int64_t m = 1;
  for (int64_t v : normalized_shape) m *= v;
  return m;
}

inline void check_normalized_param(const char* name, const Tensor& p, IntArrayRef normalized_shape) {
  TL_CHECK(p.sizes().equals(normalized_shape), "Expected ", name, " to be of same shape as normalized_shape, but got ",
           name, " of shape ", to_string(p.sizes()), " and normalized_shape = ", to_string(normalized_shape));
}

}  // namespace torchlite::norm
