// Output shapes and checks of convolution and convolution_backward, shared by all devices.
#include "dispatch/ExactMeta.h"
#include "kernels/Conv.h"
#include "kernels/col2im.h"
#include "kernels/im2col.h"
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

TensorMeta meta::im2col_meta(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                             IntArrayRef stride) {
  bool nonempty = true;
  for (int64_t j = self.dim() - 3; j >= 0 && j < self.dim(); ++j) nonempty = nonempty && self.size(j) != 0;
  TL_CHECK((self.dim() == 3 || self.dim() == 4) && nonempty, "Expected 3D or 4D (batch mode) tensor for input with "
           "possibly 0 batch size and non-zero dimensions for input, but got: ", to_string(self.sizes()));
  TL_CHECK(self.scalar_type() != ScalarType::Bool, "\"im2col\" not implemented for 'Bool'");
  const int64_t img[] = {self.size(-2), self.size(-1)};
  const conv::Geometry g = conv::blocks("im2col", img, kernel_size, dilation, padding, stride);
  DimVector sizes;
  if (self.dim() == 4) sizes.push_back(self.size(0));
  sizes.push_back(self.size(-3) * g.K);
  sizes.push_back(g.L);
  return exact_meta(std::move(sizes), self);
}

TensorMeta meta::col2im_meta(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
                             IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  TL_CHECK(output_size.size() == 2, "col2im: It is expected output_size equals to 2, but got size ",
           output_size.size());
  bool nonempty = true;
  for (int64_t j = self.dim() - 2; j >= 0 && j < self.dim(); ++j) nonempty = nonempty && self.size(j) != 0;
  TL_CHECK((self.dim() == 2 || self.dim() == 3) && nonempty, "Expected 2D or 3D (batch mode) tensor for input with "
           "possibly 0 batch size and non-zero dimensions for input, but got: ", to_string(self.sizes()));
  TL_CHECK(self.scalar_type() != ScalarType::Bool, "\"col2im\" not implemented for 'Bool'");
  const conv::Geometry g = conv::blocks("col2im", output_size.data(), kernel_size, dilation, padding, stride);
  const int64_t c = self.size(-2), l = self.size(-1);
  TL_CHECK(c % g.K == 0, "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
           "got input.size(1)=", c, " and kernel_size=(", kernel_size[0], ", ", kernel_size[1], ")");
  TL_CHECK(l == g.L, "Given output_size=(", output_size[0], ", ", output_size[1], "), kernel_size=(", kernel_size[0],
           ", ", kernel_size[1], "), dilation=(", dilation[0], ", ", dilation[1], "), padding=(", padding[0], ", ",
           padding[1], "), stride=(", stride[0], ", ", stride[1], "), expected size of input's dimension 2 to match "
           "the calculated number of sliding blocks ", g.col[0], " * ", g.col[1], " = ", g.L, ", but got "
           "input.size(2)=", l, ".");
  DimVector sizes;
  if (self.dim() == 3) sizes.push_back(self.size(0));
  sizes.push_back(c / g.K);
  sizes.push_back(output_size[0]);
  sizes.push_back(output_size[1]);
  return exact_meta(std::move(sizes), self);
}

}  // namespace torchlite
