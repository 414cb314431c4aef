#pragma once
// Hand-written nodes: the accumulator of a leaf's gradient, and the root that
// feeds the user's gradients into the graph.
#include <string>

#include "autograd/Node.h"

namespace torchlite::autograd {

// Adds incoming gradients to a leaf's .grad (after its hooks), then runs its
// post-accumulate hooks. Holds the leaf; the leaf holds it weakly.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

class GraphRoot final : public Node {
 public:
  GraphRoot(std::vector<Edge> edges, variable_list grads);
  std::string name() const override { return "GraphRoot"; }
  variable_list apply(variable_list&&) override { return grads_; }

 private:
  variable_list grads_;
};

// Adds `grad` to `t.grad` (in place without create_graph, recorded with it).
void accumulate_into_grad(const Tensor& t, const Tensor& grad, bool create_graph);

}  // namespace torchlite::autograd
