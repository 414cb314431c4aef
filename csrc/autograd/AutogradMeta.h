#pragma once
// What autograd knows about one tensor: whether it requires grad, its .grad,
// the node that produced it (grad_fn and output number) or, for a leaf, its
// gradient accumulator, and its hooks. Lives in TensorImpl's autograd-meta slot,
// created on first use.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "autograd/Node.h"
#include "core/Tensor.h"

namespace torchlite::autograd {

struct AutogradMeta final : AutogradMetaInterface {
  explicit AutogradMeta(TensorImpl* owner);
  ~AutogradMeta() override;

  bool requires_grad() const override { return requires_grad_ || grad_fn_ != nullptr; }

  bool requires_grad_ = false;  // set on leaves by the user
  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;  // leaves only; the accumulator holds the tensor
  uint32_t output_nr_ = 0;
  std::shared_ptr<TensorHookList> hooks_;  // made on first register_hook/retain_grad
  using PostAccumulateHook = std::function<void(const Tensor&)>;
  std::vector<std::pair<int64_t, PostAccumulateHook>> post_accumulate_hooks_;
  std::mutex mutex_;  // guards grad_ and grad_accumulator_ across threads
  // Forward mode: the tangent, valid while dual level `fw_level_` is the active one.
  Tensor fw_grad_;
  uint64_t fw_level_ = 0;
};

// The tensor's meta, or nullptr.
inline AutogradMeta* get_meta(const Tensor& t) {
  return t.defined() ? static_cast<AutogradMeta*>(t.impl()->autograd_meta()) : nullptr;
}
// The tensor's meta, created if missing.
AutogradMeta& materialize_meta(const Tensor& t);

// A view whose base was written in place after its history was recorded (by an op on the base or on
// another view of it) gets a fresh history: an as_strided of the base's current one, as in PyTorch.
// Every read of a view's history (requires_grad, grad_fn, gradient edges) refreshes it first.
void refresh_view_slow(const Tensor& view);
inline void refresh_view(const Tensor& t) {
  if (TL_UNLIKELY(t.defined() && t.impl()->view_is_stale())) refresh_view_slow(t);
}

inline const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  static const std::shared_ptr<Node> none;
  refresh_view(t);
  AutogradMeta* m = get_meta(t);
  return m ? m->grad_fn_ : none;
}
inline bool is_leaf(const Tensor& t) { return !grad_fn(t); }

// requires_grad_(): floating dtypes only, leaves only (PyTorch's messages).
void set_requires_grad(const Tensor& t, bool requires_grad);

// The leaf's accumulator, made on first use (the meta keeps a weak reference).
std::shared_ptr<Node> grad_accumulator(const Tensor& t);
// Where t's gradient goes: (grad_fn, output_nr), the accumulator of a leaf that
// requires grad, or an invalid edge.
Edge gradient_edge(const Tensor& t);

// Records `node` as the producer of output `output_nr` (an output of a floating
// dtype; integer outputs never require grad). The node already has the output's
// InputMeta (Node::add_input_meta, for every output in order).
void set_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t output_nr);
// In-place: t's history becomes `node` (output 0).
void rebase_history(const Tensor& t, const std::shared_ptr<Node>& node);

// A tensor sharing t's data and version counter, without autograd history.
Tensor detach(const Tensor& t);

// The hook list of t, made on first use (and attached to t's grad_fn).
std::shared_ptr<TensorHookList> tensor_hooks(const Tensor& t);

// Forward-mode AD (torchlite.autograd.forward_ad): one dual level at a time. A
// tangent belongs to the level it was set in and is gone once that level exits.
extern std::atomic<uint64_t> g_dual_level;  // the active level, 0 for none
inline uint64_t current_dual_level() { return g_dual_level.load(std::memory_order_relaxed); }
uint64_t enter_dual_level();  // raises if one is active (nesting is not supported)
void exit_dual_level(uint64_t level);
// t's tangent at the active level, or undefined.
inline Tensor tangent_of(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  const uint64_t level = current_dual_level();
  return m && level && m->fw_level_ == level ? m->fw_grad_ : Tensor();
}
void set_tangent(const Tensor& t, const Tensor& tangent);  // at the active level

// Live TensorImpl count is in core; this counts metas (for leak tests).
int64_t live_meta_count();

}  // namespace torchlite::autograd
