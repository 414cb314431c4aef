#pragma once
// The backward engine: runs the graph from `roots` on the calling thread, in
// dependency order (a node runs once every gradient for it has arrived), the
// most recently recorded ready node first, so results are reproducible.
#include <vector>

#include "autograd/Node.h"

namespace torchlite::autograd {

struct BackwardOptions {
  bool keep_graph = false;    // retain_graph: keep saved tensors for another backward
  bool create_graph = false;  // record the backward pass itself (higher-order gradients)
  // autograd.grad: return the gradients arriving at these edges instead of
  // accumulating into .grad. backward(inputs=...): accumulate into these only.
  std::vector<Edge> inputs;
  bool accumulate_grad = true;
};

// Gradients of `roots` are `grad_roots` (same length). Returns one gradient per
// edge of options.inputs (undefined where none arrived); empty otherwise.
variable_list run_backward(const std::vector<Edge>& roots, const variable_list& grad_roots,
                           const BackwardOptions& options);

}  // namespace torchlite::autograd
