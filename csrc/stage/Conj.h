#pragma once
// The conjugate bit in the generated call path (TensorImpl::is_conj). Kernels read memory as it is, so an op
// whose kernel is not written for the bit (every op but copy_ and the views) calls itself again with its
// conjugated inputs resolved (computed), and writes a conjugated in-place or out= target through copy_.
// Nothing changes for a call without conjugated tensors but one test of a flag per tensor argument.
#include <optional>
#include <vector>

#include "core/Tensor.h"

namespace torchlite::conj_view {

inline bool has_bit(const Tensor& t) { return t.defined() && t.impl()->is_conj(); }
inline bool has_bit(const std::optional<Tensor>& t) { return t.has_value() && has_bit(*t); }
inline bool has_bit(ArrayRef<Tensor> ts) {
  for (const Tensor& t : ts)
    if (has_bit(t)) return true;
  return false;
}
inline bool has_bit(ArrayRef<std::optional<Tensor>> ts) {
  for (const std::optional<Tensor>& t : ts)
    if (has_bit(t)) return true;
  return false;
}
inline bool has_bit(const std::optional<ArrayRef<Tensor>>& ts) { return ts.has_value() && has_bit(*ts); }

// Whether any of an op's Tensor arguments is a conjugated view.
template <typename... Ts>
bool any(const Ts&... ts) {
  return (has_bit(ts) || ...);
}

// The argument with its conjugation applied: t itself when it has no conjugate bit, else resolve_conj(t).
Tensor resolved(const Tensor& t);
std::optional<Tensor> resolved(const std::optional<Tensor>& t);
std::vector<Tensor> resolved(ArrayRef<Tensor> ts);
std::vector<std::optional<Tensor>> resolved(ArrayRef<std::optional<Tensor>> ts);

// An out= target as the kernel may write it: out itself, or an empty tensor of its dtype and device when out
// is a conjugated view (the result is then copied into out, conjugated, by copy_result).
Tensor out_value(const Tensor& out);

}  // namespace torchlite::conj_view
