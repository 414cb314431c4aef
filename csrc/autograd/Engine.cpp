#include "autograd/Engine.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/AutogradMeta.h"
#include "autograd/Functions.h"
#include "autograd/GradMode.h"
#include "core/Error.h"
#include "ops/add.h"
#include "ops/reshape.h"
#include "ops/sum.h"
#include "ops/to.h"
#include "ops/_to_copy.h"
#include "sparse/Coo.h"

namespace torchlite::autograd {

namespace {

std::string sizes_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// Sums the broadcast dims of grad away so it has `sizes`; nullopt when
// grad's shape cannot have come from broadcasting `sizes`.
std::optional<Tensor> try_sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes().equals(sizes)) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  if (lead < 0) return std::nullopt;
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < grad.dim(); ++i) {
    if (i < lead) {
      dims.push_back(i);
    } else if (sizes[i - lead] == 1 && grad.sizes()[i] != 1) {
      dims.push_back(i);
    } else if (sizes[i - lead] != grad.sizes()[i]) {
      return std::nullopt;
    }
  }
  Tensor r = dims.empty() ? grad : sum(grad, IntArrayRef(dims), /*keepdim=*/true);
  return r.sizes().equals(sizes) ? r : reshape(r, sizes);
}

// A node's returned gradient, made to fit the input it is for.
Tensor fit_gradient(const Node& producer, size_t index, const Tensor& grad, const InputMeta& meta) {
  std::optional<Tensor> g = try_sum_to(grad, meta.sizes);
  TL_CHECK(g.has_value(), "Function ", producer.name(), " returned an invalid gradient at index ", index, " - got ",
           sizes_str(grad.sizes()), " but expected shape compatible with ", sizes_str(meta.sizes));
  if (g->device() != meta.device) return _to_copy(*g, meta.dtype, meta.device);  // copy_'s src on another device
  if (g->scalar_type() != meta.dtype) return to(*g, meta.dtype);
  return *g;
}

struct ReadyOrder {  // the most recently recorded node first
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

struct GraphTask {
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, variable_list> buffers;
  std::unordered_set<Node*> executable;  // nodes whose apply() runs
  // (node, input_nr) -> index into the captured gradients (autograd.grad, backward(inputs=) non-leaves)
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
};

// Marks the nodes that lead to a target (autograd.grad / inputs=): only they run.
// Iterative (a post-order walk), so a deep graph does not recurse once per node.
void mark_needed(Node* root, const std::unordered_set<Node*>& targets, std::unordered_map<Node*, bool>& memo,
                 std::unordered_set<Node*>& executable) {
  std::vector<std::pair<Node*, size_t>> stack{{root, 0}};  // (node, next edge to visit)
  memo[root] = false;
  while (!stack.empty()) {
    auto& [n, i] = stack.back();
    const auto& edges = n->next_edges();
    if (i < edges.size()) {
      Node* next = edges[i++].function.get();
      if (next && !memo.count(next)) {
        memo[next] = false;
        stack.emplace_back(next, 0);
      }
      continue;
    }
    bool needed = targets.count(n) > 0;
    for (const Edge& e : edges)
      if (e.valid() && memo[e.function.get()]) needed = true;
    memo[n] = needed;
    if (needed) executable.insert(n);
    stack.pop_back();
  }
}

void run_tensor_hooks(Node& node, variable_list& grads) {
  for (const auto& [nr, list] : node.tensor_hooks()) {
    if (nr >= grads.size() || !grads[nr].defined()) continue;
    auto hooks = list->hooks;  // a hook may add hooks
    for (auto& [id, hook] : hooks) {
      Tensor r = hook(grads[nr]);
      if (r.defined()) grads[nr] = r;
    }
    if (list->retains_grad && list->owner)
      accumulate_into_grad(Tensor(intrusive_ptr<TensorImpl>(list->owner)), grads[nr], is_grad_enabled());
  }
}

}  // namespace


variable_list run_backward(const std::vector<Edge>& roots, const variable_list& grad_roots,
                           const BackwardOptions& options) {
  auto root = std::make_shared<GraphRoot>(roots, grad_roots);
  GraphTask task;
  const bool have_targets = !options.inputs.empty();

  // Which nodes run: all of them, or those on a path to a target.
  std::unordered_set<Node*> targets;
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    const Edge& e = options.inputs[i];
    if (!e.valid()) continue;
    Node* n = e.function.get();
    auto* acc = dynamic_cast<AccumulateGrad*>(n);
    if (options.accumulate_grad && acc) {
      targets.insert(n);  // backward(inputs=leaf): its accumulator runs
    } else {
      task.captures[n].emplace_back(e.input_nr, i);
      targets.insert(n);
    }
  }
  std::unordered_map<Node*, bool> memo;
  if (have_targets) {
    mark_needed(root.get(), targets, memo, task.executable);
    for (const auto& [n, caps] : task.captures) {
      // A captured node runs only if another target lies beyond it.
      bool beyond = false;
      for (const Edge& e : n->next_edges())
        if (e.valid() && memo.count(e.function.get()) && memo[e.function.get()]) beyond = true;
      if (!beyond) task.executable.erase(n);
    }
  }

  // Dependencies: the number of edges into each node from nodes that run.
  std::vector<Node*> stack{root.get()};
  std::unordered_set<Node*> seen{root.get()};
  task.executable.insert(root.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (have_targets && !task.executable.count(n)) continue;
    for (const Edge& e : n->next_edges()) {
      if (!e.valid()) continue;
      Node* next = e.function.get();
      if (have_targets && !memo[next]) continue;
      task.dependencies[next] += 1;
      if (seen.insert(next).second) {
        if (!have_targets) task.executable.insert(next);
        stack.push_back(next);
      }
    }
  }

  variable_list captured(options.inputs.size());
  // Nodes are kept alive by `root` through the edges while the task runs.
  std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
  ready.push(root.get());
  GradModeGuard grad_mode(options.create_graph);
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    variable_list grads;
    if (node != root.get()) {
      auto it = task.buffers.find(node);
      if (it != task.buffers.end()) {
        grads = std::move(it->second);
        task.buffers.erase(it);
      }
      grads.resize(node->num_inputs());
      for (auto& hook : node->pre_hooks()) {
        variable_list r = hook(grads);
        if (!r.empty()) grads = std::move(r);
      }
      run_tensor_hooks(*node, grads);
      auto cap = task.captures.find(node);
      if (cap != task.captures.end())
        for (const auto& [input_nr, index] : cap->second) captured[index] = grads[input_nr];
    }
    if (!task.executable.count(node)) continue;

    variable_list outputs;
    bool any_defined = node == root.get();
    for (const Tensor& g : grads) any_defined |= g.defined();
    // Without post hooks (which see the node's incoming grads) the grads move into the node, so that
    // AccumulateGrad holds the only reference and can keep the tensor as .grad instead of copying it.
    if (any_defined) outputs = node->apply(node->post_hooks().empty() ? std::move(grads) : variable_list(grads));
    for (auto& hook : node->post_hooks()) {
      variable_list r = hook(outputs, grads);
      if (!r.empty()) outputs = std::move(r);
    }
    if (!options.keep_graph) node->release_variables();

    const auto& edges = node->next_edges();
    TL_CHECK(outputs.empty() || outputs.size() == edges.size(), "Function ", node->name(), " returned ",
             outputs.size(), " gradients, expected ", edges.size());
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.valid()) continue;
      Node* next = e.function.get();
      auto dep = task.dependencies.find(next);
      if (dep == task.dependencies.end()) continue;  // leads to no target
      if (i < outputs.size() && outputs[i].defined()) {
        const InputMeta& meta = next->input_meta(e.input_nr);
        Tensor g = outputs[i];
        // A sparse gradient (nn.Embedding(sparse=True)) goes as it is only to a leaf's accumulator that it fits;
        // every other node's formulas read dense tensors.
        if (TL_UNLIKELY(sparse::is_sparse(g)) &&
            !(dynamic_cast<AccumulateGrad*>(next) && g.sizes().equals(meta.sizes) &&
              g.scalar_type() == meta.dtype && g.device() == meta.device))
          g = sparse::to_dense(g);
        g = fit_gradient(*node, i, g, meta);
        variable_list& buf = task.buffers[next];
        if (buf.size() < next->num_inputs()) buf.resize(next->num_inputs());
        Tensor& slot = buf[e.input_nr];
        slot = slot.defined() ? sparse::add(slot, g) : g;
      }
      if (--dep->second == 0) ready.push(next);
    }
  }
  return captured;
}

}  // namespace torchlite::autograd
