#include "autograd/CopySlices.h"

#include "autograd/AutogradMeta.h"
#include "autograd/GradMode.h"
#include "core/Error.h"
#include "ops/_conj.h"
#include "ops/as_strided.h"
#include "ops/clone.h"
#include "ops/conj.h"
#include "ops/copy.h"
#include "ops/empty_strided.h"
#include "ops/fill.h"

namespace torchlite::autograd {

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
    : base_sizes_(base.sizes().vec()),
      base_strides_(base.strides().vec()),
      view_sizes_(view.sizes().vec()),
      view_strides_(view.strides().vec()),
      view_offset_(view.storage_offset() - base.storage_offset()),
      conj_(view.is_conj() != base.is_conj()),
      fn_(std::move(fn)) {
  add_input_meta(base);
  // Input 0 of fn was the view's old value, whose gradient goes to the base's old history here.
  next_edges_.push_back(gradient_edge(base));
  for (size_t i = 1; i < fn_->next_edges().size(); ++i) next_edges_.push_back(fn_->next_edges()[i]);
}

variable_list CopySlices::apply(variable_list&& grads) {
  const Tensor& grad = grads[0];
  // The gradient in the base's layout, so the view's geometry addresses it.
  Tensor result = empty_strided(base_sizes_, base_strides_, grad.scalar_type(), grad.device());
  copy_(result, grad);
  Tensor slice = as_strided(result, view_sizes_, view_strides_, view_offset_);
  // The view's values are the conjugates of the base's there when conj_: so are the gradients, both ways.
  variable_list fn_grads = fn_->apply({clone(conj_ ? conj(slice) : slice)});
  variable_list out(num_outputs());
  if (!fn_grads.empty() && fn_grads[0].defined()) {
    copy_(slice, conj_ ? conj(fn_grads[0]) : fn_grads[0]);
  } else {
    fill_(slice, 0);
  }
  out[0] = result;
  for (size_t i = 1; i < out.size() && i < fn_grads.size(); ++i) out[i] = fn_grads[i];
  return out;
}

void rebase_view_history(const Tensor& view, const std::shared_ptr<Node>& node) {
  Tensor base(view.impl()->view_base());
  // A view of another dtype (view(dtype), view_as_real, real/imag) reinterprets its base's bits: no
  // derivative through the base (PyTorch's are not differentiable either), so an in-place write with history
  // into one is refused rather than recorded on the base with the wrong geometry.
  TL_CHECK_KIND(ErrorKind::NotImplemented, base.scalar_type() == view.scalar_type(), node->name(),
                ": an in-place write that records autograd history into a ", scalar_type_python_name(view.scalar_type()),
                " view of a ", scalar_type_python_name(base.scalar_type()),
                " tensor (view(dtype), view_as_real, real, imag) is not supported");
  auto slices = std::make_shared<CopySlices>(base, view, node);
  AutogradMeta& bm = materialize_meta(base);
  bm.grad_fn_ = slices;
  bm.output_nr_ = 0;
  bm.hooks_.reset();
  // The view is now base.as_strided(...) of the base's new history (conjugated when the view is).
  Tensor fresh = as_strided(base, view.sizes(), view.strides(), view.storage_offset());
  if (fresh.is_conj() != view.is_conj()) fresh = _conj(fresh);
  AutogradMeta& vm = materialize_meta(view);
  vm.grad_fn_ = grad_fn(fresh);
  vm.output_nr_ = 0;
  vm.hooks_.reset();
  view.impl()->set_view_version(view.impl()->version());
}

void refresh_view_slow(const Tensor& view) {
  TensorImpl* v = view.impl();
  v->set_view_version(v->version());
  Tensor base(v->view_base());
  AutogradMeta* bm = get_meta(base);
  if (!bm || !bm->requires_grad()) return;  // no history to follow
  if (base.scalar_type() != view.scalar_type()) return;  // a view of another dtype: not differentiable
  Tensor fresh;
  {
    // Recorded whatever the mode: the history is the view's, made now only because it is read now.
    GradModeGuard grad(true);
    ModeState& mode = mode_state();
    const bool below = mode.below_autograd;
    mode.below_autograd = false;
    try {
      fresh = as_strided(base, view.sizes(), view.strides(), view.storage_offset());
      if (fresh.is_conj() != view.is_conj()) fresh = _conj(fresh);
    } catch (...) {
      mode.below_autograd = below;
      throw;
    }
    mode.below_autograd = below;
  }
  AutogradMeta& vm = materialize_meta(view);
  vm.grad_fn_ = grad_fn(fresh);
  vm.output_nr_ = 0;
  vm.hooks_.reset();
}

}  // namespace torchlite::autograd
