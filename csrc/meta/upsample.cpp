// Output shapes and checks of the resampling ops, shared by all devices.
#include "dispatch/ExactMeta.h"
#include "kernels/Upsample.h"
#include "kernels/_upsample.h"
#include "kernels/_upsample_backward.h"

namespace torchlite {

namespace {

void check_dtype(const char* op, const Tensor& self) {
  if (!is_floating_type(self.scalar_type())) throw_dtype_not_implemented(op, self.scalar_type());
}

}  // namespace

TensorMeta meta::upsample_meta(const Tensor& self, IntArrayRef output_size, std::string_view mode, bool align_corners,
                               ArrayRef<double> scales) {
  const upsample::Geometry g = upsample::check(self, output_size, mode, align_corners, scales);
  // The floating dtypes, and uint8 images in the nearest modes, as PyTorch (whose interpolating modes also take
  // uint8 4-D images, through a fixed-point path of their own that torchlite does not have).
  if (!(g.taps == 1 && self.scalar_type() == ScalarType::UInt8)) check_dtype("upsample", self);
  DimVector sizes{self.size(0), self.size(1)};
  for (int64_t s : output_size) sizes.push_back(s);
  return exact_meta(std::move(sizes), self);
}

TensorMeta meta::upsample_backward_meta(const Tensor& grad_output, const Tensor& self, IntArrayRef output_size,
                                        std::string_view mode, bool align_corners, ArrayRef<double> scales) {
  upsample::check(self, output_size, mode, align_corners, scales);
  check_dtype("upsample_backward", self);
  DimVector expected{self.size(0), self.size(1)};
  for (int64_t s : output_size) expected.push_back(s);
  TL_CHECK(grad_output.sizes().equals(expected.ref()), "upsample_backward: expected grad_output of size ",
           to_string(expected.ref()), ", got ", to_string(grad_output.sizes()));
  return exact_meta(DimVector(self.sizes()), self);
}

}  // namespace torchlite
