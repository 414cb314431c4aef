#pragma once
// In-place ops on views. When an op writes into a view of `base` while
// recording, the base's history must include the write: the base gets a
// CopySlices node whose gradient is the incoming one with the view's slice
// replaced by what the op's own node makes of it, and the view's history
// becomes an as_strided of the base's new history.
#include <memory>
#include <string>
#include <vector>

#include "autograd/Node.h"

namespace torchlite::autograd {

class CopySlices final : public Node {
 public:
  // `fn` is the in-place op's node; its input 0 was the view's old value.
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  std::string name() const override { return "CopySlices"; }
  bool supports_complex() const override { return fn_->supports_complex(); }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override { fn_->release_variables(); }

 private:
  std::vector<int64_t> base_sizes_, base_strides_;
  std::vector<int64_t> view_sizes_, view_strides_;
  int64_t view_offset_;  // relative to the base's storage offset
  bool conj_;  // the view is conjugated relative to the base (a conj() view): gradients cross conjugated
  std::shared_ptr<Node> fn_;
};

// After an in-place op recorded `node` for `view` (a view of a tensor): the base
// takes a CopySlices node and the view a fresh as_strided history on the base.
void rebase_view_history(const Tensor& view, const std::shared_ptr<Node>& node);

}  // namespace torchlite::autograd
