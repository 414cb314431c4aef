#pragma once
// The scalar_math functions of Complex<T> for `pointwise:` expressions (the generated kernels of ops that list
// complex dtypes include this header after ScalarMath.h). Real arguments get the identity where a function
// means something for both (conj), so one expression serves every dtype.
#include "core/Complex.h"
#include "core/Macros.h"

namespace torchlite::scalar_math {

template <typename T>
TL_HOST_DEVICE inline T conj(T x) {
  return x;
}
template <typename T>
TL_HOST_DEVICE inline Complex<T> conj(Complex<T> x) {
  return {x.re, -x.im};
}

}  // namespace torchlite::scalar_math
