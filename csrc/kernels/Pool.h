#pragma once
// The checked arguments and geometry of the pooling ops (_max_pool_with_indices, _avg_pool and their
// backward ops), shared by the meta functions and the kernels (kernels/gpu/pool.inc). The input is
// (planes..., spatial...) with d = len(kernel_size) spatial dims and one or two leading dims (channels,
// or batch and channels); each plane is pooled on its own. Messages follow PyTorch's.
#include <string>

#include "core/Error.h"
#include "core/Macros.h"
#include "core/Tensor.h"

namespace torchlite::pool {

constexpr int kMaxSpatial = 3;

struct Geometry {
  int d = 0;
  int64_t planes = 1;
  int64_t in[kMaxSpatial] = {}, out[kMaxSpatial] = {};
  int64_t k[kMaxSpatial] = {}, stride[kMaxSpatial] = {}, pad[kMaxSpatial] = {}, dil[kMaxSpatial] = {};
  int64_t I = 1, O = 1;  // positions per plane, in and out
  DimVector out_sizes;
};

inline int64_t output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span < 0 ? -((-span + stride - 1) / stride) : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;  // the last window must start inside the input
  return out;
}

inline void check_list(const char* op, const char* name, IntArrayRef v, int d, bool empty_ok) {
  TL_CHECK(static_cast<int>(v.size()) == d || (empty_ok && v.empty()), op, ": ", name, " must either be a single int, "
           "or a tuple of ", d, " ints, got ", to_string(v));
}

// stride empty: the kernel size (PyTorch's default). dilation: all 1 for average pooling.
inline Geometry check(const char* op, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const int d = static_cast<int>(kernel_size.size());
  TL_CHECK(d >= 1 && d <= kMaxSpatial, op, ": kernel_size must have 1 to ", kMaxSpatial, " values, got ",
           to_string(kernel_size));
  check_list(op, "stride", stride, d, true);
  check_list(op, "padding", padding, d, false);
  check_list(op, "dilation", dilation, d, false);
  bool nonempty = true;
  for (int64_t j = 1; j < self.dim(); ++j) nonempty = nonempty && self.size(j) != 0;
  TL_CHECK((self.dim() == d + 1 || self.dim() == d + 2) && nonempty, "non-empty ", d + 1, "D or ", d + 2,
           "D (batch mode) tensor expected for input");
  Geometry g;
  g.d = d;
  const int64_t lead = self.dim() - d;
  for (int64_t j = 0; j < lead; ++j) {
    g.planes *= self.size(j);
    g.out_sizes.push_back(self.size(j));
  }
  for (int j = 0; j < d; ++j) {
    g.k[j] = kernel_size[j];
    g.stride[j] = stride.empty() ? kernel_size[j] : stride[j];
    g.pad[j] = padding[j];
    g.dil[j] = dilation[j];
    TL_CHECK(g.stride[j] != 0, "stride should not be zero");
    TL_CHECK(g.k[j] > 0, op, ": kernel_size must be greater than zero, but got ", to_string(kernel_size));
    TL_CHECK(g.stride[j] > 0, op, ": stride must be greater than zero, but got ", to_string(stride));
    TL_CHECK(g.dil[j] > 0, op, ": dilation must be greater than zero, but got ", to_string(dilation));
    TL_CHECK(g.pad[j] >= 0, op, ": pad must be non-negative, but got ", to_string(padding));
    TL_CHECK(g.pad[j] <= (g.dil[j] * (g.k[j] - 1) + 1) / 2, "pad should be at most half of effective kernel size, "
             "but got pad=", g.pad[j], ", kernel_size=", g.k[j], " and dilation=", g.dil[j]);
    g.in[j] = self.size(lead + j);
    g.out[j] = output_size(g.in[j], g.k[j], g.pad[j], g.stride[j], g.dil[j], ceil_mode);
    g.I *= g.in[j];
    g.O *= g.out[j];
    g.out_sizes.push_back(g.out[j]);
  }
  bool ok = true;
  for (int j = 0; j < d; ++j) ok = ok && g.out[j] >= 1;
  if (!ok) {
    std::string in = std::to_string(self.size(lead - 1)), out = in;
    for (int j = 0; j < d; ++j) {
      in += "x" + std::to_string(g.in[j]);
      out += "x" + std::to_string(g.out[j]);
    }
    TL_ERROR("Given input size: (", in, "). Calculated output size: (", out, "). Output size is too small");
  }
  return g;
}

// Adaptive pooling over len(output_size) spatial dims: output position o of a dim of n inputs and m outputs
// covers inputs [floor(o n / m), ceil((o + 1) n / m)). Only in, out, d, planes, I, O and out_sizes are set.
inline Geometry check_adaptive(const char* op, const Tensor& self, IntArrayRef output_size) {
  const int d = static_cast<int>(output_size.size());
  TL_CHECK(d >= 1 && d <= kMaxSpatial, op, ": output_size must have 1 to ", kMaxSpatial, " values, got ",
           to_string(output_size));
  TL_CHECK(self.dim() == d + 1 || self.dim() == d + 2, op, "(): Expected ", d + 1, "D or ", d + 2,
           "D tensor, but got ", to_string(self.sizes()));
  const int64_t lead = self.dim() - d;
  for (int64_t j = 1; j < self.dim(); ++j) {
    TL_CHECK(self.size(j) != 0, op, "(): Expected input to have non-zero size for non-batch dimensions, but input "
             "has sizes ", to_string(self.sizes()), " with dimension ", j, " being empty");
  }
  for (int j = 0; j < d; ++j) {
    TL_CHECK(output_size[j] >= 0, op, ": elements of output_size must be greater than or equal to 0 but received ",
             to_string(output_size));
  }
  Geometry g;
  g.d = d;
  for (int64_t j = 0; j < lead; ++j) {
    g.planes *= self.size(j);
    g.out_sizes.push_back(self.size(j));
  }
  for (int j = 0; j < d; ++j) {
    g.in[j] = self.size(lead + j);
    g.out[j] = output_size[j];
    g.I *= g.in[j];
    g.O *= g.out[j];
    g.out_sizes.push_back(g.out[j]);
  }
  return g;
}

TL_HOST_DEVICE inline int64_t adaptive_start(int64_t o, int64_t in, int64_t out) { return o * in / out; }
TL_HOST_DEVICE inline int64_t adaptive_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

}  // namespace torchlite::pool
