#pragma once
// The functions `pointwise:` expressions may call (listed in codegen/helpers.yaml),
// with overloads for the op-math types on the host and on CUDA devices.
#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/Macros.h"

namespace torchlite {
// Thrown by scalar_math on the host (integer division by zero); the generated
// kernel names its op in the message. Device code cannot throw.
[[noreturn]] void throw_kernel_error(const char* msg);
}  // namespace torchlite

namespace torchlite::scalar_math {

template <typename T>
inline constexpr bool is_float_v = std::is_floating_point_v<T>;

TL_HOST_DEVICE inline void zero_division() {
#ifndef __CUDA_ARCH__
  throw_kernel_error("ZeroDivisionError: integer division by zero");
#endif
}

template <typename T>
TL_HOST_DEVICE inline T abs(T x) {
  if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
    return x;
  } else if constexpr (std::is_integral_v<T>) {
    // Wraps for the most negative value, as PyTorch does.
    return x < 0 ? static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x)) : x;
  } else {
    return ::fabs(x);
  }
}
TL_HOST_DEVICE inline float abs(float x) { return ::fabsf(x); }

// Unary libm functions, for the floating op-math types (float, double).
#define TL_UNARY_LIBM(name, float_fn, double_fn)                         \
  TL_HOST_DEVICE inline float name(float x) { return ::float_fn(x); }    \
  TL_HOST_DEVICE inline double name(double x) { return ::double_fn(x); }
#ifndef __CUDA_ARCH__
// e^x in float on the host without a libm call, so loops over it vectorize: x = n ln2 + r with
// |r| <= ln2/2 (Cody-Waite: ln2 in two parts), e^r by a degree-7 polynomial (Cephes' expf
// coefficients), times 2^n built from its bits in two halves (so results down to the denormals are
// right). Within 2 ulp of the exact value; overflow gives inf, underflow 0, NaN stays NaN.
// exp_float_poly is the reduction and the polynomial alone, e^x = 2^n * (its result) for x in [-104, 89] with
// the integer n stored in `n`, for kernels that know their argument's range (softmax's rows).
inline float exp_float_poly(float x, float& n) {
  const float kMagic = 12582912.0f;  // 1.5 * 2^23: adding and subtracting it rounds to an integer
  n = (x * 1.44269504088896341f + kMagic) - kMagic;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  const float z = r * r;
  float y = 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  return y * z + r + 1.0f;
}
inline float exp_float_host(float x) {
  const float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
  float n;
  const float y = exp_float_poly(xc, n);
  const int32_t k = static_cast<int32_t>(n);
  const int32_t k1 = k >> 1, k2 = k - k1;  // each in [-75, 64]: 2^k1 and 2^k2 are normal floats
  const uint32_t b1 = static_cast<uint32_t>(k1 + 127) << 23, b2 = static_cast<uint32_t>(k2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  const float result = y * s1 * s2;
  return x != x ? x : result;
}
inline float exp(float x) { return exp_float_host(x); }
#else
__device__ inline float exp(float x) { return ::expf(x); }
#endif
TL_HOST_DEVICE inline double exp(double x) { return ::exp(x); }
TL_UNARY_LIBM(exp2, exp2f, exp2)
TL_UNARY_LIBM(expm1, expm1f, expm1)
TL_UNARY_LIBM(log, logf, log)
TL_UNARY_LIBM(log2, log2f, log2)
TL_UNARY_LIBM(log10, log10f, log10)
TL_UNARY_LIBM(log1p, log1pf, log1p)
TL_UNARY_LIBM(sqrt, sqrtf, sqrt)
TL_UNARY_LIBM(sin, sinf, sin)
TL_UNARY_LIBM(cos, cosf, cos)
TL_UNARY_LIBM(tan, tanf, tan)
TL_UNARY_LIBM(asin, asinf, asin)
TL_UNARY_LIBM(acos, acosf, acos)
TL_UNARY_LIBM(atan, atanf, atan)
TL_UNARY_LIBM(sinh, sinhf, sinh)
TL_UNARY_LIBM(cosh, coshf, cosh)
TL_UNARY_LIBM(tanh, tanhf, tanh)
TL_UNARY_LIBM(asinh, asinhf, asinh)
TL_UNARY_LIBM(acosh, acoshf, acosh)
TL_UNARY_LIBM(atanh, atanhf, atanh)
TL_UNARY_LIBM(erf, erff, erf)
TL_UNARY_LIBM(erfc, erfcf, erfc)
#undef TL_UNARY_LIBM

TL_HOST_DEVICE inline float rsqrt(float x) { return 1.0f / ::sqrtf(x); }
TL_HOST_DEVICE inline double rsqrt(double x) { return 1.0 / ::sqrt(x); }

// Rounding: identity on integers; round is half-to-even (rint in the default rounding mode).
template <typename T> TL_HOST_DEVICE inline T floor(T x) { return x; }
template <typename T> TL_HOST_DEVICE inline T ceil(T x) { return x; }
template <typename T> TL_HOST_DEVICE inline T trunc(T x) { return x; }
template <typename T> TL_HOST_DEVICE inline T round(T x) { return x; }
TL_HOST_DEVICE inline float floor(float x) { return ::floorf(x); }
TL_HOST_DEVICE inline double floor(double x) { return ::floor(x); }
TL_HOST_DEVICE inline float ceil(float x) { return ::ceilf(x); }
TL_HOST_DEVICE inline double ceil(double x) { return ::ceil(x); }
TL_HOST_DEVICE inline float trunc(float x) { return ::truncf(x); }
TL_HOST_DEVICE inline double trunc(double x) { return ::trunc(x); }
TL_HOST_DEVICE inline float round(float x) { return ::rintf(x); }
TL_HOST_DEVICE inline double round(double x) { return ::rint(x); }
// round(x, decimals): half-to-even at 10^-decimals, as torch.round(decimals=).
template <typename T>
TL_HOST_DEVICE inline T round_decimals(T x, T decimals) {
  if constexpr (!is_float_v<T>) {
    return x;
  } else {
    bool neg = decimals < 0;
    T ten_pow = static_cast<T>(::pow(10.0, static_cast<double>(neg ? -decimals : decimals)));
    return neg ? round(x / ten_pow) * ten_pow : round(x * ten_pow) / ten_pow;
  }
}

// -1, 0 or 1 (0 for NaN's sign is NaN); bool stays bool.
template <typename T>
TL_HOST_DEVICE inline T sign(T x) {
  if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return x > 0;
  } else if constexpr (is_float_v<T>) {
    if (x != x) return x;
    return static_cast<T>((T(0) < x) - (x < T(0)));
  } else {
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
}

template <typename T> TL_HOST_DEVICE inline bool isnan(T x) {
  if constexpr (is_float_v<T>) return x != x; else return false;
}
template <typename T> TL_HOST_DEVICE inline bool isinf(T x) {
  if constexpr (is_float_v<T>) return x == std::numeric_limits<T>::infinity() || x == -std::numeric_limits<T>::infinity();
  else return false;
}
template <typename T> TL_HOST_DEVICE inline bool isfinite(T x) {
  if constexpr (is_float_v<T>) return x == x && !isinf(x); else return true;
}
template <typename T> TL_HOST_DEVICE inline bool signbit(T x) {
  if constexpr (is_float_v<T>) return ::copysign(T(1), x) < 0;
  else if constexpr (std::is_signed_v<T>) return x < 0;
  else return false;
}

TL_HOST_DEVICE inline float atan2(float y, float x) { return ::atan2f(y, x); }
TL_HOST_DEVICE inline double atan2(double y, double x) { return ::atan2(y, x); }
TL_HOST_DEVICE inline float hypot(float x, float y) { return ::hypotf(x, y); }
TL_HOST_DEVICE inline double hypot(double x, double y) { return ::hypot(x, y); }
TL_HOST_DEVICE inline float copysign(float x, float y) { return ::copysignf(x, y); }
TL_HOST_DEVICE inline double copysign(double x, double y) { return ::copysign(x, y); }
TL_HOST_DEVICE inline float nextafter(float x, float y) { return ::nextafterf(x, y); }
TL_HOST_DEVICE inline double nextafter(double x, double y) { return ::nextafter(x, y); }

// gcd and lcm of integers (the gcd and lcm ops): non-negative, gcd(0, 0) = 0, lcm(x, 0) = 0; the most
// negative value wraps as in two's complement (-fwrapv), as PyTorch's.
template <typename T> TL_HOST_DEVICE inline T gcd(T a, T b) {
  static_assert(!is_float_v<T>, "gcd is defined for integers only");
  if constexpr (std::is_signed_v<T>) {
    a = a < 0 ? T(-a) : a;
    b = b < 0 ? T(-b) : b;
  }
  while (b != 0) {
    T r = T(a % b);
    a = b;
    b = r;
  }
  return a;
}
template <typename T> TL_HOST_DEVICE inline T lcm(T a, T b) {
  T g = gcd(a, b);
  if (g == 0) return T(0);
  T r = T(T(a / g) * b);
  if constexpr (std::is_signed_v<T>) r = r < 0 ? T(-r) : r;
  return r;
}

// Integer division helpers: zero divisors raise on the host; x / -1 wraps
// instead of trapping for the most negative value.
template <typename T>
TL_HOST_DEVICE inline T int_div(T a, T b) {
  if (b == 0) {
    zero_division();
    return 0;
  }
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a));
  }
  return static_cast<T>(a / b);
}
template <typename T>
TL_HOST_DEVICE inline T int_mod(T a, T b) {
  if (b == 0) {
    zero_division();
    return 0;
  }
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// a / b rounded toward zero.
template <typename T>
TL_HOST_DEVICE inline T div_trunc(T a, T b) {
  if constexpr (is_float_v<T>) return trunc(a / b); else return int_div(a, b);
}

// a / b rounded toward negative infinity (Python's //). For floats, computed from
// fmod so that the result is exact when a / b is close to an integer.
template <typename T>
TL_HOST_DEVICE inline T div_floor(T a, T b) {
  if constexpr (is_float_v<T>) {
    if (b == 0) return a / b;
    T mod = ::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= T(1);
    if (div == 0) return copysign(T(0), a / b);
    T floordiv = floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
    return floordiv;
  } else {
    T q = int_div(a, b);
    if constexpr (std::is_signed_v<T>) {
      if (b != 0 && b != -1 && a % b != 0 && ((a < 0) != (b < 0))) q -= 1;
    }
    return q;
  }
}

// C's fmod: the remainder has the sign of the dividend.
template <typename T>
TL_HOST_DEVICE inline T fmod(T a, T b) {
  if constexpr (is_float_v<T>) return ::fmod(a, b); else return int_mod(a, b);
}

// Python's %: the remainder has the sign of the divisor.
template <typename T>
TL_HOST_DEVICE inline T remainder(T a, T b) {
  T mod = fmod(a, b);
  if constexpr (std::is_signed_v<T> || is_float_v<T>) {
    if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
  }
  return mod;
}

// Shifts as PyTorch: a left shift by >= the bit width gives 0, a right shift by
// >= the width (or a negative count) fills with the sign.
template <typename T>
TL_HOST_DEVICE inline T shift_left(T a, T b) {
  constexpr T bits = sizeof(T) * 8;
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) return 0;
  }
  if (b >= bits) return 0;
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) << b);
}
template <typename T>
TL_HOST_DEVICE inline T shift_right(T a, T b) {
  constexpr T bits = sizeof(T) * 8;
  bool too_far = b >= bits;
  if constexpr (std::is_signed_v<T>) too_far = too_far || b < 0;
  if (too_far) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
    else return 0;
  }
  return static_cast<T>(a >> b);
}

TL_HOST_DEVICE inline float pow(float x, float y) { return ::powf(x, y); }
TL_HOST_DEVICE inline double pow(double x, double y) { return ::pow(x, y); }
// Integer power by squaring. A negative exponent gives 0 unless the base is 1 or -1
// (PyTorch refuses negative integer exponents before the kernel runs).
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
TL_HOST_DEVICE inline T pow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return base || !exp;
  } else {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? -1 : 1;
      return 0;
    }
    // Multiply in the unsigned type so that overflow wraps instead of being UB.
    using U = std::make_unsigned_t<T>;
    U result = 1, b = static_cast<U>(base);
    while (exp) {
      if (exp & 1) result *= b;
      b *= b;
      exp >>= 1;
    }
    return static_cast<T>(result);
  }
}

// NaN-propagating min and max.
template <typename T>
TL_HOST_DEVICE inline T min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return b < a ? b : a;
}
template <typename T>
TL_HOST_DEVICE inline T max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? b : a;
}

// NaN-ignoring max and min (C's fmax/fmin); integers as max/min.
template <typename T>
TL_HOST_DEVICE inline T fmax(T a, T b) {
  if constexpr (is_float_v<T>) return ::fmax(a, b); else return a < b ? b : a;
}
template <typename T>
TL_HOST_DEVICE inline T fmin(T a, T b) {
  if constexpr (is_float_v<T>) return ::fmin(a, b); else return b < a ? b : a;
}

// NaN-propagating clamp; with lo > hi every value becomes hi.
template <typename T>
TL_HOST_DEVICE inline T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }

// Linear interpolation, accurate at both ends (weight 0 gives self, 1 gives end).
template <typename T>
TL_HOST_DEVICE inline T lerp(T self, T end, T weight) {
  T diff = end - self;
  return (weight < T(0.5) && weight > T(-0.5)) ? self + weight * diff : end - diff * (T(1) - weight);
}

TL_HOST_DEVICE inline float sigmoid(float x) { return 1.0f / (1.0f + ::expf(-x)); }
TL_HOST_DEVICE inline double sigmoid(double x) { return 1.0 / (1.0 + ::exp(-x)); }
TL_HOST_DEVICE inline float logit(float x) { return ::logf(x / (1.0f - x)); }
TL_HOST_DEVICE inline double logit(double x) { return ::log(x / (1.0 - x)); }

// lgamma without touching glibc's global signgam on the host.
TL_HOST_DEVICE inline double lgamma(double x) {
#ifdef __CUDA_ARCH__
  return ::lgamma(x);
#else
  int sign;
  return ::lgamma_r(x, &sign);
#endif
}
TL_HOST_DEVICE inline float lgamma(float x) {
#ifdef __CUDA_ARCH__
  return ::lgammaf(x);
#else
  int sign;
  return ::lgammaf_r(x, &sign);
#endif
}

// digamma: reflection for negative x, recurrence up to 10, then the asymptotic series.
template <typename T>
TL_HOST_DEVICE inline T digamma(T x) {
  constexpr double kPi = 3.14159265358979323846;
  double v = static_cast<double>(x);
  if (v == 0) return static_cast<T>(::copysign(HUGE_VAL, -v));
  double result = 0;
  if (v < 0) {
    if (v == ::trunc(v)) return static_cast<T>(NAN);
    // digamma(1 - v) - pi / tan(pi v), with the tan argument reduced for accuracy.
    double r = ::fmod(v, 1.0);
    result = -kPi / ::tan(kPi * r);
    v = 1 - v;
  }
  while (v < 10) {
    result -= 1 / v;
    v += 1;
  }
  double inv2 = 1 / (v * v);
  double series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))));
  return static_cast<T>(result + ::log(v) - 0.5 / v - series);
}

// Hurwitz zeta(s, q) = sum_{k >= 0} (q + k)^-s, for an integer s >= 2 and q > 0: the
// terms summed one by one until q + k reaches `far`, the rest from the Euler-Maclaurin
// formula, q^(1-s) / (s-1) + q^-s / 2 + sum_j B_2j / (2j)! s (s+1) ... (s+2j-2) q^(-s-2j+1),
// whose terms shrink like ((s + 2j) / (2 pi q))^2 once q > s. Past s = 100, q^-s at
// q >= 110 is below 1e-200 of the first terms, so `far` stops growing there.
TL_HOST_DEVICE inline double hurwitz_zeta(double s, double q) {
  const double kBernoulliOverFactorial[12] = {
      0.08333333333333333,     -0.001388888888888889,   3.306878306878307e-05,  -8.267195767195768e-07,
      2.08767569878681e-08,    -5.284190138687493e-10,  1.3382536530684679e-11, -3.3896802963225827e-13,
      8.586062056277845e-15,   -2.174868698558062e-16,  5.5090028283602295e-18, -1.3954464685812522e-19};
  double far = 10 + (s < 100 ? s : 100);
  double head = 0;
  for (; q < far; q += 1) head += ::pow(q, -s);
  double q_s = ::pow(q, -s);
  double tail = q * q_s / (s - 1) + 0.5 * q_s;
  double rising = s;        // s (s+1) ... (s+2j-2)
  double power = q_s / q;   // q^(-s-2j+1)
  for (int j = 1; j <= 12; ++j) {
    tail += kBernoulliOverFactorial[j - 1] * rising * power;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    power /= q * q;
  }
  return head + tail;
}

// polygamma(n, x): the n-th derivative of digamma, n >= 0 (n = 0 is digamma). For
// n >= 1 it is (-1)^(n+1) n! zeta(n+1, x); for x < 0, with f = x - floor(x),
// zeta(s, x) = zeta(s, f) + (-1)^s (zeta(s, 1-f) - zeta(s, 1-x)) (the terms with
// negative q + k summed as those of 1-f, minus the ones past them). Large n overflow
// n! (inf) or underflow zeta (0) before their product does, as in PyTorch. Poles at 0, -1,
// -2... (and -inf) give inf with the sign of (-1)^(n+1), as PyTorch; +inf gives 0.
TL_HOST_DEVICE inline double polygamma_order(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (x != x) return x;
  double sign = n % 2 == 1 ? 1.0 : -1.0;
  if (x == HUGE_VAL) return sign * 0.0;
  if (x <= 0 && x == ::floor(x)) return sign * HUGE_VAL;
  double s = static_cast<double>(n) + 1;
  double zeta;
  if (x > 0) {
    zeta = hurwitz_zeta(s, x);
  } else {
    double f = x - ::floor(x);
    double odd = n % 2 == 0 ? -1.0 : 1.0;  // (-1)^s
    // (the first two first: for odd s at f = 1/2 they cancel exactly)
    zeta = (hurwitz_zeta(s, f) + odd * hurwitz_zeta(s, 1 - f)) - odd * hurwitz_zeta(s, 1 - x);
  }
  if (zeta == 0) return sign * 0.0;  // so that an overflowing n! does not make 0 * inf
  double factorial = 1;
  for (int64_t k = 2; k <= n && factorial != HUGE_VAL; ++k) factorial *= static_cast<double>(k);
  return sign * factorial * zeta;
}
template <typename T>
TL_HOST_DEVICE inline T polygamma(T n, T x) {
  return static_cast<T>(polygamma_order(static_cast<int64_t>(n), static_cast<double>(x)));
}

// erfinv: an initial guess (Giles' single-precision approximation) refined by
// Newton steps on erf in double.
TL_HOST_DEVICE inline double erfinv(double y) {
  if (!(y >= -1 && y <= 1)) return NAN;
  if (y == 1) return HUGE_VAL;
  if (y == -1) return -HUGE_VAL;
  double w = -::log((1 - y) * (1 + y)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = ::sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * y;
  constexpr double kTwoOverSqrtPi = 1.1283791670955126;
  for (int i = 0; i < 2; ++i) x -= (::erf(x) - y) / (kTwoOverSqrtPi * ::exp(-x * x));
  return x;
}
TL_HOST_DEVICE inline float erfinv(float y) { return static_cast<float>(erfinv(static_cast<double>(y))); }

}  // namespace torchlite::scalar_math

// torchlite.special's functions (issue 18): Bessel, gamma, zeta, error-function family, polynomials.
#include "kernels/SpecialMath.h"
