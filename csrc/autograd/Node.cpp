#include "autograd/Node.h"

namespace torchlite::autograd {

namespace {
std::atomic<uint64_t> g_next_sequence_nr{0};
std::atomic<int64_t> g_live_nodes{0};
}  // namespace

Node::Node() : sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {
  g_live_nodes.fetch_add(1, std::memory_order_relaxed);
}

// Dropping a node drops its edges, which may drop the next nodes, and so on down
// the graph: a chain of a million ops would recurse a million deep. The edges of
// nodes that die while a release is under way go on this thread's list instead,
// and the outermost release empties it in a loop.
Node::~Node() {
  thread_local std::vector<std::shared_ptr<Node>> pending;
  thread_local bool releasing = false;
  for (Edge& e : next_edges_)
    if (e.function) pending.push_back(std::move(e.function));
  next_edges_.clear();
  if (!releasing) {
    releasing = true;
    while (!pending.empty()) {
      std::shared_ptr<Node> next = std::move(pending.back());
      pending.pop_back();
      next.reset();  // if it was the last reference, its destructor adds its edges to `pending`
    }
    releasing = false;
  }
  g_live_nodes.fetch_sub(1, std::memory_order_relaxed);
}

int64_t Node::live_count() { return g_live_nodes.load(std::memory_order_relaxed); }

bool Node::should_compute_any(size_t first, size_t count) const {
  for (size_t i = first; i < first + count; ++i)
    if (should_compute_output(i)) return true;
  return false;
}

uint32_t Node::add_input_meta(const Tensor& t) {
  InputMeta m;
  m.sizes = t.sizes().vec();
  m.dtype = t.scalar_type();
  m.device = t.device();
  input_meta_.push_back(std::move(m));
  return static_cast<uint32_t>(input_meta_.size() - 1);
}

void Node::add_tensor_hooks(uint32_t output_nr, std::shared_ptr<TensorHookList> hooks) {
  for (const auto& [nr, h] : tensor_hooks_)
    if (nr == output_nr && h == hooks) return;
  tensor_hooks_.emplace_back(output_nr, std::move(hooks));
}

}  // namespace torchlite::autograd
