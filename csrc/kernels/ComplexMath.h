#pragma once
// The scalar_math functions of Complex<T> for `pointwise:` expressions (the generated kernels of ops that list
// complex dtypes include this header after ScalarMath.h). Real arguments get the identity where a function
// means something for both (conj), so one expression serves every dtype.
//
// The elementary functions are the standard library's complex ones (their branch cuts and special values are
// C99's, as NumPy's and PyTorch's are): std::complex on the host, libcu++'s cuda::std::complex (CUDA toolkit)
// when nvcc compiles, for the host and the device alike. log1p, expm1 and sgn are written here, as the
// standard has no complex form of them.
#include "core/Complex.h"
#include "core/Macros.h"
#include "kernels/ScalarMath.h"

#if defined(__CUDACC__)
#include <cuda/std/complex>
#define TL_COMPLEX_STD cuda::std
#else
#include <complex>
#define TL_COMPLEX_STD std
#endif

namespace torchlite::scalar_math {

template <typename T>
TL_HOST_DEVICE inline T conj(T x) {
  return x;
}
template <typename T>
TL_HOST_DEVICE inline Complex<T> conj(Complex<T> x) {
  return {x.re, -x.im};
}

namespace complex_detail {
template <typename T>
TL_HOST_DEVICE inline TL_COMPLEX_STD::complex<T> to_std(Complex<T> z) {
  return TL_COMPLEX_STD::complex<T>(z.re, z.im);
}
template <typename T>
TL_HOST_DEVICE inline Complex<T> from_std(const TL_COMPLEX_STD::complex<T>& z) {
  return Complex<T>(z.real(), z.imag());
}
}  // namespace complex_detail

#define TL_COMPLEX_FN(name)                                                         \
  template <typename T>                                                             \
  TL_HOST_DEVICE inline Complex<T> name(Complex<T> z) {                             \
    return complex_detail::from_std(TL_COMPLEX_STD::name(complex_detail::to_std(z))); \
  }
TL_COMPLEX_FN(exp)
TL_COMPLEX_FN(log)
TL_COMPLEX_FN(log10)
TL_COMPLEX_FN(sqrt)
TL_COMPLEX_FN(sin)
TL_COMPLEX_FN(cos)
TL_COMPLEX_FN(tan)
TL_COMPLEX_FN(asin)
TL_COMPLEX_FN(acos)
TL_COMPLEX_FN(atan)
TL_COMPLEX_FN(sinh)
TL_COMPLEX_FN(cosh)
TL_COMPLEX_FN(tanh)
TL_COMPLEX_FN(asinh)
TL_COMPLEX_FN(acosh)
TL_COMPLEX_FN(atanh)
#undef TL_COMPLEX_FN

// |z| (a real number): hypot, no overflow of re^2 + im^2.
template <typename T>
TL_HOST_DEVICE inline T abs(Complex<T> z) {
  return hypot(z.re, z.im);
}

template <typename T>
TL_HOST_DEVICE inline Complex<T> pow(Complex<T> z, Complex<T> w) {
  return complex_detail::from_std(TL_COMPLEX_STD::pow(complex_detail::to_std(z), complex_detail::to_std(w)));
}

template <typename T>
TL_HOST_DEVICE inline Complex<T> log2(Complex<T> z) {
  const Complex<T> l = log(z);
  return {l.re / T(0.6931471805599453), l.im / T(0.6931471805599453)};
}
template <typename T>
TL_HOST_DEVICE inline Complex<T> exp2(Complex<T> z) {
  return exp(Complex<T>(z.re * T(0.6931471805599453), z.im * T(0.6931471805599453)));
}
template <typename T>
TL_HOST_DEVICE inline Complex<T> rsqrt(Complex<T> z) {
  return Complex<T>(T(1)) / sqrt(z);
}

template <typename T>
TL_HOST_DEVICE inline Complex<T> sigmoid(Complex<T> z) {
  return Complex<T>(T(1)) / (Complex<T>(T(1)) + exp(-z));
}

// log(1 + z) without the cancellation of 1 + z for small z: log|1 + z| = log1p(x (x + 2) + y^2) / 2 when |z| is
// small (x itself when that underflows to 0), log(hypot(1 + x, y)) otherwise; the angle is atan2(y, 1 + x).
template <typename T>
TL_HOST_DEVICE inline Complex<T> log1p(Complex<T> z) {
  const T x = z.re, y = z.im;
  const T angle = atan2(y, x + T(1));
  if (abs(z) < T(0.5)) {
    const T r = x * (x + T(2)) + y * y;
    if (r == T(0)) return {x, angle};
    return {T(0.5) * log1p(r), angle};
  }
  return {log(hypot(x + T(1), y)), angle};
}

// e^z - 1 without the cancellation for small z: e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y / 2).
template <typename T>
TL_HOST_DEVICE inline Complex<T> expm1(Complex<T> z) {
  const T x = z.re, y = z.im;
  const T half = sin(y / T(2));
  return {expm1(x) * cos(y) - T(2) * half * half, exp(x) * sin(y)};
}

// z / |z|, 0 at 0: PyTorch's sgn (`sign` refuses complex numbers).
template <typename T>
TL_HOST_DEVICE inline Complex<T> sgn(Complex<T> z) {
  const T a = abs(z);
  if (a == T(0)) return {T(0), T(0)};
  return {z.re / a, z.im / a};
}

template <typename T>
TL_HOST_DEVICE inline bool isnan(Complex<T> z) {
  return isnan(z.re) || isnan(z.im);
}
template <typename T>
TL_HOST_DEVICE inline bool isinf(Complex<T> z) {
  return isinf(z.re) || isinf(z.im);
}
template <typename T>
TL_HOST_DEVICE inline bool isfinite(Complex<T> z) {
  return isfinite(z.re) && isfinite(z.im);
}

// As the real lerp, with |weight| deciding which end the result is computed from.
template <typename T>
TL_HOST_DEVICE inline Complex<T> lerp(Complex<T> self, Complex<T> end, Complex<T> weight) {
  const Complex<T> diff = end - self;
  return abs(weight) < T(0.5) ? self + weight * diff : end - diff * (Complex<T>(T(1)) - weight);
}

}  // namespace torchlite::scalar_math

#undef TL_COMPLEX_STD
