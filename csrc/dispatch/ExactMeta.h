#pragma once
// The output meta most hand-written meta functions return: given sizes, the dtype and device of a tensor
// `like`, and an out= target that must have exactly that dtype (as PyTorch's matrix products, losses,
// softmax and convolutions require).
#include "dispatch/Meta.h"

namespace torchlite {

inline TensorMeta exact_meta(DimVector sizes, const Tensor& like, ScalarType dtype) {
  TensorMeta m;
  m.sizes = std::move(sizes);
  m.dtype = dtype;
  m.device = like.device();
  m.exact_dtype = true;
  return m;
}

inline TensorMeta exact_meta(DimVector sizes, const Tensor& like) {
  return exact_meta(std::move(sizes), like, like.scalar_type());
}

}  // namespace torchlite
