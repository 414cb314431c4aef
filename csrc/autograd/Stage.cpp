#include "autograd/Stage.h"

#include "core/Error.h"
#include "ops/conj.h"
#include "ops/conj_physical.h"
#include "ops/copy.h"
#include "ops/real.h"
#include "ops/expand.h"
#include "ops/to.h"
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

void throw_out_not_differentiable(const OpInfo& op, bool backward) {
  if (backward)
    TL_ERROR(op.name, "(): functions with out=... arguments don't support automatic differentiation, but one of "
                      "the arguments requires grad.");
  TL_ERROR(op.name, "(): functions with out=... arguments don't support forward-mode automatic differentiation, "
                    "but one of the arguments has a tangent (forward_ad.make_dual).");
}

Tensor fit_tangent(const Tensor& tangent, const Tensor& out) {
  Tensor t = tangent;
  if (is_complex_value(t) && !is_complex_value(out)) t = real(t);
  if (!t.sizes().equals(out.sizes())) t = expand(t, out.sizes());
  if (t.scalar_type() != out.scalar_type()) t = to(t, out.scalar_type());
  return t;
}

Tensor zeros_like_tensor(const Tensor& t) { return zeros(t.sizes(), t.scalar_type(), t.device()); }

void throw_no_complex_forward_ad(const OpInfo& op) {
  throw_error(ErrorKind::NotImplemented,
              str("torchlite does not support forward-mode AD of complex tensors through ", op.name,
                  op.overload[0] ? "." : "", op.overload,
                  " yet (its derivative formulas are for real numbers)"));
}

Tensor conj_tangent(const Tensor& t) { return is_complex_value(t) ? conj(t) : t; }
Tensor conj_result(const Tensor& t) { return is_complex_value(t) ? conj_physical(t) : t; }

void throw_no_forward_ad(const OpInfo& op) {
  throw_error(ErrorKind::NotImplemented,
              str("Trying to use forward AD with ", op.name, op.overload[0] ? "." : "", op.overload,
                  " that does not support it because it has not been implemented yet (it needs a jvp: in "
                  "native_functions.yaml)."));
}

Tensor prepare_inplace_tangent(const OpInfo& op, const Tensor& self) {
  Tensor old = tangent_of(self);
  if (self.is_view() && !old.defined())
    throw_error(ErrorKind::NotImplemented,
                str(op.name, "_(): forward AD of an in-place op on a view without a tangent (while another argument "
                             "has one) is not supported: give the base a tangent (make_dual) before taking the view"));
  return old;
}

void finish_inplace_tangent(const Tensor& self, const Tensor& old_tangent) {
  if (!self.is_view() || !old_tangent.defined()) return;
  BelowAutogradGuard below;
  copy_(old_tangent, tangent_of(self));
  set_tangent(self, old_tangent);
}

void zero_fill(variable_list& grads, const Node& node, std::initializer_list<size_t> outputs) {
  for (size_t i : outputs) {
    if (i >= grads.size() || grads[i].defined()) continue;
    const InputMeta& m = node.input_meta(i);
    grads[i] = zeros(m.sizes, m.dtype, m.device);
  }
}

}  // namespace torchlite::autograd
