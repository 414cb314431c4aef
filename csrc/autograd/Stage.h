#pragma once
// The autograd stage of the generated call path. The autograd issue makes it
// record a Node; until then a tensor cannot require grad, so the stage is only
// the check below.
#include <initializer_list>

#include "autograd/GradMode.h"
#include "core/Tensor.h"
#include "dispatch/OpInfo.h"

namespace torchlite::autograd {

inline bool needs_autograd(std::initializer_list<const Tensor*> tensors) {
  bool any = false;
  for (const Tensor* t : tensors) any |= t->defined() && t->impl()->autograd_meta() != nullptr && t->requires_grad();
  if (!any) return false;
  const ModeState& m = mode_state();
  return m.grad_enabled && !m.below_autograd;
}

[[noreturn]] void throw_not_implemented(const OpInfo& op);

}  // namespace torchlite::autograd
