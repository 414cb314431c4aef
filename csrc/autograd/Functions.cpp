#include "autograd/Functions.h"

#include "autograd/AutogradMeta.h"
#include "autograd/GradMode.h"
#include "core/TensorFactory.h"
#include "ops/add.h"
#include "ops/clone.h"
#include "sparse/Coo.h"

namespace torchlite::autograd {

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  add_input_meta(variable_);
  if (AutogradMeta* m = get_meta(variable_); m && m->hooks_) add_tensor_hooks(0, m->hooks_);
}

// .grad may keep the incoming gradient itself only when nobody else holds it
// and it is a plain dense tensor (a later in-place accumulation must be able to
// write to it); otherwise it gets a copy.
static bool can_steal(const Tensor& g) {
  return g.impl()->use_count() == 1 && !g.is_view() && g.is_contiguous();
}

void accumulate_into_grad(const Tensor& t, const Tensor& grad, bool create_graph) {
  AutogradMeta& m = materialize_meta(t);
  std::lock_guard<std::mutex> lock(m.mutex_);
  if (TL_UNLIKELY(sparse::is_sparse(grad) || sparse::is_sparse(m.grad_))) {
    // Sparse gradients (nn.Embedding(sparse=True)) carry no history: sparse + sparse concatenates the parts,
    // and a dense operand makes the sum dense (in place into a dense .grad where that is allowed).
    if (!m.grad_.defined()) {
      m.grad_ = grad.impl()->use_count() == 1 ? grad : sparse::clone(grad);
    } else if (!sparse::is_sparse(m.grad_) && !is_grad_enabled() && !m.grad_.requires_grad()) {
      sparse::add_to_dense_(m.grad_, grad);
    } else {
      m.grad_ = sparse::add(m.grad_, grad);
    }
    return;
  }
  if (!m.grad_.defined()) {
    if (create_graph) {
      m.grad_ = grad;  // keeps its history: higher-order gradients flow through .grad
    } else {
      m.grad_ = can_steal(grad) ? detach(grad) : detach(clone(grad));
    }
  } else if (!is_grad_enabled() && !m.grad_.requires_grad()) {
    add_(m.grad_, grad);
  } else {
    m.grad_ = add(m.grad_, grad);
  }
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (grads.empty() || !grads[0].defined()) return {};
  Tensor g = std::move(grads[0]);
  grads.clear();
  accumulate_into_grad(variable_, g, is_grad_enabled());
  if (AutogradMeta* m = get_meta(variable_)) {
    auto hooks = m->post_accumulate_hooks_;  // a hook may register another
    for (auto& [id, hook] : hooks) hook(variable_);
  }
  return {};
}

GraphRoot::GraphRoot(std::vector<Edge> edges, variable_list grads) : grads_(std::move(grads)) {
  next_edges_ = std::move(edges);
}

}  // namespace torchlite::autograd
