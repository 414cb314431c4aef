#pragma once
// A tensor a node saved for its backward formula. It remembers the version of
// the data at save time: unpacking after an in-place change raises PyTorch's
// "modified by an inplace operation" error. An output of the node itself is
// saved without its history (no node -> output -> node cycle) and gets the
// node back as grad_fn when unpacked, so double backward still sees it.
#include <memory>

#include "autograd/Node.h"
#include "core/Tensor.h"

namespace torchlite::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);

  // `node` is the node that saved it (needed for outputs).
  Tensor unpack(const std::shared_ptr<Node>& node = nullptr) const;
  void reset();  // frees the data; unpacking afterwards raises
  bool was_saved() const { return saved_; }

 private:
  Tensor data_;
  bool saved_ = false;  // false for an absent optional tensor: unpacks as undefined
  bool released_ = false;
  bool is_output_ = false;
  bool output_requires_grad_ = false;
  uint32_t output_nr_ = 0;
  uint32_t version_ = 0;
};

}  // namespace torchlite::autograd
