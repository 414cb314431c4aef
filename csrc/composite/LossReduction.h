#pragma once
// The losses' reduction argument (PyTorch's at::Reduction: 0 none, 1 mean, 2 sum) applied to a loss of
// per-element values.
#include "core/Error.h"
#include "core/TensorFactory.h"
#include "ops/div_Tensor.h"
#include "ops/sum.h"

namespace torchlite::loss {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

inline void check_reduction(const char* op, int64_t reduction) {
  TL_CHECK(reduction >= kNone && reduction <= kSum, op, ": reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
           reduction);
}

inline Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == kNone) return loss;
  Tensor total = torchlite::sum(loss);
  if (reduction == kSum) return total;
  return torchlite::div(total, scalar_to_tensor(Scalar(static_cast<double>(loss.numel())), /*wrapped=*/true));
}

}  // namespace torchlite::loss
