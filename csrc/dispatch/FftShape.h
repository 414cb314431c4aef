#pragma once
// What the FFT metas, kernels and compositions share: PyTorch's normalization codes of _fft_c2c/_fft_r2c/
// _fft_c2r, the scale each stands for, and the transformed dims checked and wrapped.
#include <cmath>
#include <cstdint>

#include "core/Error.h"
#include "core/Tensor.h"

namespace torchlite::fft {

constexpr int64_t kNormNone = 0, kNormByRootN = 1, kNormByN = 2;

// The factor normalization applies to a transform of n points in all: 1, 1/sqrt(n) or 1/n.
inline double norm_scale(int64_t normalization, int64_t n) {
  if (normalization == kNormByN) return 1.0 / static_cast<double>(n);
  if (normalization == kNormByRootN) return 1.0 / std::sqrt(static_cast<double>(n));
  return 1.0;
}

// dim wrapped into [0, t.dim()), after checking that the dims are unique (PyTorch's "FFT dims must be unique").
inline DimVector wrap_fft_dims(const Tensor& t, IntArrayRef dim, const char* op) {
  DimVector d;
  for (int64_t x : dim) {
    int64_t w = wrap_dim(x, t.dim());
    for (int64_t seen : d) TL_CHECK(seen != w, op, ": FFT dims must be unique");
    d.push_back(w);
  }
  return d;
}

}  // namespace torchlite::fft
