// Output shapes and checks of convolution and convolution_backward, shared by all devices.
#include "dispatch/ExactMeta.h"
#include "kernels/Conv.h"
#include "kernels/convolution.h"
#include "kernels/convolution_backward.h"

namespace torchlite {

TensorMeta meta::convolution_meta(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                  IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                  IntArrayRef output_padding, int64_t groups) {
  TL_CHECK(input.scalar_type() != ScalarType::Bool, "convolution: bool input is not supported");
  return exact_meta(conv::check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups).out_sizes,
               input);
}

// An output that output_mask leaves out has size 0 (PyTorch returns None there).
std::array<TensorMeta, 3> meta::convolution_backward_meta(const Tensor& grad_output, const Tensor& input,
                                                          const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                                                          IntArrayRef dilation, bool transposed,
                                                          IntArrayRef output_padding, int64_t groups,
                                                          ArrayRef<bool> output_mask) {
  TL_CHECK(output_mask.size() == 3, "convolution_backward: output_mask must have 3 values, got ", output_mask.size());
  const conv::Params p =
      conv::check(input, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
  TL_CHECK(grad_output.sizes().equals(p.out_sizes.ref()), "convolution_backward: expected grad_output of size ",
           to_string(p.out_sizes.ref()), " (the convolution's output), got ", to_string(grad_output.sizes()));
  TL_CHECK(grad_output.scalar_type() == input.scalar_type(), "expected scalar type ",
           scalar_type_name(input.scalar_type()), " but found ", scalar_type_name(grad_output.scalar_type()));
  return {exact_meta(output_mask[0] ? DimVector(input.sizes()) : DimVector{0}, input),
          exact_meta(output_mask[1] ? DimVector(weight.sizes()) : DimVector{0}, input),
          exact_meta(output_mask[2] ? DimVector{p.c_out} : DimVector{0}, input)};
}

}  // namespace torchlite
