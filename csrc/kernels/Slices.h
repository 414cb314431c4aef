#pragma once
// A tensor seen along one dim as [outer, n, inner] (contiguous: slice k along dim starts at
// k / inner * n * inner + k % inner and steps by inner), as the softmax kernels of both devices read it.
#include "core/Tensor.h"

namespace torchlite {

struct Slices {
  int64_t outer = 1, n = 1, inner = 1;
};

inline Slices slices_of(const Tensor& t, int64_t dim) {
  Slices s;
  if (t.dim() == 0) return s;
  const int64_t d = t.wrap_dim(dim);
  for (int64_t i = 0; i < d; ++i) s.outer *= t.size(i);
  s.n = t.size(d);
  for (int64_t i = d + 1; i < t.dim(); ++i) s.inner *= t.size(i);
  return s;
}

}  // namespace torchlite
