// PyTorch's named resampling ops over the one _upsample op.
#include <vector>

#include "kernels/upsample_bicubic2d.h"
#include "kernels/upsample_bilinear2d.h"
#include "kernels/upsample_linear1d.h"
#include "kernels/upsample_nearest1d.h"
#include "kernels/upsample_nearest2d.h"
#include "kernels/upsample_nearest3d.h"
#include "kernels/upsample_trilinear3d.h"
#include "ops/_upsample.h"

namespace torchlite {

namespace {

// The scales when any is given (0 for a missing one among given ones), else none.
std::vector<double> scales_of(std::initializer_list<std::optional<double>> scales) {
  std::vector<double> out;
  bool any = false;
  for (const auto& s : scales) any = any || s.has_value();
  if (!any) return out;
  for (const auto& s : scales) out.push_back(s.value_or(0.0));
  return out;
}

Tensor resample(const Tensor& self, IntArrayRef output_size, const char* mode, bool align_corners,
                std::initializer_list<std::optional<double>> scales) {
  const std::vector<double> s = scales_of(scales);
  return _upsample(self, output_size, mode, align_corners, ArrayRef<double>(s.data(), s.size()));
}

}  // namespace

Tensor composite::upsample_nearest1d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales) {
  return resample(self, output_size, "nearest", false, {scales});
}
Tensor composite::upsample_nearest2d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                                     std::optional<double> scales_w) {
  return resample(self, output_size, "nearest", false, {scales_h, scales_w});
}
Tensor composite::upsample_nearest3d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_d,
                                     std::optional<double> scales_h, std::optional<double> scales_w) {
  return resample(self, output_size, "nearest", false, {scales_d, scales_h, scales_w});
}
Tensor composite::upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                    std::optional<double> scales) {
  return resample(self, output_size, "linear", align_corners, {scales});
}
Tensor composite::upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                      std::optional<double> scales_h, std::optional<double> scales_w) {
  return resample(self, output_size, "linear", align_corners, {scales_h, scales_w});
}
Tensor composite::upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                       std::optional<double> scales_d, std::optional<double> scales_h,
                                       std::optional<double> scales_w) {
  return resample(self, output_size, "linear", align_corners, {scales_d, scales_h, scales_w});
}
Tensor composite::upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                     std::optional<double> scales_h, std::optional<double> scales_w) {
  return resample(self, output_size, "cubic", align_corners, {scales_h, scales_w});
}

}  // namespace torchlite
