// Output shapes and checks of the loss kernels (nll_loss_forward, nll_loss_backward), shared by all devices.
#include "dispatch/Meta.h"
#include "kernels/NllLoss.h"
#include "kernels/nll_loss_backward.h"
#include "kernels/nll_loss_forward.h"

namespace torchlite {

namespace {

TensorMeta like(DimVector sizes, const Tensor& self) {
  TensorMeta m;
  m.sizes = std::move(sizes);
  m.dtype = self.scalar_type();
  m.device = self.device();
  m.exact_dtype = true;
  return m;
}

}  // namespace

std::array<TensorMeta, 2> meta::nll_loss_meta(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight, int64_t reduction,
                                              int64_t ignore_index) {
  nll::check_reduction("nll_loss", reduction);
  nll::check(self, target, weight);
  DimVector out = reduction == nll::kNone ? nll::none_shape(self, target) : DimVector();
  return {like(std::move(out), self), like(DimVector(), self)};
}

TensorMeta meta::nll_loss_backward_meta(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                        const Tensor& total_weight) {
  nll::check_reduction("nll_loss_backward", reduction);
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
  return like(DimVector(self.sizes()), self);
}

}  // namespace torchlite
