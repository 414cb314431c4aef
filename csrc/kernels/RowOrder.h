#pragma once
// The order of the sorting and selection kernels (kernels/cpu/sorting.cpp, kernels/gpu/sorting.inc), one
// definition for every device: positions of a row by value (NaN as the largest; reversed when descending),
// then by position. A strict total order: sorting by it is a stable sort, and partial sorts and selections
// with it pick exactly the elements a stable sort would put there.
#include <cstdint>

#include "core/Macros.h"
#include "core/ScalarType.h"
#include "kernels/ScalarMath.h"

namespace torchlite {

// Whether position a of row x comes before position b.
template <typename T>
TL_HOST_DEVICE inline bool row_before(const T* x, bool descending, int64_t a, int64_t b) {
  using op_t = opmath_t<T>;
  const op_t va = static_cast<op_t>(x[a]), vb = static_cast<op_t>(x[b]);
  const bool na = scalar_math::isnan(va), nb = scalar_math::isnan(vb);
  if (na || nb) {
    if (na && nb) return a < b;
    return descending ? na : nb;
  }
  if (va != vb) return descending ? va > vb : va < vb;
  return a < b;
}

}  // namespace torchlite
