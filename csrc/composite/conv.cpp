// conv1d/2d/3d (with int or 'same'/'valid' padding) and conv_transpose1d/2d/3d over `convolution`: an
// unbatched input gets a batch dim of 1 for the call; 'same' padding that is not symmetric pads the larger
// side on both and drops the extra leading output, as PyTorch pads one side more. Complex inputs and weights
// make three real convolutions (Gauss's product), each differentiable as the real ones are.
#include <string>
#include <string_view>

#include "core/TensorFactory.h"
#include "kernels/conv1d.h"
#include "kernels/conv1d_padding.h"
#include "kernels/conv2d.h"
#include "kernels/conv2d_padding.h"
#include "kernels/conv3d.h"
#include "kernels/conv3d_padding.h"
#include "kernels/conv_transpose1d.h"
#include "kernels/conv_transpose2d_input.h"
#include "kernels/conv_transpose3d_input.h"
#include "ops/add.h"
#include "ops/complex.h"
#include "ops/convolution.h"
#include "ops/imag.h"
#include "ops/narrow.h"
#include "ops/real.h"
#include "ops/squeeze_dim.h"
#include "ops/sub.h"
#include "ops/unsqueeze.h"

namespace torchlite {

namespace {

// input with a batch dim: (N, C, spatial...) as given, or a (C, spatial...) one as a batch of one.
bool is_batched(const char* name, const Tensor& input, int d) {
  TL_CHECK(input.dim() == d + 1 || input.dim() == d + 2, "Expected ", d + 1, "D (unbatched) or ", d + 2,
           "D (batched) input to ", name, ", but got input of size: ", to_string(input.sizes()));
  return input.dim() == d + 2;
}

// The convolution of complex x and w (plus a bias) from three real ones, Gauss's product: with
// rr = conv(Re x, Re w) + Re bias, ii = conv(Im x, Im w) and s = conv(Re x + Im x, Re w + Im w) + Re bias + Im bias,
// the real part is rr - ii and the imaginary part s - rr - ii.
template <typename Conv>
Tensor complex_conv(const char* name, const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias,
                    const Conv& conv) {
  TL_CHECK(x.scalar_type() == w.scalar_type(), name, ": Input type (", scalar_type_name(x.scalar_type()),
           ") and weight type (", scalar_type_name(w.scalar_type()), ") should be the same");
  TL_CHECK(!bias || bias->scalar_type() == x.scalar_type(), name, ": Input type (", scalar_type_name(x.scalar_type()),
           ") and bias type (", scalar_type_name(bias->scalar_type()), ") should be the same");
  const Tensor xr = torchlite::real(x), xi = torchlite::imag(x), wr = torchlite::real(w), wi = torchlite::imag(w);
  std::optional<Tensor> br, bsum;
  if (bias) {
    br = torchlite::real(*bias);
    bsum = torchlite::add(*br, torchlite::imag(*bias));
  }
  const Tensor rr = conv(xr, wr, br);
  const Tensor ii = conv(xi, wi, std::nullopt);
  const Tensor s = conv(torchlite::add(xr, xi), torchlite::add(wr, wi), bsum);
  return torchlite::complex(torchlite::sub(rr, ii), torchlite::sub(torchlite::sub(s, rr), ii));
}

Tensor conv_nd(const char* name, int d, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
               IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups, bool transposed,
               IntArrayRef output_padding) {
  const bool batched = is_batched(name, input, d);
  const Tensor x = batched ? input : torchlite::unsqueeze(input, 0);
  DimVector no_output_padding(static_cast<size_t>(d), 0);
  auto conv = [&](const Tensor& xs, const Tensor& ws, const std::optional<Tensor>& bs) {
    return torchlite::convolution(xs, ws, bs, stride, padding, dilation, transposed,
                                  transposed ? output_padding : no_output_padding.ref(), groups);
  };
  const bool complex = is_complex_type(x.scalar_type()) || is_complex_type(weight.scalar_type());
  Tensor y = complex ? complex_conv(name, x, weight, bias, conv) : conv(x, weight, bias);
  return batched ? y : torchlite::squeeze(y, 0);
}

Tensor conv_padding_str(const char* name, int d, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, IntArrayRef stride, std::string_view padding,
                        IntArrayRef dilation, int64_t groups) {
  DimVector pad(static_cast<size_t>(d), 0);
  if (padding == "valid") return conv_nd(name, d, input, weight, bias, stride, pad.ref(), dilation, groups, false, {});
  TL_CHECK(padding == "same", "Invalid padding string: '", std::string(padding), "'");
  for (int64_t s : stride) TL_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
  TL_CHECK(weight.dim() == d + 2, name, ": expected a ", d + 2, "-dimensional weight, got weight of size ",
           to_string(weight.sizes()));
  bool symmetric = true;
  for (int j = 0; j < d; ++j) {
    const int64_t total = dilation[j] * (weight.size(j + 2) - 1);
    pad[j] = (total + 1) / 2;  // the larger side
    symmetric = symmetric && total % 2 == 0;
  }
  Tensor y = conv_nd(name, d, input, weight, bias, stride, pad.ref(), dilation, groups, false, {});
  if (symmetric) return y;
  const int64_t first = y.dim() - d;  // the spatial dims of the result
  for (int j = 0; j < d; ++j)
    if (dilation[j] * (weight.size(j + 2) - 1) % 2 != 0) y = torchlite::narrow(y, first + j, 1, y.size(first + j) - 1);
  return y;
}

}  // namespace

Tensor composite::conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups, false, {});
}
Tensor composite::conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups, false, {});
}
Tensor composite::conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups, false, {});
}

Tensor composite::conv1d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                 IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_padding_str("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}
Tensor composite::conv2d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                 IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_padding_str("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}
Tensor composite::conv3d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                 IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_padding_str("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor composite::conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                                   IntArrayRef dilation) {
  return conv_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, dilation, groups, true, output_padding);
}
Tensor composite::conv_transpose2d_input(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                         IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                                         int64_t groups, IntArrayRef dilation) {
  return conv_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, dilation, groups, true, output_padding);
}
Tensor composite::conv_transpose3d_input(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                         IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                                         int64_t groups, IntArrayRef dilation) {
  return conv_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, dilation, groups, true, output_padding);
}

}  // namespace torchlite
