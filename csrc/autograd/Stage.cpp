#include "autograd/Stage.h"

#include "core/Error.h"
#include "ops/zeros.h"

namespace torchlite::autograd {

void check_inplace(const OpInfo& op, const Tensor& self) {
  AutogradMeta* m = get_meta(self);
  TL_CHECK(!(m && !m->grad_fn_ && m->requires_grad_),
           "a leaf Variable that requires grad is being used in an in-place operation.");
  if (self.is_view()) {
    AutogradMeta* b = get_meta(Tensor(self.impl()->view_base()));
    TL_CHECK(!(b && !b->grad_fn_ && b->requires_grad_),
             "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  (void)op;
}

void throw_out_not_differentiable(const OpInfo& op) {
  TL_ERROR(op.name, "(): functions with out=... arguments don't support automatic differentiation, but one of the "
                    "arguments requires grad.");
}

void zero_fill(variable_list& grads, const Node& node, std::initializer_list<size_t> outputs) {
  for (size_t i : outputs) {
    if (i >= grads.size() || grads[i].defined()) continue;
    const InputMeta& m = node.input_meta(i);
    grads[i] = zeros(m.sizes, m.dtype, m.device);
  }
}

}  // namespace torchlite::autograd
