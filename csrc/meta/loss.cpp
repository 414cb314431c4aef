// Output shapes and checks of the loss kernels (nll_loss_forward, nll_loss_backward, _cross_entropy_forward,
// _cross_entropy_backward), shared by all devices.
#include "dispatch/ExactMeta.h"
#include "kernels/NllLoss.h"
#include "kernels/_cross_entropy_backward.h"
#include "kernels/_cross_entropy_forward.h"
#include "kernels/nll_loss_backward.h"
#include "kernels/nll_loss_forward.h"

namespace torchlite {

std::array<TensorMeta, 2> meta::nll_loss_meta(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight, int64_t reduction,
                                              int64_t ignore_index) {
  nll::check_reduction("nll_loss", reduction);
  nll::check(self, target, weight);
  DimVector out = reduction == nll::kNone ? nll::none_shape(self, target) : DimVector();
  return {exact_meta(std::move(out), self), exact_meta(DimVector(), self)};
}

namespace {

// grad_output is the loss's shape; total_weight one number.
void check_loss_backward(const char* op, const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction, const Tensor& total_weight) {
  nll::check_reduction(op, reduction);
  nll::check(self, target, weight);
  if (reduction == nll::kNone) {
    const DimVector expected = nll::none_shape(self, target);
    TL_CHECK(grad_output.sizes().equals(expected.ref()), "nll_loss_backward: expected grad_output of shape ",
             to_string(expected.ref()), " (the target's), got ", to_string(grad_output.sizes()));
  } else {
    TL_CHECK(grad_output.numel() == 1, "Expected a single element grad_output tensor, but got: ",
             to_string(grad_output.sizes()));
  }
  TL_CHECK(total_weight.numel() == 1, "expected total_weight to be a single element tensor, got: ",
           to_string(total_weight.sizes()), " (", total_weight.numel(), " elements)");
}

}  // namespace

TensorMeta meta::nll_loss_backward_meta(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                        const Tensor& total_weight) {
  check_loss_backward("nll_loss_backward", grad_output, self, target, weight, reduction, total_weight);
  return exact_meta(DimVector(self.sizes()), self);
}

std::array<TensorMeta, 3> meta::cross_entropy_meta(const Tensor& self, const Tensor& target,
                                                   const std::optional<Tensor>& weight, int64_t reduction,
                                                   int64_t ignore_index) {
  auto [output, total_weight] = meta::nll_loss_meta(self, target, weight, reduction, ignore_index);
  return {output, exact_meta(DimVector(self.sizes()), self), total_weight};
}

TensorMeta meta::cross_entropy_backward_meta(const Tensor& grad_output, const Tensor& log_probs, const Tensor& target,
                                             const std::optional<Tensor>& weight, int64_t reduction,
                                             int64_t ignore_index, const Tensor& total_weight) {
  check_loss_backward("cross_entropy_backward", grad_output, log_probs, target, weight, reduction, total_weight);
  return exact_meta(DimVector(log_probs.sizes()), log_probs);
}

}  // namespace torchlite
