#pragma once
// A node of the backward graph: one recorded op. It receives the gradients of
// the op's outputs (its "inputs" here, one per forward output) and returns the
// gradients of the op's differentiable inputs, one per next edge.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/Device.h"
#include "core/ScalarType.h"
#include "core/Tensor.h"

namespace torchlite::autograd {

class Node;
struct SavedValue;
using variable_list = std::vector<Tensor>;

// Where a gradient goes: input `input_nr` of `function`. An invalid edge (no
// function) stands for an input that needs no gradient.
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool valid() const { return static_cast<bool>(function); }
};

// Shape, dtype and device of one forward output: the engine reduces and casts
// every incoming gradient to it, once, so formulas never do.
struct InputMeta {
  std::vector<int64_t> sizes;
  ScalarType dtype = ScalarType::Float;
  Device device;
};

// Hooks a tensor registered (register_hook, retain_grad). Shared by the
// tensor's AutogradMeta and the node that produced it, so the node holds no
// reference to the tensor: `owner` is cleared when the tensor dies.
using TensorHook = std::function<Tensor(const Tensor&)>;  // undefined result: keep the gradient
struct TensorHookList {
  TensorImpl* owner = nullptr;
  bool retains_grad = false;
  std::vector<std::pair<int64_t, TensorHook>> hooks;  // (handle id, hook), in registration order
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  virtual std::string name() const = 0;
  // Whether the node's formulas are right for complex tensors (PyTorch's convention: grad * conj(f'(z))).
  // set_history refuses to record a node that does not with a complex input or result.
  virtual bool supports_complex() const { return false; }
  // Gradients of the outputs in, gradients of the inputs (one per next edge) out.
  virtual variable_list apply(variable_list&& grads) = 0;
  // Frees the saved tensors once backward is done (unless retain_graph).
  virtual void release_variables() {}
  // Names of the saved values, for `grad_fn._saved_<name>`.
  virtual std::vector<std::string> saved_names() const { return {}; }
  // The saved value `name` (false if there is none by that name).
  virtual bool saved_value(const std::string& name, SavedValue& out) { (void)name, (void)out; return false; }

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  void set_next_edges(std::vector<Edge> edges) { next_edges_ = std::move(edges); }
  size_t num_outputs() const { return next_edges_.size(); }
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].valid(); }
  bool should_compute_any(size_t first, size_t count) const;

  size_t num_inputs() const { return input_meta_.size(); }
  const InputMeta& input_meta(size_t i) const { return input_meta_[i]; }
  uint32_t add_input_meta(const Tensor& t);

  uint64_t sequence_nr() const { return sequence_nr_; }

  // Pre-hooks of the tensors this node produced, by output number.
  void add_tensor_hooks(uint32_t output_nr, std::shared_ptr<TensorHookList> hooks);
  const std::vector<std::pair<uint32_t, std::shared_ptr<TensorHookList>>>& tensor_hooks() const {
    return tensor_hooks_;
  }

  // Hooks on the node itself (grad_fn.register_hook / register_prehook).
  using PreHook = std::function<variable_list(const variable_list&)>;  // empty result: keep
  using PostHook = std::function<variable_list(const variable_list&, const variable_list&)>;
  std::vector<PreHook>& pre_hooks() { return pre_hooks_; }
  std::vector<PostHook>& post_hooks() { return post_hooks_; }

  static int64_t live_count();

 protected:
  std::vector<Edge> next_edges_;
  std::vector<InputMeta> input_meta_;

 private:
  uint64_t sequence_nr_;
  std::vector<std::pair<uint32_t, std::shared_ptr<TensorHookList>>> tensor_hooks_;
  std::vector<PreHook> pre_hooks_;
  std::vector<PostHook> post_hooks_;
};

}  // namespace torchlite::autograd
