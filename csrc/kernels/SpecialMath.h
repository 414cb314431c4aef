#pragma once
// The special functions of torchlite.special (issue 18) for `pointwise:` expressions, included by
// kernels/ScalarMath.h into torchlite::scalar_math and listed in codegen/helpers.yaml. Each is computed
// in double on the host and on CUDA devices (a float argument is widened and the result rounded once),
// by series, continued fractions, Miller's backward recurrence, trapezoidal rules on integral
// representations (which converge geometrically for these analytic integrands) and asymptotic
// expansions, each in the range where it reaches double precision. Values at the edges (0, poles,
// infinities, NaN, outside the domain) are PyTorch's.
#include <cmath>
#include <cstdint>

#include "core/Macros.h"

namespace torchlite::scalar_math {
namespace special_detail {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEulerGamma = 0.57721566490153286061;
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kSqrtPi = 1.77245385090551602730;
constexpr double kSqrt2Pi = 2.50662827463100050242;
constexpr double kEps = 1.1102230246251565e-16;  // 2^-53

TL_HOST_DEVICE inline double nan() { return NAN; }
TL_HOST_DEVICE inline double inf() { return HUGE_VAL; }

// e^(x^2) with the rounding error of x^2 carried (x^2 = hi + lo exactly), so the result keeps the
// accuracy of exp even where x^2 is large.
TL_HOST_DEVICE inline double exp_square(double x) {
  double hi = x * x;
  double lo = ::fma(x, x, -hi);
  return ::exp(hi) * (1 + lo);
}

// ---------------------------------------------------------------------------- error-function family
// erfcx(x) = e^(x^2) erfc(x), x >= 0: the product below 25 (erfc is still a normal number there), then
// the asymptotic series 1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2 x^2)^k, whose terms fall below
// 2^-53 within 8 terms for x >= 25.
TL_HOST_DEVICE inline double erfcx_nonnegative(double x) {
  if (x < 25) return exp_square(x) * ::erfc(x);
  if (x == inf()) return 0;
  double inv = 1 / (2 * x * x), term = 1, sum = 1;
  for (int k = 1; k < 12; ++k) {
    term *= -(2 * k - 1) * inv;
    sum += term;
  }
  return sum / (x * kSqrtPi);
}
TL_HOST_DEVICE inline double erfcx(double x) {
  if (x != x) return x;
  if (x >= 0) return erfcx_nonnegative(x);
  if (x < -26.7) return inf();  // 2 e^(x^2) overflows
  return 2 * exp_square(x) - erfcx_nonnegative(-x);
}

// The standard normal distribution function, 0.5 erfc(-x / sqrt(2)).
TL_HOST_DEVICE inline double ndtr(double x) { return 0.5 * ::erfc(-x / kSqrt2); }

// log(ndtr(x)): below -1 from erfcx (no underflow: log(erfcx(-t) / 2) - t^2), else log1p(-erfc(t) / 2).
TL_HOST_DEVICE inline double log_ndtr(double x) {
  double t = x / kSqrt2;
  if (x < -1) return ::log(erfcx(-t) / 2) - t * t;
  return ::log1p(-::erfc(t) / 2);
}

// The inverse of ndtr: Acklam's rational approximations (relative error below 1.2e-9), then one
// Halley step on ndtr(x) - p, which brings it to double precision.
TL_HOST_DEVICE inline double ndtri(double p) {
  if (!(p >= 0 && p <= 1)) return nan();
  if (p == 0) return -inf();
  if (p == 1) return inf();
  const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                       1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                       6.680131188771972e+01,  -1.328068155288572e+01};
  const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                       -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                       3.754408661907416e+00};
  double x;
  if (p < 0.02425 || p > 1 - 0.02425) {
    double q = ::sqrt(-2 * ::log(p < 0.5 ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > 0.5) x = -x;
  } else {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // Halley: e = ndtr(x) - p (from the upper tail above the median, where p's complement is exact
  // enough), u = e / ndtr'(x), x -= u / (1 + x u / 2).
  double e = p < 0.5 ? ndtr(x) - p : (1 - p) - ndtr(-x);
  double u = e * kSqrt2Pi * ::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

// ---------------------------------------------------------------------------- incomplete gamma
// lgamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2): Stirling's series, for a >= 10.
TL_HOST_DEVICE inline double stirling_correction(double a) {
  double r = 1 / a, r2 = r * r;
  return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 * (1.0 / 1188 - r2 * (691.0 / 360360))))));
}
// log(1 + d) - d, accurate near d = 0.
TL_HOST_DEVICE inline double log1pmx(double d) {
  if (::fabs(d) > 0.25) return ::log1p(d) - d;
  double term = d, sum = 0;
  for (int k = 2; k < 60; ++k) {
    term *= -d;
    double t = term / k;
    sum += t;
    if (::fabs(t) < kEps * ::fabs(sum)) break;
  }
  return sum;
}
// x^a e^-x / Gamma(a), for a > 0, x > 0; for large a as exp(a log1pmx((x - a) / a)) sqrt(a / 2 pi) /
// e^(Stirling's correction), which avoids the cancellation of a log x - x - lgamma(a).
TL_HOST_DEVICE inline double igamma_prefactor(double a, double x) {
  if (a < 10) {
    double lg;
#ifdef __CUDA_ARCH__
    lg = ::lgamma(a);
#else
    int sign;
    lg = ::lgamma_r(a, &sign);
#endif
    return ::exp(a * ::log(x) - x - lg);
  }
  return ::exp(a * log1pmx((x - a) / a) - stirling_correction(a)) * ::sqrt(a / (2 * kPi));
}
// P(a, x) by its series x^a e^-x / Gamma(a + 1) sum_n x^n / ((a+1)...(a+n)), for x < a + 1.
TL_HOST_DEVICE inline double igamma_series(double a, double x) {
  double term = 1, sum = 1;
  for (int n = 1; n < 200000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term < kEps * sum) break;
  }
  return igamma_prefactor(a, x) / a * sum;
}
// Q(a, x) by its continued fraction (modified Lentz), for x >= a + 1.
TL_HOST_DEVICE inline double igammac_fraction(double a, double x) {
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 200000; ++i) {
    double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    double delta = d * c;
    h *= delta;
    if (::fabs(delta - 1) < kEps) break;
  }
  return igamma_prefactor(a, x) * h;
}
// Q(a, x) for a < 1 and x < a + 1 (< 2), without the cancellation of 1 - P:
// Q = 1 - x^a / Gamma(a + 1) - x^a / Gamma(a + 1) a sum_{k>=1} (-x)^k / (k! (a + k)).
TL_HOST_DEVICE inline double igammac_small_a(double a, double x) {
  double lg;
#ifdef __CUDA_ARCH__
  lg = ::lgamma(a + 1);
#else
  int sign;
  lg = ::lgamma_r(a + 1, &sign);
#endif
  double log_lead = a * ::log(x) - lg;  // log(x^a / Gamma(a + 1))
  double term = 1, sum = 0;
  for (int k = 1; k < 100; ++k) {
    term *= -x / k;
    double t = term / (a + k);
    sum += t;
    if (::fabs(t) < kEps * ::fabs(sum)) break;
  }
  return -::expm1(log_lead) - ::exp(log_lead) * a * sum;
}
// The regularized incomplete gamma functions P(a, x) (upper = false) and Q(a, x) = 1 - P.
TL_HOST_DEVICE inline double igamma_either(double a, double x, bool upper) {
  if (a != a || x != x) return nan();
  if (a < 0 || x < 0 || (a == 0 && x == 0)) return nan();
  if (a == inf() && x == inf()) return nan();
  if (a == 0) return upper ? 0 : 1;
  if (x == 0) return upper ? 1 : 0;
  if (x == inf()) return upper ? 0 : 1;
  if (a == inf()) return upper ? 1 : 0;
  if (x < a + 1) {
    if (upper && a < 1) return igammac_small_a(a, x);
    double p = igamma_series(a, x);
    return upper ? 1 - p : p;
  }
  double q = igammac_fraction(a, x);
  return upper ? q : 1 - q;
}
TL_HOST_DEVICE inline double igamma(double a, double x) { return igamma_either(a, x, false); }
TL_HOST_DEVICE inline double igammac(double a, double x) { return igamma_either(a, x, true); }

// ---------------------------------------------------------------------------- Hurwitz zeta
// zeta(s, q) = sum_{k >= 0} (q + k)^-s for s > 1 (PyTorch's values elsewhere: inf at s = 1 and at
// q = 0, -1, -2...; NaN for s < 1, and for q < 0 with a non-integer s). A negative q with an integer s
// splits the sum at 0: zeta(s, f) + (-1)^s (zeta(s, 1 - f) - zeta(s, 1 - q)), f = q - floor(q). The sum for
// q > 0 is ScalarMath.h's hurwitz_zeta (polygamma's), which includes this header after defining it.
TL_HOST_DEVICE inline double zeta(double s, double q) {
  if (s != s || q != q) return nan();
  if (s == 1) return inf();
  if (s < 1) return nan();
  if (q <= 0) {
    if (q == ::floor(q)) return inf();
    if (s != ::floor(s)) return nan();
  }
  if (q == inf()) return nan();
  if (s == inf()) return q < 1 ? inf() : (q == 1 ? 1 : nan());
  if (q > 0) return hurwitz_zeta(s, q);
  double f = q - ::floor(q);
  double odd = ::fmod(s, 2.0) == 0 ? 1.0 : -1.0;  // (-1)^s
  return (hurwitz_zeta(s, f) + odd * hurwitz_zeta(s, 1 - f)) - odd * hurwitz_zeta(s, 1 - q);
}

// ---------------------------------------------------------------------------- modified Bessel I
// I0 and I1 by their power series up to |x| = 20 (positive terms: no cancellation), beyond by the
// asymptotic expansion e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k, a_k = prod_{j<=k} (4 nu^2 -
// (2j-1)^2) / (k! 8^k), whose smallest term is near e^-2x. `scaled` leaves out e^|x| (i0e, i1e).
TL_HOST_DEVICE inline double bessel_i_series(int nu, double x) {
  double q = x * x / 4, term = nu == 0 ? 1.0 : x / 2, sum = term;
  for (int k = 1; k < 500; ++k) {
    term *= q / (k * static_cast<double>(k + nu));
    sum += term;
    if (term < kEps * sum) break;
  }
  return sum;
}
TL_HOST_DEVICE inline double bessel_i_asymptotic_scaled(int nu, double x) {  // e^-x I_nu(x), x > 0
  double mu = 4.0 * nu * nu, term = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    double next = term * -(mu - (2 * k - 1) * (2 * k - 1)) / (k * 8 * x);
    if (::fabs(next) > ::fabs(term)) break;
    term = next;
    sum += term;
    if (::fabs(term) < kEps * ::fabs(sum)) break;
  }
  return sum / ::sqrt(2 * kPi * x);
}
TL_HOST_DEVICE inline double bessel_i(int nu, double x, bool scaled) {
  if (x != x) return x;
  double ax = ::fabs(x);
  if (ax == inf()) return scaled ? (nu == 1 && x < 0 ? -0.0 : 0.0) : nan();  // PyTorch's values
  double r;
  if (ax <= 20) {
    r = bessel_i_series(nu, ax);
    if (scaled) r *= ::exp(-ax);
  } else {
    r = bessel_i_asymptotic_scaled(nu, ax);
    if (!scaled) {
      // e^ax in two halves, so that r e^ax overflows only when the result does
      double h = ::exp(ax / 2);
      r = r * h * h;
    }
  }
  return (nu == 1 && x < 0) ? -r : r;
}
TL_HOST_DEVICE inline double i0(double x) { return bessel_i(0, x, false); }
TL_HOST_DEVICE inline double i0e(double x) { return bessel_i(0, x, true); }
TL_HOST_DEVICE inline double i1(double x) { return bessel_i(1, x, false); }
TL_HOST_DEVICE inline double i1e(double x) { return bessel_i(1, x, true); }

// ---------------------------------------------------------------------------- modified Bessel K
// e^x K_nu(x) = int_0^inf e^(-x (cosh t - 1)) cosh(nu t) dt by the trapezoidal rule: the integrand is
// analytic and decays doubly exponentially, so the error falls geometrically with the step; the step
// shrinks like 1/sqrt(x) as the integrand narrows (a Gaussian of width 1/sqrt(x)). Used for x >= 2.
TL_HOST_DEVICE inline double bessel_k_scaled_integral(double nu, double x) {
  double h = 0.7 / ::sqrt(x);
  if (h > 0.15) h = 0.15;
  double sum = 0.5;  // t = 0: e^0 cosh(0) = 1, half weight
  for (int i = 1; i < 1000; ++i) {
    double t = i * h;
    double f = ::exp(-x * 2 * ::sinh(t / 2) * ::sinh(t / 2)) * ::cosh(nu * t);  // cosh t - 1 = 2 sinh^2(t/2)
    sum += f;
    if (f < 1e-18 * sum) break;
  }
  return sum * h;
}
// K0 and K1 for 0 < x < 2 by their series (DLMF 10.31.1):
// K0 = -(log(x/2) + gamma) I0(x) + sum_k H_k (x^2/4)^k / k!^2,
// K1 = 1/x + log(x/2) I1(x) - x/4 sum_k (psi(k+1) + psi(k+2)) (x^2/4)^k / (k! (k+1)!).
TL_HOST_DEVICE inline double bessel_k_series(int nu, double x) {
  double q = x * x / 4, lx = ::log(x / 2);
  if (nu == 0) {
    double term = 1, harmonic = 0, sum = 0;
    for (int k = 1; k < 100; ++k) {
      term *= q / (static_cast<double>(k) * k);
      harmonic += 1.0 / k;
      sum += harmonic * term;
      if (harmonic * term < kEps * sum) break;
    }
    return -(lx + kEulerGamma) * bessel_i_series(0, x) + sum;
  }
  double term = 1, psi1 = -kEulerGamma, psi2 = 1 - kEulerGamma, sum = psi1 + psi2;
  for (int k = 1; k < 100; ++k) {
    term *= q / (static_cast<double>(k) * (k + 1));
    psi1 += 1.0 / k;
    psi2 += 1.0 / (k + 1);
    double t = (psi1 + psi2) * term;
    sum += t;
    if (::fabs(t) < kEps * ::fabs(sum)) break;
  }
  return 1 / x + lx * bessel_i_series(1, x) - x / 4 * sum;
}
TL_HOST_DEVICE inline double bessel_k(int nu, double x, bool scaled) {
  if (x != x) return x;
  if (x < 0) return nan();
  if (x == 0) return inf();
  if (x == inf()) return 0;
  if (x < 2) {
    double r = bessel_k_series(nu, x);
    return scaled ? r * ::exp(x) : r;
  }
  double r = bessel_k_scaled_integral(nu, x);
  return scaled ? r : r * ::exp(-x);
}
TL_HOST_DEVICE inline double modified_bessel_k0(double x) { return bessel_k(0, x, false); }
TL_HOST_DEVICE inline double modified_bessel_k1(double x) { return bessel_k(1, x, false); }
TL_HOST_DEVICE inline double scaled_modified_bessel_k0(double x) { return bessel_k(0, x, true); }
TL_HOST_DEVICE inline double scaled_modified_bessel_k1(double x) { return bessel_k(1, x, true); }

// ---------------------------------------------------------------------------- Bessel J and Y
// For x >= 0. Below 2: the power series of J0, J1 and (DLMF 10.8.1) of Y0, Y1. From 2 to 25: Miller's
// backward recurrence J_{n-1} = (2n/x) J_n - J_{n+1} from far above x, normalized by
// J0 + 2 (J2 + J4 + ...) = 1, with Y0 and Y1 from Neumann's series (DLMF 10.23.? form)
// Y0 = (2/pi)(log(x/2) + gamma) J0 - (4/pi) sum_k (-1)^k J_2k / k and its derivative -Y1. Beyond 25:
// Hankel's expansions, sqrt(2/(pi x)) (P cos chi - Q sin chi) with chi = x - (2 nu + 1) pi / 4.
struct BesselJY {
  double j0, j1, y0, y1;
};
TL_HOST_DEVICE inline BesselJY bessel_jy_series(double x) {
  double q = -x * x / 4, lx = ::log(x / 2);
  // J0, and Y0's sum: sum_k psi(k+1) q^k / k!^2
  double t0 = 1, j0 = 1, psi = -kEulerGamma, s0 = psi;
  // J1 = x/2 sum_k q^k / (k! (k+1)!), and Y1's sum (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!)
  double t1 = 1, j1s = 1, psi2 = 1 - kEulerGamma, s1 = psi + psi2;
  for (int k = 1; k < 60; ++k) {
    t0 *= q / (static_cast<double>(k) * k);
    t1 *= q / (static_cast<double>(k) * (k + 1));
    psi += 1.0 / k;
    psi2 += 1.0 / (k + 1);
    j0 += t0;
    s0 += psi * t0;
    j1s += t1;
    s1 += (psi + psi2) * t1;
    if (::fabs(t0) < 1e-18 && ::fabs(t1) < 1e-18) break;
  }
  double j1 = x / 2 * j1s;
  BesselJY r;
  r.j0 = j0;
  r.j1 = j1;
  r.y0 = 2 / kPi * (lx * j0 - s0);
  r.y1 = -2 / (kPi * x) + 2 / kPi * lx * j1 - x / (2 * kPi) * s1;
  return r;
}
TL_HOST_DEVICE inline BesselJY bessel_jy_miller(double x) {
  int n_start = 2 * static_cast<int>((x + 40) / 2);  // even, far enough above x for double precision
  double next = 0, cur = 1e-30;                        // J_{n+1}, J_n (unnormalized)
  double norm = 0, y0_sum = 0, y1_sum = 0;             // sum_k (-1)^k J_2k / k; sum (-1)^k (J_{2k-1} - J_{2k+1}) / k
  double j_odd_above = 0;                              // J_{2k+1} while at n = 2k
  double j1 = 0;
  for (int n = n_start; n >= 1; --n) {
    // at the top of the loop cur = J_n, next = J_{n+1}
    if (n % 2 == 0) {
      int k = n / 2;
      double sign = (k % 2 == 0) ? 1.0 : -1.0;
      norm += 2 * cur;
      y0_sum += sign * cur / k;
      j_odd_above = next;  // J_{2k+1}
    } else {
      // n = 2k - 1 for k = (n + 1) / 2: J_{2k-1} is cur, J_{2k+1} was remembered
      int k = (n + 1) / 2;
      double sign = (k % 2 == 0) ? 1.0 : -1.0;
      y1_sum += sign * (cur - j_odd_above) / k;
    }
    double prev = 2 * n / x * cur - next;  // J_{n-1}
    next = cur;
    cur = prev;
    if (::fabs(cur) > 1e250) {  // rescale everything kept so far
      next *= 1e-250;
      cur *= 1e-250;
      norm *= 1e-250;
      y0_sum *= 1e-250;
      y1_sum *= 1e-250;
      j_odd_above *= 1e-250;
    }
    if (n == 1) j1 = next;
  }
  norm += cur;  // J0
  BesselJY r;
  r.j0 = cur / norm;
  r.j1 = j1 / norm;
  double lg = ::log(x / 2) + kEulerGamma;
  r.y0 = 2 / kPi * lg * r.j0 - 4 / kPi * (y0_sum / norm);
  r.y1 = -2 / (kPi * x) * r.j0 + 2 / kPi * lg * r.j1 + 2 / kPi * (y1_sum / norm);
  return r;
}
// Hankel's P and Q for order nu at x (DLMF 10.17.3).
TL_HOST_DEVICE inline void hankel_pq(int nu, double x, double& p, double& q) {
  double mu = 4.0 * nu * nu, a = 1;  // a_k(nu) / x^k
  p = 1;
  q = 0;
  for (int k = 1; k < 80; ++k) {
    double next = a * (mu - (2 * k - 1) * (2 * k - 1)) / (k * 8 * x);
    if (::fabs(next) > ::fabs(a) && k > 2) break;
    a = next;
    // a_k / x^k enters P with sign (-1)^(k/2) for even k, Q with (-1)^((k-1)/2) for odd k
    int r = k % 4;
    if (r == 0) p += a;
    else if (r == 2) p -= a;
    else if (r == 1) q += a;
    else q -= a;
    if (::fabs(a) < kEps * 1e-2) break;
  }
}
TL_HOST_DEVICE inline BesselJY bessel_jy_hankel(double x) {
  double s = ::sin(x), c = ::cos(x);
  double scale = ::sqrt(2 / (kPi * x));
  double p0, q0, p1, q1;
  hankel_pq(0, x, p0, q0);
  hankel_pq(1, x, p1, q1);
  // chi0 = x - pi/4: cos = (c + s)/sqrt2, sin = (s - c)/sqrt2; chi1 = x - 3pi/4: cos = (s - c)/sqrt2,
  // sin = -(s + c)/sqrt2
  double c0 = (c + s) / kSqrt2, s0 = (s - c) / kSqrt2, c1 = (s - c) / kSqrt2, s1 = -(s + c) / kSqrt2;
  BesselJY r;
  r.j0 = scale * (p0 * c0 - q0 * s0);
  r.y0 = scale * (p0 * s0 + q0 * c0);
  r.j1 = scale * (p1 * c1 - q1 * s1);
  r.y1 = scale * (p1 * s1 + q1 * c1);
  return r;
}
TL_HOST_DEVICE inline BesselJY bessel_jy(double x) {  // x > 0, finite
  if (x < 2) return bessel_jy_series(x);
  if (x < 25) return bessel_jy_miller(x);
  return bessel_jy_hankel(x);
}
TL_HOST_DEVICE inline double bessel_j0(double x) {
  if (x != x || ::fabs(x) == inf()) return nan();  // PyTorch's NaN at +-inf
  if (x == 0) return 1;
  return bessel_jy(::fabs(x)).j0;
}
TL_HOST_DEVICE inline double bessel_j1(double x) {
  if (x != x || ::fabs(x) == inf()) return nan();
  if (x == 0) return x;
  double r = bessel_jy(::fabs(x)).j1;
  return x < 0 ? -r : r;
}
TL_HOST_DEVICE inline double bessel_y0(double x) {
  if (x != x || x < 0 || x == inf()) return nan();
  if (x == 0) return -inf();
  return bessel_jy(x).y0;
}
TL_HOST_DEVICE inline double bessel_y1(double x) {
  if (x != x || x < 0 || x == inf()) return nan();
  if (x == 0) return -inf();
  return bessel_jy(x).y1;
}
TL_HOST_DEVICE inline double spherical_bessel_j0(double x) {
  if (x != x) return x;
  if (::fabs(x) == inf()) return 0;
  if (::fabs(x) < 1e-8) return 1 - x * x / 6;
  return ::sin(x) / x;
}

// ---------------------------------------------------------------------------- Airy Ai
// -4.5 <= x <= 1: the Maclaurin series Ai = c1 f - c2 g, f = sum 3^k (1/3)_k x^3k / (3k)!,
// g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!. x > 1: Ai = sqrt(x/3) K_{1/3}(zeta) / pi, zeta = 2/3 x^(3/2),
// with K from the trapezoidal rule above. -8.5 <= x < -4.5 (where the Maclaurin series cancels and the
// asymptotic one is not yet accurate): the Taylor series of Ai'' = x Ai around the nearest of -5, -6,
// -7, -8 (Ai and Ai' there to 20 digits), a_{n+2} = (x0 a_n + a_{n-1}) / ((n+2)(n+1)). x < -8.5: the
// asymptotic expansion (DLMF 9.7.9) in zeta.
TL_HOST_DEVICE inline double airy_ai_maclaurin(double x) {
  const double c1 = 0.355028053887817239260, c2 = 0.258819403792806798405;
  double x3 = x * x * x, f = 1, g = x, tf = 1, tg = x;
  for (int k = 1; k < 200; ++k) {
    // f's term: multiply by 3 (1/3 + k - 1) x^3 / ((3k-2)(3k-1)(3k)) = x^3 / ((3k-1)(3k)) ... with
    // (1/3)_k 3^k = prod (3j - 2): term_k = term_{k-1} x^3 / ((3k - 1) 3k)
    tf *= x3 / ((3.0 * k - 1) * (3.0 * k));
    tg *= x3 / ((3.0 * k) * (3.0 * k + 1));
    f += tf;
    g += tg;
    if (::fabs(tf) < kEps * 1e-3 * ::fabs(f) && ::fabs(tg) < kEps * 1e-3 * (::fabs(g) + 1e-300)) break;
  }
  return c1 * f - c2 * g;
}
TL_HOST_DEVICE inline double airy_ai_negative_asymptotic(double x) {  // x < 0, |x| large
  double ax = -x, z = 2.0 / 3.0 * ax * ::sqrt(ax);
  // u_k = (2k+1)(2k+3)...(6k-1) / (216^k k!): u_k = u_{k-1} (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k)
  double u = 1, p = 1, q = 0, zk = 1;
  for (int k = 1; k < 60; ++k) {
    double next_u = u * (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216 * k);
    double next = next_u / (zk * z);
    if (next > u / zk && k > 2) break;
    u = next_u;
    zk *= z;
    double term = u / zk;
    int r = k % 4;  // P = sum (-1)^k u_2k / z^2k, Q = sum (-1)^k u_{2k+1} / z^(2k+1)
    if (r == 0) p += term;
    else if (r == 2) p -= term;
    else if (r == 1) q += term;
    else q -= term;
    if (term < kEps * 1e-2) break;
  }
  double phase = z + kPi / 4;
  return (::sin(phase) * p - ::cos(phase) * q) / (kSqrtPi * ::sqrt(::sqrt(ax)));
}
TL_HOST_DEVICE inline double airy_ai_taylor(double x) {
  const double ai[4] = {0.35076100902411431979, -0.32914517362982310523, 0.18428083525050563728,
                        -0.052705050356386202622};
  const double dai[4] = {0.32719281855444313679, 0.34593548728134289493, -0.77100816841012654773,
                         0.93556093819830655103};
  int i = static_cast<int>(::floor(-x + 0.5)) - 5;  // the nearest center -5 - i
  if (i < 0) i = 0;
  if (i > 3) i = 3;
  double x0 = -5.0 - i, t = x - x0;
  double c_prev = 0, c = ai[i], c_next = dai[i];  // c_{n-1}, c_n, c_{n+1} for n = 0
  double sum = c + c_next * t, power = t;
  for (int n = 0; n < 80; ++n) {
    double c2 = (x0 * c + c_prev) / ((n + 2.0) * (n + 1.0));  // c_{n+2}
    power *= t;                                                // t^(n+2)
    sum += c2 * power;
    c_prev = c;
    c = c_next;
    c_next = c2;
    if (n > 4 && ::fabs(c2 * power) < kEps * 1e-2) break;
  }
  return sum;
}
TL_HOST_DEVICE inline double airy_ai(double x) {
  if (x != x || ::fabs(x) == inf()) return nan();  // PyTorch's NaN at +-inf
  if (x > 1) {
    double z = 2.0 / 3.0 * x * ::sqrt(x);
    if (z > 760) return 0;
    return ::sqrt(x / 3) * bessel_k_scaled_integral(1.0 / 3.0, z) * ::exp(-z) / kPi;
  }
  if (x < -8.5) return airy_ai_negative_asymptotic(x);
  if (x < -4.5) return airy_ai_taylor(x);
  return airy_ai_maclaurin(x);
}

// ---------------------------------------------------------------------------- orthogonal polynomials
// p_n(x) for the degree n given as a floating value (PyTorch's: truncated toward zero; n < 0, and a
// NaN n, give 0; n = 0 gives 1). By their three-term recurrences; Chebyshev's for |x| < 1 and n > 6
// by their trigonometric forms (T = cos n t, U = sin (n+1) t / sin t, V = cos (n+1/2) t / cos t/2,
// W = sin (n+1/2) t / sin t/2, x = cos t), and at |x| = 1 by their closed values. A recurrence that
// overflows ends in NaN (inf - inf), as PyTorch's does; it stops there.
TL_HOST_DEVICE inline int64_t polynomial_degree(double n) {
  if (n != n || n < -9.0e18) return -1;
  if (n > 9.0e18) return INT64_C(9000000000000000000);
  return static_cast<int64_t>(n);  // toward zero
}
// kind: 0 T, 1 U, 2 V, 3 W
TL_HOST_DEVICE inline double chebyshev(int kind, double x, double n_value) {
  int64_t n = polynomial_degree(n_value);
  if (n < 0) return 0;
  if (n == 0) return 1;
  if (x != x) return x;
  double odd = (n % 2 == 0) ? 1.0 : -1.0;
  double nd = static_cast<double>(n);
  if (x == 1) {
    const double at_one[4] = {1, nd + 1, 1, 2 * nd + 1};
    return at_one[kind];
  }
  if (x == -1) {
    const double at_minus_one[4] = {1, nd + 1, 2 * nd + 1, 1};
    return odd * at_minus_one[kind];
  }
  if (n > (INT64_C(1) << 24) && ::fabs(x) > 1) return nan();  // (the recurrence's overflow, without 2^63 steps)
  if (n > 6 && ::fabs(x) < 1) {
    double t = ::acos(x);
    if (kind == 0) return ::cos(nd * t);
    if (kind == 1) {
      double st = ::sin(t);
      return st != 0 ? ::sin((nd + 1) * t) / st : (nd + 1) * (x > 0 ? 1 : odd);
    }
    if (kind == 2) return ::cos((nd + 0.5) * t) / ::cos(t / 2);
    return ::sin((nd + 0.5) * t) / ::sin(t / 2);
  }
  double p = 1;
  double q = kind == 0 ? x : (kind == 1 ? 2 * x : (kind == 2 ? 2 * x - 1 : 2 * x + 1));
  for (int64_t k = 1; k < n; ++k) {
    double r = 2 * x * q - p;
    p = q;
    q = r;
    if (q != q) break;
  }
  return q;
}
TL_HOST_DEVICE inline double chebyshev_polynomial_t(double x, double n) { return chebyshev(0, x, n); }
TL_HOST_DEVICE inline double chebyshev_polynomial_u(double x, double n) { return chebyshev(1, x, n); }
TL_HOST_DEVICE inline double chebyshev_polynomial_v(double x, double n) { return chebyshev(2, x, n); }
TL_HOST_DEVICE inline double chebyshev_polynomial_w(double x, double n) { return chebyshev(3, x, n); }
// The shifted polynomials on [0, 1]: p*(x) = p(2x - 1).
TL_HOST_DEVICE inline double shifted_chebyshev_polynomial_t(double x, double n) { return chebyshev(0, 2 * x - 1, n); }
TL_HOST_DEVICE inline double shifted_chebyshev_polynomial_u(double x, double n) { return chebyshev(1, 2 * x - 1, n); }
TL_HOST_DEVICE inline double shifted_chebyshev_polynomial_v(double x, double n) { return chebyshev(2, 2 * x - 1, n); }
TL_HOST_DEVICE inline double shifted_chebyshev_polynomial_w(double x, double n) { return chebyshev(3, 2 * x - 1, n); }
// Hermite (physicists' H: H_{k+1} = 2x H_k - 2k H_{k-1}; probabilists' He: He_{k+1} = x He_k - k He_{k-1}),
// Laguerre (L_{k+1} = ((2k+1-x) L_k - k L_{k-1}) / (k+1)), Legendre (P_{k+1} = ((2k+1) x P_k - k P_{k-1}) / (k+1)).
// kind: 0 H, 1 He, 2 L, 3 P
TL_HOST_DEVICE inline double classical_polynomial(int kind, double x, double n_value) {
  int64_t n = polynomial_degree(n_value);
  if (n < 0) return 0;
  if (n == 0) return 1;
  if (x != x) return x;
  // Laguerre's and Legendre's recurrences stay finite (they never stop early): degrees past 2^24 give NaN
  // rather than a loop of up to 2^63 steps.
  if (kind >= 2 && n > (INT64_C(1) << 24)) return nan();
  if (kind == 3 && (x == 1 || x == -1)) return (x > 0 || n % 2 == 0) ? 1.0 : -1.0;
  double p = 1;
  double q = kind == 0 ? 2 * x : (kind == 2 ? 1 - x : x);
  for (int64_t k = 1; k < n; ++k) {
    double kd = static_cast<double>(k), r;
    if (kind == 0) r = 2 * x * q - 2 * kd * p;
    else if (kind == 1) r = x * q - kd * p;
    else if (kind == 2) r = ((2 * kd + 1 - x) * q - kd * p) / (kd + 1);
    else r = ((2 * kd + 1) * x * q - kd * p) / (kd + 1);
    p = q;
    q = r;
    if (q != q) break;
  }
  return q;
}
TL_HOST_DEVICE inline double hermite_polynomial_h(double x, double n) { return classical_polynomial(0, x, n); }
TL_HOST_DEVICE inline double hermite_polynomial_he(double x, double n) { return classical_polynomial(1, x, n); }
TL_HOST_DEVICE inline double laguerre_polynomial_l(double x, double n) { return classical_polynomial(2, x, n); }
TL_HOST_DEVICE inline double legendre_polynomial_p(double x, double n) { return classical_polynomial(3, x, n); }

}  // namespace special_detail

// The scalar_math entry points: float arguments are computed in double and rounded once.
#define TL_SPECIAL_UNARY(name)                                                                              \
  TL_HOST_DEVICE inline double name(double x) { return special_detail::name(x); }                        \
  TL_HOST_DEVICE inline float name(float x) { return static_cast<float>(special_detail::name(static_cast<double>(x))); }
TL_SPECIAL_UNARY(erfcx)
TL_SPECIAL_UNARY(ndtr)
TL_SPECIAL_UNARY(log_ndtr)
TL_SPECIAL_UNARY(ndtri)
TL_SPECIAL_UNARY(i0)
TL_SPECIAL_UNARY(i0e)
TL_SPECIAL_UNARY(i1)
TL_SPECIAL_UNARY(i1e)
TL_SPECIAL_UNARY(modified_bessel_k0)
TL_SPECIAL_UNARY(modified_bessel_k1)
TL_SPECIAL_UNARY(scaled_modified_bessel_k0)
TL_SPECIAL_UNARY(scaled_modified_bessel_k1)
TL_SPECIAL_UNARY(bessel_j0)
TL_SPECIAL_UNARY(bessel_j1)
TL_SPECIAL_UNARY(bessel_y0)
TL_SPECIAL_UNARY(bessel_y1)
TL_SPECIAL_UNARY(spherical_bessel_j0)
TL_SPECIAL_UNARY(airy_ai)
#undef TL_SPECIAL_UNARY

#define TL_SPECIAL_BINARY(name)                                                                              \
  TL_HOST_DEVICE inline double name(double a, double b) { return special_detail::name(a, b); }             \
  TL_HOST_DEVICE inline float name(float a, float b) {                                                      \
    return static_cast<float>(special_detail::name(static_cast<double>(a), static_cast<double>(b)));        \
  }
TL_SPECIAL_BINARY(igamma)
TL_SPECIAL_BINARY(igammac)
TL_SPECIAL_BINARY(zeta)
TL_SPECIAL_BINARY(chebyshev_polynomial_t)
TL_SPECIAL_BINARY(chebyshev_polynomial_u)
TL_SPECIAL_BINARY(chebyshev_polynomial_v)
TL_SPECIAL_BINARY(chebyshev_polynomial_w)
TL_SPECIAL_BINARY(shifted_chebyshev_polynomial_t)
TL_SPECIAL_BINARY(shifted_chebyshev_polynomial_u)
TL_SPECIAL_BINARY(shifted_chebyshev_polynomial_v)
TL_SPECIAL_BINARY(shifted_chebyshev_polynomial_w)
TL_SPECIAL_BINARY(hermite_polynomial_h)
TL_SPECIAL_BINARY(hermite_polynomial_he)
TL_SPECIAL_BINARY(laguerre_polynomial_l)
TL_SPECIAL_BINARY(legendre_polynomial_p)
#undef TL_SPECIAL_BINARY

}  // namespace torchlite::scalar_math
