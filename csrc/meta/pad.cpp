// Output shapes and checks of the pads (constant_pad_nd, _pad_indexed and its backward), shared by all
// devices.
#include "dispatch/ExactMeta.h"
#include "kernels/Pad.h"
#include "kernels/_pad_indexed.h"
#include "kernels/_pad_indexed_backward.h"
#include "kernels/constant_pad_nd.h"

namespace torchlite {

namespace {

void check_dtype(const pad::Geometry& g, const Tensor& self, const char* suffix) {
  if (self.scalar_type() == ScalarType::Bool && g.mode != pad::Mode::Circular) {
    throw_dtype_not_implemented((pad::op_name(g.mode, g.d) + suffix).c_str(), ScalarType::Bool);
  }
}

}  // namespace

TensorMeta meta::constant_pad_meta(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  (void)value;
  TL_CHECK(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ", pad.size());
  TL_CHECK(static_cast<int64_t>(pad.size() / 2) <= self.dim(), "Length of pad should be no more than twice the "
           "number of dimensions of the input. Pad length is ", pad.size(), " while the input has ", self.dim(),
           " dimensions.");
  DimVector sizes(self.sizes());
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const int64_t dim = self.dim() - 1 - static_cast<int64_t>(k);
    const int64_t size = sizes[dim] + pad[2 * k] + pad[2 * k + 1];
    TL_CHECK(size >= 0, "constant_pad_nd: the padding (", pad[2 * k], ", ", pad[2 * k + 1], ") of dimension ", dim,
             " of size ", sizes[dim], " gives a negative size ", size);
    sizes[dim] = size;
  }
  return exact_meta(std::move(sizes), self);
}

TensorMeta meta::pad_indexed_meta(const Tensor& self, IntArrayRef pad, std::string_view mode) {
  pad::Geometry g = pad::check(self, pad, mode);
  check_dtype(g, self, "");
  return exact_meta(std::move(g.out_sizes), self);
}

TensorMeta meta::pad_indexed_backward_meta(const Tensor& grad_output, const Tensor& self, IntArrayRef pad,
                                          std::string_view mode) {
  const pad::Geometry g = pad::check(self, pad, mode);
  check_dtype(g, self, "_backward");
  TL_CHECK(grad_output.sizes().equals(g.out_sizes.ref()), pad::op_name(g.mode, g.d), "_backward: expected "
           "grad_output of size ", to_string(g.out_sizes.ref()), ", got ", to_string(grad_output.sizes()));
  return exact_meta(DimVector(self.sizes()), self);
}

}  // namespace torchlite
