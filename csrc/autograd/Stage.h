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
  if (!t.defined()) return false;
  refresh_view(t);
  return t.impl()->autograd_meta() != nullptr && t.requires_grad();
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

inline bool has_tangent(const Tensor& t) { return tangent_of(t).defined(); }
inline bool has_tangent(const std::optional<Tensor>& t) { return t.has_value() && has_tangent(*t); }
inline bool has_tangent(ArrayRef<Tensor> ts) {
  for (const Tensor& t : ts)
    if (has_tangent(t)) return true;
  return false;
}
inline bool has_tangent(ArrayRef<std::optional<Tensor>> ts) {
  for (const auto& t : ts)
    if (has_tangent(t)) return true;
  return false;
}

// Record a backward node? When an input requires grad, grad mode is on, and we
// are not already below autograd (inside a recorded op's own computation).
template <typename... Ts>
bool records_backward(const Ts&... tensors) {
  if (!(requires_grad_of(tensors) || ...)) return false;
  const ModeState& m = mode_state();
  return m.grad_enabled && !m.below_autograd;
}
// Compute a forward-mode tangent? When an input carries one at the active dual level.
template <typename... Ts>
bool computes_tangent(const Ts&... tensors) {
  return current_dual_level() != 0 && !mode_state().below_autograd && (has_tangent(tensors) || ...);
}
// The autograd stage runs when either does.
template <typename... Ts>
bool needs_autograd(const Ts&... tensors) {
  return records_backward(tensors...) || computes_tangent(tensors...);
}

// An input's tangent, or zeros like it (a linear op's tangent takes every input's).
Tensor zeros_like_tensor(const Tensor& t);
inline Tensor tangent_or_zeros(const Tensor& t) {
  Tensor g = tangent_of(t);
  return g.defined() ? g : zeros_like_tensor(t);
}
// An elementwise op's summed tangent in the output's shape and dtype (one input's term may be smaller; a
// complex one's real part for a real output).
Tensor fit_tangent(const Tensor& tangent, const Tensor& out);

inline bool is_complex_value(const Tensor& t) { return t.defined() && is_complex_type(t.scalar_type()); }
inline bool is_complex_value(const std::optional<Tensor>& t) { return t.has_value() && is_complex_value(*t); }
inline bool is_complex_value(ArrayRef<Tensor> ts) {
  for (const Tensor& t : ts)
    if (is_complex_value(t)) return true;
  return false;
}
inline bool is_complex_value(ArrayRef<std::optional<Tensor>> ts) {
  for (const auto& t : ts)
    if (is_complex_value(t)) return true;
  return false;
}
// Forward mode through an op whose formulas are for real numbers (no `complex_autograd` tag): refused when
// an input or a result is complex, as backward refuses its node (no silently wrong tangent).
[[noreturn]] void throw_no_complex_forward_ad(const OpInfo& op);
template <typename... Ts>
void check_real_tangents(const OpInfo& op, const Ts&... tensors) {
  if ((is_complex_value(tensors) || ...)) throw_no_complex_forward_ad(op);
}
// `jvp: elementwise` on complex numbers. The backward formula B(g) is the adjoint J^H g of the op's
// Jacobian (PyTorch's convention); for a holomorphic op (J t = f'(z) t, B(g) = g conj(f'(z))), and for a
// complex-to-real one (its real part taken by fit_tangent), J t = conj(B(conj(t))): the term is
// conj_result(formula at grad = conj_tangent(t)). Both are no-ops on real tensors.
inline bool complex_jvp(const Tensor& tangent, const Tensor& out) {
  return is_complex_value(tangent) || is_complex_value(out);
}
Tensor conj_tangent(const Tensor& t);  // conj(t) for complex t, else t
Tensor conj_result(const Tensor& t);   // its values conjugated (not a lazy view) for complex t, else t
// In-place ops under forward AD. Before the op: self's tangent (refused when self is a view without one:
// its base's tangent could not follow). After it, with self's new tangent set: a view writes the new
// tangent into its old one, a view of its base's tangent, so the base sees the change.
Tensor prepare_inplace_tangent(const OpInfo& op, const Tensor& self);
void finish_inplace_tangent(const Tensor& self, const Tensor& old_tangent);
// Forward AD reached an op without a jvp.
[[noreturn]] void throw_no_forward_ad(const OpInfo& op);

// In-place on `self` while recording: a leaf that requires grad is refused, as
// is a view (its base's history would need updating: not supported yet).
void check_inplace(const OpInfo& op, const Tensor& self);
// out= while an argument requires grad (backward) or carries a tangent: refused, as PyTorch does.
[[noreturn]] void throw_out_not_differentiable(const OpInfo& op, bool backward);

// Multi-output nodes: an output nobody used gets a zero gradient.
void zero_fill(variable_list& grads, const Node& node, std::initializer_list<size_t> outputs);

}  // namespace torchlite::autograd
