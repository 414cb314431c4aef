// Formula helpers of the FFT ops, written with torchlite ops so that double backward records through them.
#include <vector>

#include "autograd/FormulaHelpers.h"
#include "core/Error.h"
#include "core/TensorFactory.h"
#include "ops/_fft_c2c.h"
#include "ops/_fft_r2c.h"
#include "ops/cat.h"
#include "ops/constant_pad_nd.h"
#include "ops/mul_Tensor.h"
#include "ops/narrow.h"
#include "ops/real.h"

namespace torchlite::autograd {

// _fft_r2c is s P F x (x real, F the forward DFT, P keeping the first n/2 + 1 coefficients along the last dim
// when onesided, s the scale): its adjoint is s F^H P^T, the backward transform of grad zero-padded back to
// n values, and x being real, the gradient is that adjoint's real part.
Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        IntArrayRef self_sizes) {
  Tensor full = grad;
  if (onesided) {
    TL_CHECK(!dim.empty(), "fft_r2c_backward: no dims");
    const int64_t last = wrap_dim(dim.back(), grad.dim());
    const int64_t missing = self_sizes[last] - grad.size(last);
    if (missing > 0) {
      // constant_pad_nd's pads run from the last dim backwards: (left, right) pairs
      std::vector<int64_t> pad(static_cast<size_t>(2 * (grad.dim() - last)), 0);
      pad[pad.size() - 1] = missing;
      full = constant_pad_nd(grad, pad);
    }
  }
  return real(_fft_c2c(full, dim, normalization, /*forward=*/false));
}

// _fft_c2r reads X_0 .. X_{n/2} and acts as if X_{n-k} = conj(X_k) were there too: each coefficient that has a
// mirror among the ones dropped appears twice in the sum, so its gradient is twice the onesided forward
// transform's (the onesided r2c transform is this map's adjoint on the kept coefficients).
Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization) {
  TL_CHECK(!dim.empty(), "fft_c2r_backward: no dims");
  Tensor g = _fft_r2c(grad, dim, normalization, /*onesided=*/true);
  const int64_t last = wrap_dim(dim.back(), g.dim());
  const int64_t half = g.size(last);
  const int64_t doubled = grad.size(last) - half;  // X_1 .. X_doubled have their mirrors in the full signal
  if (doubled <= 0) return g;
  std::vector<Tensor> parts{narrow(g, last, 0, 1), mul(narrow(g, last, 1, doubled), scalar_to_tensor(Scalar(2.0), /*wrapped=*/true))};
  if (1 + doubled < half) parts.push_back(narrow(g, last, 1 + doubled, half - 1 - doubled));
  return cat(parts, last);
}

}  // namespace torchlite::autograd
