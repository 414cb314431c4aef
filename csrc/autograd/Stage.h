#pragma once
// The autograd stage of the generated call path: whether to record, and the
// checks and helpers the generated recording code shares.
#include <optional>
#include <vector>

#include "autograd/AutogradMeta.h"
#include "autograd/FormulaOps.h"
#include "autograd/GradMode.h"
#include "autograd/Node.h"
#include "autograd/SavedValue.h"
#include "autograd/SavedVariable.h"
#include "core/Tensor.h"
#include "dispatch/OpInfo.h"

namespace torchlite::autograd {

inline bool requires_grad_of(const Tensor& t) {
  return t.defined() && t.impl()->autograd_meta() != nullptr && t.requires_grad();
}
inline bool requires_grad_of(const std::optional<Tensor>& t) { return t.has_value() && requires_grad_of(*t); }
inline bool requires_grad_of(ArrayRef<Tensor> ts) {
  for (const Tensor& t : ts)
    if (requires_grad_of(t)) return true;
  return false;
}
inline bool requires_grad_of(ArrayRef<std::optional<Tensor>> ts) {
  for (const auto& t : ts)
    if (requires_grad_of(t)) return true;
  return false;
}

// Record this call? Only when an input requires grad, grad mode is on, and we
// are not already below autograd (inside a recorded op's own computation).
template <typename... Ts>
bool needs_autograd(const Ts&... tensors) {
  if (!(requires_grad_of(tensors) || ...)) return false;
  const ModeState& m = mode_state();
  return m.grad_enabled && !m.below_autograd;
}

// In-place on `self` while recording: a leaf that requires grad is refused, as
// is a view (its base's history would need updating: not supported yet).
void check_inplace(const OpInfo& op, const Tensor& self);
// out= while an argument requires grad: refused, as PyTorch does.
[[noreturn]] void throw_out_not_differentiable(const OpInfo& op);

// Multi-output nodes: an output nobody used gets a zero gradient.
void zero_fill(variable_list& grads, const Node& node, std::initializer_list<size_t> outputs);

}  // namespace torchlite::autograd
