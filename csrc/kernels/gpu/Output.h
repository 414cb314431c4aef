#pragma once
// The tensor a hand-written kernel writes its result into: out itself when contiguous, else a contiguous
// temporary that finish() then copies into out (with copy_cast, on out's device).
#include "core/TensorFactory.h"
#include "kernels/ElementwiseIter.h"

namespace torchlite::gpu {

inline Tensor target_for(const Tensor& out) {
  return out.is_contiguous() ? out : empty_tensor(out.sizes(), out.scalar_type(), out.device());
}

inline void finish(const Tensor& out, const Tensor& result) {
  if (!result.is_same(out)) copy_cast(out, result);
}

}  // namespace torchlite::gpu
