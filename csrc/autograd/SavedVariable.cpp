#include "autograd/SavedVariable.h"

#include "autograd/AutogradMeta.h"
#include "core/Error.h"

namespace torchlite::autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  TL_CHECK(!t.impl()->is_inference() || inference_mode_flag(), "Inference tensors cannot be saved for backward. To "
           "work around you can make a clone to get a normal tensor and use it in autograd.");
  saved_ = true;
  is_output_ = is_output;
  version_ = t.version();
  if (is_output) {
    // The output without its history: the node must not own itself.
    data_ = detach(t);
    AutogradMeta* m = get_meta(t);
    output_requires_grad_ = m && m->grad_fn_;
    output_nr_ = m ? m->output_nr_ : 0;
  } else {
    data_ = t;
  }
}

void SavedVariable::reset() {
  if (!saved_) return;
  data_ = Tensor();
  released_ = true;
}

static std::string tensor_type_name(const Tensor& t) {
  std::string dtype = scalar_type_name(t.scalar_type());
  std::string sizes;
  for (size_t i = 0; i < t.sizes().size(); ++i) sizes += (i ? ", " : "") + std::to_string(t.sizes()[i]);
  return str("[torchlite.", t.is_cuda() ? "cuda." : "", dtype, "Tensor [", sizes, "]]");
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& node) const {
  if (!saved_) return Tensor();
  TL_CHECK(!released_,
           "Trying to backward through the graph a second time (or directly access saved tensors after they have "
           "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
           "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
           "if you need to access saved tensors after calling backward.");
  if (data_.version() != version_) {
    std::string producer;
    const std::shared_ptr<Node>& fn = is_output_ ? node : grad_fn(data_);
    if (fn) producer = str(", which is output ", is_output_ ? output_nr_ : get_meta(data_)->output_nr_, " of ",
                           fn->name(), ",");
    TL_ERROR("one of the variables needed for gradient computation has been modified by an inplace operation: ",
             tensor_type_name(data_), producer, " is at version ", data_.version(), "; expected version ", version_,
             " instead.");
  }
  if (!is_output_ || !output_requires_grad_ || !node) return data_;
  // The output again, with this node as its grad_fn, so double backward flows through it.
  Tensor out = detach(data_);
  AutogradMeta& m = materialize_meta(out);
  m.grad_fn_ = node;
  m.output_nr_ = output_nr_;
  return out;
}

}  // namespace torchlite::autograd
