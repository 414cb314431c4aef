#include "autograd/AutogradMeta.h"

#include <atomic>

#include "autograd/CopySlices.h"
#include "autograd/Functions.h"
#include "core/TensorFactory.h"

namespace torchlite::autograd {

namespace {
std::atomic<int64_t> g_live_metas{0};
}

AutogradMeta::AutogradMeta(TensorImpl*) { g_live_metas.fetch_add(1, std::memory_order_relaxed); }

AutogradMeta::~AutogradMeta() {
  if (hooks_) hooks_->owner = nullptr;
  g_live_metas.fetch_sub(1, std::memory_order_relaxed);
}

int64_t live_meta_count() { return g_live_metas.load(std::memory_order_relaxed); }

std::atomic<uint64_t> g_dual_level{0};
static std::atomic<uint64_t> g_last_dual_level{0};

uint64_t enter_dual_level() {
  TL_CHECK(current_dual_level() == 0, "Nested forward mode AD is not supported at the moment");
  const uint64_t level = ++g_last_dual_level;
  g_dual_level.store(level);
  return level;
}

void exit_dual_level(uint64_t level) {
  TL_CHECK(current_dual_level() == level, "Trying to exit a forward AD level that was not the last one created.");
  g_dual_level.store(0);
}

void set_tangent(const Tensor& t, const Tensor& tangent) {
  const uint64_t level = current_dual_level();
  TL_CHECK(level != 0, "forward AD: a tangent can only be set inside a dual_level context");
  AutogradMeta& m = materialize_meta(t);
  m.fw_grad_ = tangent;
  m.fw_level_ = tangent.defined() ? level : 0;
}

AutogradMeta& materialize_meta(const Tensor& t) {
  TL_CHECK(t.defined(), "autograd: undefined tensor");
  if (AutogradMeta* m = get_meta(t)) return *m;
  auto m = std::make_unique<AutogradMeta>(t.impl());
  AutogradMeta* raw = m.get();
  t.impl()->set_autograd_meta(std::move(m));
  return *raw;
}

void set_requires_grad(const Tensor& t, bool requires_grad) {
  AutogradMeta* m = get_meta(t);
  if (m && m->grad_fn_) {
    TL_CHECK(requires_grad,
             "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in "
             "a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return;
  }
  if (requires_grad) {
    TL_CHECK(!t.impl()->is_inference() || inference_mode_flag(),
             "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    TL_CHECK(is_floating_type(t.scalar_type()) || is_complex_type(t.scalar_type()),
             "only Tensors of floating point and complex dtype can require gradients");
    materialize_meta(t).requires_grad_ = true;
  } else if (m) {
    m->requires_grad_ = false;
  }
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& m = materialize_meta(t);
  std::lock_guard<std::mutex> lock(m.mutex_);
  if (auto acc = m.grad_accumulator_.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  m.grad_accumulator_ = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  refresh_view(t);
  AutogradMeta* m = get_meta(t);
  if (!m) return {};
  if (m->grad_fn_) return {m->grad_fn_, m->output_nr_};
  if (m->requires_grad_) return {grad_accumulator(t), 0};
  return {};
}

namespace {
// No silently wrong gradient: a node whose formulas are not written for complex numbers (no
// `complex_autograd` tag) refuses a complex result and complex inputs.
void check_complex_support(const Tensor& t, const Node& node) {
  if (node.supports_complex()) return;
  bool complex = is_complex_type(t.scalar_type());
  for (const Edge& e : node.next_edges()) {
    if (e.valid() && e.input_nr < e.function->num_inputs() &&
        is_complex_type(e.function->input_meta(e.input_nr).dtype)) {
      complex = true;
      break;
    }
  }
  TL_CHECK_KIND(ErrorKind::NotImplemented, !complex, "torchlite does not support autograd for complex tensors through ",
                node.name(), " yet (its derivative formulas are for real numbers)");
}
}  // namespace

void set_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  if (!t.defined()) return;
  check_complex_support(t, *node);
  if (!is_floating_type(t.scalar_type()) && !is_complex_type(t.scalar_type())) return;
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn_ = node;
  m.output_nr_ = output_nr;
  if (m.hooks_) node->add_tensor_hooks(output_nr, m.hooks_);
}

void rebase_history(const Tensor& t, const std::shared_ptr<Node>& node) {
  check_complex_support(t, *node);
  // an integer tensor written in place stays a leaf
  if (!is_floating_type(t.scalar_type()) && !is_complex_type(t.scalar_type())) return;
  if (t.is_view()) return rebase_view_history(t, node);
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn_ = node;
  m.output_nr_ = 0;
  // Hooks registered on the old value stay with the old node, as in PyTorch.
  m.hooks_.reset();
}

Tensor detach(const Tensor& t) {
  Tensor alias = make_alias(t, t.sizes(), t.strides(), t.storage_offset());
  alias.impl()->share_version_counter(*t.impl());
  return alias;
}

std::shared_ptr<TensorHookList> tensor_hooks(const Tensor& t) {
  AutogradMeta& m = materialize_meta(t);
  if (!m.hooks_) {
    m.hooks_ = std::make_shared<TensorHookList>();
    m.hooks_->owner = t.impl();
  }
  if (m.grad_fn_) {
    m.grad_fn_->add_tensor_hooks(m.output_nr_, m.hooks_);
  } else if (auto acc = m.grad_accumulator_.lock()) {
    acc->add_tensor_hooks(0, m.hooks_);  // a new accumulator picks them up itself
  }
  return m.hooks_;
}

}  // namespace torchlite::autograd
