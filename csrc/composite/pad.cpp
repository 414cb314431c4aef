// F.pad and PyTorch's named pads over the two pad ops: constant_pad_nd (any number of dims) and
// _pad_indexed (reflect, replicate, circular over 1 to 3 trailing dims; a complex tensor's real and imaginary
// parts padded apart).
#include <string>

#include "kernels/_pad_circular.h"
#include "kernels/pad.h"
#include "kernels/reflection_pad1d.h"
#include "kernels/reflection_pad2d.h"
#include "kernels/reflection_pad3d.h"
#include "kernels/replication_pad1d.h"
#include "kernels/replication_pad2d.h"
#include "kernels/replication_pad3d.h"
#include "ops/_pad_indexed.h"
#include "ops/complex.h"
#include "ops/constant_pad_nd.h"
#include "ops/imag.h"
#include "ops/real.h"

namespace torchlite {

namespace {

// _pad_indexed, for complex tensors part by part (each differentiable as a real pad).
Tensor pad_indexed(const Tensor& self, IntArrayRef pad, std::string_view mode) {
  if (!is_complex_type(self.scalar_type())) return _pad_indexed(self, pad, mode);
  return complex(_pad_indexed(real(self), pad, mode), _pad_indexed(imag(self), pad, mode));
}

Tensor named_pad(const Tensor& self, IntArrayRef padding, size_t d, const char* mode) {
  TL_CHECK(padding.size() == 2 * d, "padding size is expected to be ", 2 * d, ", but got: ", padding.size());
  return pad_indexed(self, padding, mode);
}

}  // namespace

Tensor composite::reflection_pad1d(const Tensor& self, IntArrayRef padding) {
  return named_pad(self, padding, 1, "reflect");
}
Tensor composite::reflection_pad2d(const Tensor& self, IntArrayRef padding) {
  return named_pad(self, padding, 2, "reflect");
}
Tensor composite::reflection_pad3d(const Tensor& self, IntArrayRef padding) {
  return named_pad(self, padding, 3, "reflect");
}
Tensor composite::replication_pad1d(const Tensor& self, IntArrayRef padding) {
  return named_pad(self, padding, 1, "replicate");
}
Tensor composite::replication_pad2d(const Tensor& self, IntArrayRef padding) {
  return named_pad(self, padding, 2, "replicate");
}
Tensor composite::replication_pad3d(const Tensor& self, IntArrayRef padding) {
  return named_pad(self, padding, 3, "replicate");
}
Tensor composite::_pad_circular(const Tensor& self, IntArrayRef pad) { return pad_indexed(self, pad, "circular"); }

Tensor composite::pad(const Tensor& self, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  const bool constant = mode == "constant";
  TL_CHECK_KIND(ErrorKind::NotImplemented, constant || mode == "reflect" || mode == "replicate" || mode == "circular",
                "Unrecognised padding mode ", mode);
  TL_CHECK(pad.size() % 2 == 0, "Padding length must be divisible by 2");
  TL_CHECK(static_cast<int64_t>(pad.size()) <= 2 * self.dim(), "Padding length should be less than or equal to two "
           "times the input dimension but got padding length ", pad.size(), " and input of dimension ", self.dim());
  if (constant) return constant_pad_nd(self, pad, value.value_or(0.0));
  TL_CHECK(!value || *value == 0.0, "Padding mode \"", mode, "\" doesn't take in value argument");
  const int64_t d = static_cast<int64_t>(pad.size() / 2);
  TL_CHECK_KIND(ErrorKind::NotImplemented, d >= 1 && d <= 3 && (self.dim() == d + 1 || self.dim() == d + 2),
                "Padding size ", pad.size(), " is not supported for ", self.dim(), "D input tensor.\n"
                "Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)");
  return pad_indexed(self, pad, mode);
}

}  // namespace torchlite
