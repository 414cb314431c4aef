#pragma once
// Pieces the composites share: numbers as wrapped 0-dim tensors, and the losses' reduction argument
// (PyTorch's at::Reduction: 0 none, 1 mean, 2 sum) applied to a loss of per-element values. The schema's default is 1 (mean), as ATen's schema says; PyTorch 2.13's Python
// bindings (torch._C._nn.mse_loss(a, b), torch.kl_div(a, b)...) reduce with 'none' when the argument is
// omitted. nn.functional always passes it, so F users see the same results either way.
#include "core/Error.h"
#include "core/TensorFactory.h"
#include "ops/div_Tensor.h"
#include "ops/sum.h"

namespace torchlite {

// A number as a wrapped 0-dim tensor: it promotes as a Python number does (the other operand's dtype wins).
inline Tensor number(const Scalar& s) { return scalar_to_tensor(s, /*wrapped=*/true); }

namespace loss {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

inline void check_reduction(const char* op, int64_t reduction) {
  TL_CHECK(reduction >= kNone && reduction <= kSum, op, ": reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
           reduction);
}

inline Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == kNone) return loss;
  Tensor total = torchlite::sum(loss);
  if (reduction == kSum) return total;
  return torchlite::div(total, number(static_cast<double>(loss.numel())));
}

}  // namespace loss
}  // namespace torchlite
