#pragma once
// torchlite's own FFT (the torch.fft kernels, kernels/generic/fft.cpp): unnormalized forward DFTs of one
// length, X_k = sum_j x_j e^(-2 pi i jk / n), planned once per length and reused.
// - Lengths whose prime factors are all <= kMaxRadix: a mixed-radix Stockham FFT (self-sorting, out of place
//   between the data and a scratch buffer), with butterflies written out for radices 2, 3, 4 and 5 and a
//   plain DFT for the other primes.
// - Other lengths: Bluestein's algorithm, the DFT as a convolution with a chirp, done by FFTs of a length
//   2^a 3^b 5^c >= 2n - 1.
// - RealFftPlan: the DFT of n real values (n even: one complex FFT of n/2 points and a post-pass; odd: the
//   complex FFT of n points) and its inverse from the first n/2 + 1 coefficients.
// - The *_lanes forms: kLanes transforms at once in split real/imaginary planes, vectorized across the
//   transforms (radix 8 too), for batches of lines and strided dims.
// Twiddle factors are computed in double from exact angle indices (k * r mod n), then rounded to T.
// The backward (inverse, unnormalized) DFT is conj(DFT(conj(x))): callers conjugate while they copy.
// `Par` runs a loop [0, n) in chunks: `par(n, grain, [&](int64_t begin, int64_t end) {...})`; a plan uses it
// for the butterflies of one long transform (parallel_for, or a serial loop).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "core/Complex.h"
#include "core/Macros.h"

namespace torchlite {
namespace fft {

constexpr int kMaxRadix = 61;
// Iterations per chunk of the pre- and post-passes when a plan spreads them over threads.
constexpr int64_t kLoopGrain = 8192;

// e^(sign 2 pi i num / den), computed in double from an angle of at most pi / 4 and the quarter turns
// around it, so that the roots at multiples of pi / 2 are exact (1, -i, -1, i: a real input's transform has
// exact zeros where it should) and the others are as accurate as sin and cos near 0.
inline void complex_root(int64_t num, int64_t den, double sign, double* re, double* im) {
  num %= den;
  if (num < 0) num += den;
  const double half_pi = 1.5707963267948966192313216916398;
  const int64_t quarter = (4 * num) / den, rem = 4 * num - quarter * den;  // angle = (quarter + rem / den) pi / 2
  double c, s;
  if (2 * rem > den) {
    const double a = half_pi * static_cast<double>(den - rem) / static_cast<double>(den);
    c = std::sin(a);
    s = std::cos(a);
  } else {
    const double a = half_pi * static_cast<double>(rem) / static_cast<double>(den);
    c = std::cos(a);
    s = std::sin(a);
  }
  switch (quarter) {
    case 1: std::swap(c, s); c = -c; break;  // (-s, c)
    case 2: c = -c; s = -s; break;
    case 3: std::swap(c, s); s = -s; break;  // (s, -c)
    default: break;
  }
  *re = c;
  *im = sign * s;
}

template <typename T>
Complex<T> root(int64_t num, int64_t den, double sign = -1) {
  double re, im;
  complex_root(num, den, sign, &re, &im);
  return Complex<T>(static_cast<T>(re), static_cast<T>(im));
}

// n's prime factors, radix 4 first (as many as fit), then 2, 3, 5 and the other primes in increasing order.
// With `eights`, radix 8 first (the lanes butterflies have one; the scalar ones do not).
inline std::vector<int64_t> factorize(int64_t n, bool eights = false) {
  std::vector<int64_t> f;
  while (eights && n % 8 == 0) { f.push_back(8); n /= 8; }
  while (n % 4 == 0) { f.push_back(4); n /= 4; }
  if (n % 2 == 0) { f.push_back(2); n /= 2; }
  for (int64_t p = 3; p * p <= n; p += 2) {
    while (n % p == 0) { f.push_back(p); n /= p; }
  }
  if (n > 1) f.push_back(n);
  return f;
}

// The smallest 2^a 3^b 5^c >= n.
inline int64_t good_size(int64_t n) {
  int64_t best = 1;
  while (best < n) best *= 2;
  for (int64_t f5 = 1; f5 < best; f5 *= 5) {
    for (int64_t f35 = f5; f35 < best; f35 *= 3) {
      int64_t x = f35;
      while (x < n) x *= 2;
      if (x < best) best = x;
    }
  }
  return best;
}

// kLanes transforms at once, each value split into real and imaginary arrays laid out [index][lane]: every
// butterfly is a loop over the lanes that the compiler vectorizes (TL_CPU_MULTIVERSION: AVX-512, AVX2 or the
// baseline, chosen when the module loads). The lines of a batch or of a strided dim run this way.
constexpr int64_t kLanes = 16;

namespace lanes {

// Where value i of a lanes plane starts: i kLanes, plus one spare row every 64 rows, so that the rows a
// butterfly reads (m apart, often a power of two) do not all map to the same cache sets.
inline int64_t at(int64_t i) { return (i + (i >> 6)) * kLanes; }
// The values of T a plane of n rows takes.
inline int64_t plane_size(int64_t n) { return at(n); }

// One Stockham stage of radix r (as FftPlan's scalar stages) over kLanes transforms.
template <typename T>
TL_CPU_MULTIVERSION void stage(int64_t r, const T* ir, const T* ii, T* orr, T* oi, int64_t m, int64_t span,
                               const Complex<T>* tw, const Complex<T>* roots) {
  constexpr int64_t L = kLanes;
  T vr[kMaxRadix][L], vi[kMaxRadix][L];
  const T s3 = static_cast<T>(0.86602540378443864676372317075294);
  const T c51 = static_cast<T>(0.30901699437494742410229341718282);   // cos(2 pi / 5)
  const T c52 = static_cast<T>(-0.80901699437494742410229341718282);  // cos(4 pi / 5)
  const T s51 = static_cast<T>(0.95105651629515357211643933337938);   // sin(2 pi / 5)
  const T s52 = static_cast<T>(0.58778525229247312916870595463907);   // sin(4 pi / 5)
  for (int64_t j = 0, k = 0; j < m; ++j, k = k + 1 == span ? 0 : k + 1) {
    // load, with the twiddles of k (none at k = 0: exact, and inf stays inf)
    for (int64_t q = 0; q < r; ++q) {
      const T* ar = ir + at(j + q * m);
      const T* ai = ii + at(j + q * m);
      if (q == 0 || k == 0) {
#pragma omp simd
        for (int64_t b = 0; b < L; ++b) {
          vr[q][b] = ar[b];
          vi[q][b] = ai[b];
        }
      } else {
        const T wr = tw[k * (r - 1) + q - 1].re, wi = tw[k * (r - 1) + q - 1].im;
#pragma omp simd
        for (int64_t b = 0; b < L; ++b) {
          vr[q][b] = ar[b] * wr - ai[b] * wi;
          vi[q][b] = ar[b] * wi + ai[b] * wr;
        }
      }
    }
    const int64_t base = (j - k) * r + k;
    T* o[kMaxRadix];
    T* p[kMaxRadix];
    for (int64_t q = 0; q < r; ++q) {
      o[q] = orr + at(base + q * span);
      p[q] = oi + at(base + q * span);
    }
    if (r == 2) {
#pragma omp simd
      for (int64_t b = 0; b < L; ++b) {
        o[0][b] = vr[0][b] + vr[1][b];
        p[0][b] = vi[0][b] + vi[1][b];
        o[1][b] = vr[0][b] - vr[1][b];
        p[1][b] = vi[0][b] - vi[1][b];
      }
    } else if (r == 4) {
#pragma omp simd
      for (int64_t b = 0; b < L; ++b) {
        T t0r = vr[0][b] + vr[2][b], t0i = vi[0][b] + vi[2][b];
        T t1r = vr[0][b] - vr[2][b], t1i = vi[0][b] - vi[2][b];
        T t2r = vr[1][b] + vr[3][b], t2i = vi[1][b] + vi[3][b];
        T t3r = vi[1][b] - vi[3][b], t3i = vr[3][b] - vr[1][b];  // -i (a1 - a3)
        o[0][b] = t0r + t2r;
        p[0][b] = t0i + t2i;
        o[1][b] = t1r + t3r;
        p[1][b] = t1i + t3i;
        o[2][b] = t0r - t2r;
        p[2][b] = t0i - t2i;
        o[3][b] = t1r - t3r;
        p[3][b] = t1i - t3i;
      }
    } else if (r == 8) {
      const T h = static_cast<T>(0.70710678118654752440084436210485);  // cos(pi / 4)
#pragma omp simd
      for (int64_t b = 0; b < L; ++b) {
        // DFT_4 of the even and of the odd inputs, then y_k = E_k + w^k O_k, y_{k+4} = E_k - w^k O_k
        T e0r = vr[0][b] + vr[4][b], e0i = vi[0][b] + vi[4][b], e1r = vr[0][b] - vr[4][b], e1i = vi[0][b] - vi[4][b];
        T e2r = vr[2][b] + vr[6][b], e2i = vi[2][b] + vi[6][b], e3r = vi[2][b] - vi[6][b], e3i = vr[6][b] - vr[2][b];
        T E0r = e0r + e2r, E0i = e0i + e2i, E2r = e0r - e2r, E2i = e0i - e2i;
        T E1r = e1r + e3r, E1i = e1i + e3i, E3r = e1r - e3r, E3i = e1i - e3i;
        T f0r = vr[1][b] + vr[5][b], f0i = vi[1][b] + vi[5][b], f1r = vr[1][b] - vr[5][b], f1i = vi[1][b] - vi[5][b];
        T f2r = vr[3][b] + vr[7][b], f2i = vi[3][b] + vi[7][b], f3r = vi[3][b] - vi[7][b], f3i = vr[7][b] - vr[3][b];
        T O0r = f0r + f2r, O0i = f0i + f2i, O2r = f0r - f2r, O2i = f0i - f2i;
        T O1r = f1r + f3r, O1i = f1i + f3i, O3r = f1r - f3r, O3i = f1i - f3i;
        // w = e^(-i pi / 4): w O1 = h (O1r + O1i) + i h (O1i - O1r); w^2 O2 = -i O2;
        // w^3 O3 = h (O3i - O3r) - i h (O3r + O3i)
        T W1r = h * (O1r + O1i), W1i = h * (O1i - O1r);
        T W2r = O2i, W2i = -O2r;
        T W3r = h * (O3i - O3r), W3i = -h * (O3r + O3i);
        o[0][b] = E0r + O0r;
        p[0][b] = E0i + O0i;
        o[4][b] = E0r - O0r;
        p[4][b] = E0i - O0i;
        o[1][b] = E1r + W1r;
        p[1][b] = E1i + W1i;
        o[5][b] = E1r - W1r;
        p[5][b] = E1i - W1i;
        o[2][b] = E2r + W2r;
        p[2][b] = E2i + W2i;
        o[6][b] = E2r - W2r;
        p[6][b] = E2i - W2i;
        o[3][b] = E3r + W3r;
        p[3][b] = E3i + W3i;
        o[7][b] = E3r - W3r;
        p[7][b] = E3i - W3i;
      }
    } else if (r == 3) {
#pragma omp simd
      for (int64_t b = 0; b < L; ++b) {
        T t1r = vr[1][b] + vr[2][b], t1i = vi[1][b] + vi[2][b];
        T t2r = vr[0][b] - T(0.5) * t1r, t2i = vi[0][b] - T(0.5) * t1i;
        T t3r = s3 * (vi[1][b] - vi[2][b]), t3i = -s3 * (vr[1][b] - vr[2][b]);
        o[0][b] = vr[0][b] + t1r;
        p[0][b] = vi[0][b] + t1i;
        o[1][b] = t2r + t3r;
        p[1][b] = t2i + t3i;
        o[2][b] = t2r - t3r;
        p[2][b] = t2i - t3i;
      }
    } else if (r == 5) {
#pragma omp simd
      for (int64_t b = 0; b < L; ++b) {
        T t1r = vr[1][b] + vr[4][b], t1i = vi[1][b] + vi[4][b];
        T t2r = vr[2][b] + vr[3][b], t2i = vi[2][b] + vi[3][b];
        T t3r = vr[1][b] - vr[4][b], t3i = vi[1][b] - vi[4][b];
        T t4r = vr[2][b] - vr[3][b], t4i = vi[2][b] - vi[3][b];
        T b1r = vr[0][b] + c51 * t1r + c52 * t2r, b1i = vi[0][b] + c51 * t1i + c52 * t2i;
        T b2r = vr[0][b] + c52 * t1r + c51 * t2r, b2i = vi[0][b] + c52 * t1i + c51 * t2i;
        T d1r = s51 * t3r + s52 * t4r, d1i = s51 * t3i + s52 * t4i;
        T d2r = s52 * t3r - s51 * t4r, d2i = s52 * t3i - s51 * t4i;
        o[0][b] = vr[0][b] + t1r + t2r;
        p[0][b] = vi[0][b] + t1i + t2i;
        o[1][b] = b1r + d1i;  // b1 - i d1
        p[1][b] = b1i - d1r;
        o[4][b] = b1r - d1i;
        p[4][b] = b1i + d1r;
        o[2][b] = b2r + d2i;
        p[2][b] = b2i - d2r;
        o[3][b] = b2r - d2i;
        p[3][b] = b2i + d2r;
      }
    } else {
      for (int64_t q = 0; q < r; ++q) {
        T accr[L], acci[L];
#pragma omp simd
        for (int64_t b = 0; b < L; ++b) {
          accr[b] = vr[0][b];
          acci[b] = vi[0][b];
        }
        int64_t idx = 0;
        for (int64_t c = 1; c < r; ++c) {
          idx += q;
          if (idx >= r) idx -= r;
          const T wr = roots[idx].re, wi = roots[idx].im;
#pragma omp simd
          for (int64_t b = 0; b < L; ++b) {
            accr[b] += vr[c][b] * wr - vi[c][b] * wi;
            acci[b] += vr[c][b] * wi + vi[c][b] * wr;
          }
        }
#pragma omp simd
        for (int64_t b = 0; b < L; ++b) {
          o[q][b] = accr[b];
          p[q][b] = acci[b];
        }
      }
    }
  }
}

}  // namespace lanes

template <typename T>
class FftPlan {
 public:
  using C = Complex<T>;

  explicit FftPlan(int64_t n) : n_(n) {
    std::vector<int64_t> factors = factorize(n);
    bool small = true;
    for (int64_t p : factors) small = small && p <= kMaxRadix;
    if (small) {
      stages_ = make_stages(factors);
      std::vector<int64_t> eights = factorize(n, /*eights=*/true);
      if (eights != factors) lane_stages_ = make_stages(eights);
      scratch_ = n;
      return;
    }
    // Bluestein: X_k = c_k sum_j (x_j c_j) conj(c_{k-j}), c_k = e^(-pi i k^2 / n)
    m_ = good_size(2 * n - 1);
    inner_ = std::make_unique<FftPlan<T>>(m_);
    chirp_.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      // k^2 mod 2n, without overflow for any n < 2^31
      int64_t k2 = static_cast<int64_t>((static_cast<unsigned __int128>(k) * static_cast<unsigned __int128>(k)) %
                                        static_cast<unsigned __int128>(2 * n));
      chirp_[k] = root<T>(k2, 2 * n);
    }
    std::vector<C> b(static_cast<size_t>(m_)), work(static_cast<size_t>(inner_->scratch_size()));
    const T inv_m = T(1) / static_cast<T>(m_);
    for (int64_t k = 0; k < n; ++k) {
      C c(chirp_[k].re * inv_m, -chirp_[k].im * inv_m);
      b[k] = c;
      if (k > 0) b[m_ - k] = c;
    }
    inner_->forward(b.data(), work.data(), serial());
    kernel_ = std::move(b);
    scratch_ = 2 * m_ + inner_->scratch_size();
  }

  int64_t size() const { return n_; }
  // Whether forward_lanes() serves this length (the mixed-radix plans; not Bluestein's).
  bool has_lanes() const { return !inner_; }
  // The forward DFTs of kLanes signals at once, in place: value k of a lane at re/im[lanes::at(k) + lane], with
  // sre/sim as scratch of the same size (lanes::plane_size(n) values each).
  void forward_lanes(T* re, T* im, T* sre, T* sim) const {
    T *ir = re, *ii = im, *orr = sre, *oi = sim;
    for (const Stage& s : lane_stages_.empty() ? stages_ : lane_stages_) {
      lanes::stage<T>(s.radix, ir, ii, orr, oi, n_ / s.radix, s.span, s.twiddles.data(), s.roots.data());
      std::swap(ir, orr);
      std::swap(ii, oi);
    }
    if (ir != re) {
      std::memcpy(re, ir, static_cast<size_t>(lanes::plane_size(n_)) * sizeof(T));
      std::memcpy(im, ii, static_cast<size_t>(lanes::plane_size(n_)) * sizeof(T));
    }
  }

  // Values of scratch space forward() needs.
  int64_t scratch_size() const { return scratch_; }

  // The forward DFT of data[0, n) in place.
  template <typename Par>
  void forward(C* data, C* scratch, const Par& par) const {
    if (n_ <= 1) return;
    if (inner_) return bluestein(data, scratch, par);
    C* in = data;
    C* out = scratch;
    for (const Stage& s : stages_) {
      run_stage(s, in, out, par);
      std::swap(in, out);
    }
    if (in != data) std::memcpy(static_cast<void*>(data), in, static_cast<size_t>(n_) * sizeof(C));
  }

 private:
  struct Stage {
    int64_t radix = 1;
    int64_t span = 1;              // the product of the radices before this stage
    std::vector<C> twiddles;       // e^(-2 pi i k q / (span radix)), k < span, 1 <= q < radix
    std::vector<C> roots;          // e^(-2 pi i q / radix), for the plain DFT butterfly
  };

  static std::vector<Stage> make_stages(const std::vector<int64_t>& factors) {
    std::vector<Stage> stages;
    int64_t span = 1;
    for (int64_t r : factors) {
      Stage s;
      s.radix = r;
      s.span = span;
      s.twiddles.resize(static_cast<size_t>(span * (r - 1)));
      for (int64_t k = 0; k < span; ++k) {
        for (int64_t q = 1; q < r; ++q) s.twiddles[k * (r - 1) + q - 1] = root<T>(k * q, span * r);
      }
      if (r > 5) {
        s.roots.resize(static_cast<size_t>(r));
        for (int64_t q = 0; q < r; ++q) s.roots[q] = root<T>(q, r);
      }
      stages.push_back(std::move(s));
      span *= r;
    }
    return stages;
  }

  struct Serial {
    template <typename F>
    void operator()(int64_t n, int64_t, const F& f) const { f(int64_t(0), n); }
  };
  static Serial serial() { return Serial(); }

  // One Stockham stage: butterfly j (of n / radix) reads in[j + q m] (m = n / radix), multiplies by the
  // twiddles of k = j mod span, and writes out[(j - k) radix + k + q span].
  template <typename Par>
  void run_stage(const Stage& s, const C* in, C* out, const Par& par) const {
    const int64_t r = s.radix, span = s.span, m = n_ / r;
    const C* tw = s.twiddles.data();
    const int64_t grain = std::max<int64_t>(4096 / r, 1);
    switch (r) {
      case 2: return par(m, grain, [&](int64_t b, int64_t e) { stage2(in, out, m, span, tw, b, e); });
      case 3: return par(m, grain, [&](int64_t b, int64_t e) { stage3(in, out, m, span, tw, b, e); });
      case 4: return par(m, grain, [&](int64_t b, int64_t e) { stage4(in, out, m, span, tw, b, e); });
      case 5: return par(m, grain, [&](int64_t b, int64_t e) { stage5(in, out, m, span, tw, b, e); });
      default:
        return par(m, grain, [&](int64_t b, int64_t e) { stage_any(in, out, m, span, r, tw, s.roots.data(), b, e); });
    }
  }

  static C mul_neg_i(C a) { return C(a.im, -a.re); }  // -i a

  static void stage2(const C* in, C* out, int64_t m, int64_t span, const C* tw, int64_t b, int64_t e) {
    for (int64_t j = b, k = b % span; j < e; ++j, k = k + 1 == span ? 0 : k + 1) {
      C a0 = in[j], a1 = in[j + m];
      if (k) a1 = a1 * tw[k];
      C* o = out + (j - k) * 2 + k;
      o[0] = a0 + a1;
      o[span] = a0 - a1;
    }
  }

  static void stage3(const C* in, C* out, int64_t m, int64_t span, const C* tw, int64_t b, int64_t e) {
    const T s3 = static_cast<T>(0.86602540378443864676372317075294);  // sin(2 pi / 3)
    for (int64_t j = b, k = b % span; j < e; ++j, k = k + 1 == span ? 0 : k + 1) {
      C a0 = in[j], a1 = in[j + m], a2 = in[j + 2 * m];
      if (k) {
        a1 = a1 * tw[2 * k];
        a2 = a2 * tw[2 * k + 1];
      }
      C t1 = a1 + a2, t2 = C(a0.re - T(0.5) * t1.re, a0.im - T(0.5) * t1.im);
      C d = a1 - a2, t3(s3 * d.im, -s3 * d.re);  // -i sin(2 pi / 3) (a1 - a2)
      C* o = out + (j - k) * 3 + k;
      o[0] = a0 + t1;
      o[span] = t2 + t3;
      o[2 * span] = t2 - t3;
    }
  }

  static void stage4(const C* in, C* out, int64_t m, int64_t span, const C* tw, int64_t b, int64_t e) {
    for (int64_t j = b, k = b % span; j < e; ++j, k = k + 1 == span ? 0 : k + 1) {
      C a0 = in[j], a1 = in[j + m], a2 = in[j + 2 * m], a3 = in[j + 3 * m];
      if (k) {
        a1 = a1 * tw[3 * k];
        a2 = a2 * tw[3 * k + 1];
        a3 = a3 * tw[3 * k + 2];
      }
      C t0 = a0 + a2, t1 = a0 - a2, t2 = a1 + a3, t3 = mul_neg_i(a1 - a3);
      C* o = out + (j - k) * 4 + k;
      o[0] = t0 + t2;
      o[span] = t1 + t3;
      o[2 * span] = t0 - t2;
      o[3 * span] = t1 - t3;
    }
  }

  static void stage5(const C* in, C* out, int64_t m, int64_t span, const C* tw, int64_t b, int64_t e) {
    const T c1 = static_cast<T>(0.30901699437494742410229341718282);   // cos(2 pi / 5)
    const T c2 = static_cast<T>(-0.80901699437494742410229341718282);  // cos(4 pi / 5)
    const T s1 = static_cast<T>(0.95105651629515357211643933337938);   // sin(2 pi / 5)
    const T s2 = static_cast<T>(0.58778525229247312916870595463907);   // sin(4 pi / 5)
    for (int64_t j = b, k = b % span; j < e; ++j, k = k + 1 == span ? 0 : k + 1) {
      C a0 = in[j], a1 = in[j + m], a2 = in[j + 2 * m], a3 = in[j + 3 * m], a4 = in[j + 4 * m];
      if (k) {
        a1 = a1 * tw[4 * k];
        a2 = a2 * tw[4 * k + 1];
        a3 = a3 * tw[4 * k + 2];
        a4 = a4 * tw[4 * k + 3];
      }
      C t1 = a1 + a4, t2 = a2 + a3, t3 = a1 - a4, t4 = a2 - a3;
      C b1(a0.re + c1 * t1.re + c2 * t2.re, a0.im + c1 * t1.im + c2 * t2.im);
      C b2(a0.re + c2 * t1.re + c1 * t2.re, a0.im + c2 * t1.im + c1 * t2.im);
      C d1(s1 * t3.re + s2 * t4.re, s1 * t3.im + s2 * t4.im);
      C d2(s2 * t3.re - s1 * t4.re, s2 * t3.im - s1 * t4.im);
      C* o = out + (j - k) * 5 + k;
      o[0] = a0 + t1 + t2;
      o[span] = b1 + mul_neg_i(d1);
      o[4 * span] = b1 - mul_neg_i(d1);
      o[2 * span] = b2 + mul_neg_i(d2);
      o[3 * span] = b2 - mul_neg_i(d2);
    }
  }

  static void stage_any(const C* in, C* out, int64_t m, int64_t span, int64_t r, const C* tw, const C* roots,
                        int64_t b, int64_t e) {
    C v[kMaxRadix];
    for (int64_t j = b, k = b % span; j < e; ++j, k = k + 1 == span ? 0 : k + 1) {
      v[0] = in[j];
      for (int64_t q = 1; q < r; ++q) v[q] = k ? in[j + q * m] * tw[k * (r - 1) + q - 1] : in[j + q * m];
      C* o = out + (j - k) * r + k;
      for (int64_t q = 0; q < r; ++q) {
        C acc = v[0];
        int64_t idx = 0;
        for (int64_t p = 1; p < r; ++p) {
          idx += q;
          if (idx >= r) idx -= r;
          acc += v[p] * roots[idx];
        }
        o[q * span] = acc;
      }
    }
  }

  template <typename Par>
  void bluestein(C* data, C* scratch, const Par& par) const {
    C* a = scratch;
    C* inner_scratch = scratch + m_;
    const C* chirp = chirp_.data();
    const C* kernel = kernel_.data();
    const int64_t n = n_, m = m_;
    const int64_t grain = kLoopGrain;
    par(m, grain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) a[k] = k < n ? data[k] * chirp[k] : C();
    });
    inner_->forward(a, inner_scratch, par);
    // the inverse transform of a * kernel as conj(DFT(conj(a * kernel))); kernel carries the 1/m
    par(m, grain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        C p = a[k] * kernel[k];
        a[k] = C(p.re, -p.im);
      }
    });
    inner_->forward(a, inner_scratch, par);
    par(n, grain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) data[k] = C(a[k].re, -a[k].im) * chirp[k];
    });
  }

  int64_t n_;
  int64_t scratch_ = 0;
  std::vector<Stage> stages_;
  std::vector<Stage> lane_stages_;  // with radix-8 stages, for forward_lanes(); empty: stages_ has no 8 to take
  int64_t m_ = 0;                   // Bluestein's convolution length
  std::unique_ptr<FftPlan<T>> inner_;
  std::vector<C> chirp_;            // e^(-pi i k^2 / n)
  std::vector<C> kernel_;           // DFT of the conjugate chirp, wrapped around, over m
};

// The DFT of n real values and its inverse, through a complex FFT of n / 2 points when n is even.
template <typename T>
class RealFftPlan {
 public:
  using C = Complex<T>;

  explicit RealFftPlan(int64_t n) : n_(n), even_(n % 2 == 0 && n >= 2), complex_(even_ ? n / 2 : n) {
    if (even_) {
      const int64_t h = n / 2;
      w_.resize(static_cast<size_t>(h + 1));
      for (int64_t k = 0; k <= h; ++k) w_[k] = root<T>(k, n);
    }
  }

  int64_t size() const { return n_; }
  // Values of scratch space each call needs (besides its input and output).
  int64_t scratch_size() const { return complex_.size() + complex_.scratch_size(); }

  // out[k * os], k <= n / 2: the DFT of in[j * is], j < n (the first half; the rest is its conjugate mirror).
  template <typename Par>
  void forward(const T* in, int64_t is, C* out, int64_t os, C* scratch, const Par& par) const {
    const int64_t n = n_;
    C* z = scratch;
    C* work = scratch + complex_.size();
    if (!even_) {
      par(n, kLoopGrain, [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j) z[j] = C(in[j * is], T(0));
      });
      complex_.forward(z, work, par);
      for (int64_t k = 0; k <= n / 2; ++k) out[k * os] = z[k];
      return;
    }
    const int64_t h = n / 2;
    par(h, kLoopGrain, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) z[j] = C(in[2 * j * is], in[(2 * j + 1) * is]);
    });
    complex_.forward(z, work, par);
    // E_k = (Z_k + conj Z_{h-k}) / 2, O_k = -i (Z_k - conj Z_{h-k}) / 2, X_k = E_k + w^k O_k
    const C* w = w_.data();
    par(h + 1, kLoopGrain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        C zk = z[k == h ? 0 : k], zc = z[k == 0 ? 0 : h - k];
        zc.im = -zc.im;
        C ev(T(0.5) * (zk.re + zc.re), T(0.5) * (zk.im + zc.im));
        C d = zk - zc;
        C od(T(0.5) * d.im, T(-0.5) * d.re);
        out[k * os] = ev + w[k] * od;
      }
    });
  }

  // Whether the *_lanes() forms serve this length (the complex FFT inside is a mixed-radix one).
  bool has_lanes() const { return complex_.has_lanes(); }
  // Values of T the *_lanes() forms need in `buf`.
  int64_t lanes_buffer_size() const { return 4 * lanes::plane_size(complex_.size()); }

  // forward() of up to kLanes lines at once: line l < count reads in[l il + j is] and writes out[l ol + k os].
  void forward_lanes(const T* in, int64_t il, int64_t is, int64_t count, C* out, int64_t ol, int64_t os,
                     T* buf) const {
    constexpr int64_t L = kLanes;
    const int64_t n = n_, m = complex_.size();
    T* re = buf;
    const int64_t plane = lanes::plane_size(m);
    T* im = re + plane;
    for (int64_t j = 0; j < m; ++j) {
      for (int64_t l = 0; l < L; ++l) {
        const bool live = l < count;
        re[lanes::at(j) + l] = live ? in[l * il + (even_ ? 2 * j : j) * is] : T(0);
        im[lanes::at(j) + l] = live && even_ ? in[l * il + (2 * j + 1) * is] : T(0);
      }
    }
    complex_.forward_lanes(re, im, im + plane, im + 2 * plane);
    if (!even_) {
      for (int64_t k = 0; k <= n / 2; ++k) {
        for (int64_t l = 0; l < count; ++l) out[l * ol + k * os] = C(re[lanes::at(k) + l], im[lanes::at(k) + l]);
      }
      return;
    }
    const int64_t h = m;
    for (int64_t k = 0; k <= h; ++k) {
      const int64_t zk = k == h ? 0 : k, zc = k == 0 ? 0 : h - k;
      const T wr = w_[k].re, wi = w_[k].im;
      for (int64_t l = 0; l < count; ++l) {
        const T ar = re[lanes::at(zk) + l], ai = im[lanes::at(zk) + l];
        const T br = re[lanes::at(zc) + l], bi = -im[lanes::at(zc) + l];
        const T er = T(0.5) * (ar + br), ei = T(0.5) * (ai + bi);
        const T odr = T(0.5) * (ai - bi), odi = T(-0.5) * (ar - br);
        out[l * ol + k * os] = C(er + wr * odr - wi * odi, ei + wr * odi + wi * odr);
      }
    }
  }

  // backward() of up to kLanes lines at once: line l < count reads in[l il + k is], k <= n/2, and writes
  // out[l ol + j os].
  void backward_lanes(const C* in, int64_t il, int64_t is, int64_t count, T* out, int64_t ol, int64_t os,
                      T* buf) const {
    const int64_t n = n_, m = complex_.size();
    T* re = buf;
    const int64_t plane = lanes::plane_size(m);
    T* im = re + plane;
    std::fill(re, re + 2 * plane, T(0));
    if (!even_) {
      // conj of the forward DFT of the conjugated full sequence
      for (int64_t l = 0; l < count; ++l) {
        re[l] = in[l * il].re;  // lanes::at(0) is 0
        for (int64_t k = 1; k <= n / 2; ++k) {
          C x = in[l * il + k * is];
          re[lanes::at(k) + l] = x.re;
          im[lanes::at(k) + l] = -x.im;
          re[lanes::at((n - k)) + l] = x.re;
          im[lanes::at((n - k)) + l] = x.im;
        }
      }
      complex_.forward_lanes(re, im, im + plane, im + 2 * plane);
      for (int64_t l = 0; l < count; ++l) {
        for (int64_t j = 0; j < n; ++j) out[l * ol + j * os] = re[lanes::at(j) + l];
      }
      return;
    }
    const int64_t h = m;
    for (int64_t l = 0; l < count; ++l) {
      for (int64_t k = 0; k < h; ++k) {
        C xk = in[l * il + k * is], xc = in[l * il + (h - k) * is];
        if (k == 0) {
          xk.im = T(0);
          xc.im = T(0);
        }
        xc.im = -xc.im;
        C sum = xk + xc, d = xk - xc;
        C t = C(w_[k].re, -w_[k].im) * d;
        re[lanes::at(k) + l] = sum.re - t.im;  // conj(sum + i t)
        im[lanes::at(k) + l] = -(sum.im + t.re);
      }
    }
    complex_.forward_lanes(re, im, im + plane, im + 2 * plane);
    for (int64_t l = 0; l < count; ++l) {
      for (int64_t j = 0; j < h; ++j) {
        out[l * ol + 2 * j * os] = re[lanes::at(j) + l];
        out[l * ol + (2 * j + 1) * os] = -im[lanes::at(j) + l];
      }
    }
  }

  // out[j * os], j < n: the unnormalized inverse DFT, sum_k X_k e^(2 pi i jk / n), of the Hermitian sequence
  // whose first n / 2 + 1 values are in[k * is] (the imaginary parts of X_0, and of X_{n/2} when n is even,
  // are ignored, as they must be 0).
  template <typename Par>
  void backward(const C* in, int64_t is, T* out, int64_t os, C* scratch, const Par& par) const {
    const int64_t n = n_;
    C* z = scratch;
    C* work = scratch + complex_.size();
    if (!even_) {
      // conj of the forward DFT of the conjugated full sequence
      z[0] = C(in[0].re, T(0));
      par(n / 2, kLoopGrain, [&](int64_t b, int64_t e) {
        for (int64_t k = b + 1; k <= e; ++k) {
          C x = in[k * is];
          z[k] = C(x.re, -x.im);
          z[n - k] = x;
        }
      });
      complex_.forward(z, work, par);
      par(n, kLoopGrain, [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j) out[j * os] = z[j].re;
      });
      return;
    }
    const int64_t h = n / 2;
    // Z_k = (X_k + conj X_{h-k}) + i conj(w^k) (X_k - conj X_{h-k}); inverse DFT_h(Z) = y_even + i y_odd.
    // Built conjugated, so that one forward DFT gives conj of the inverse.
    const C* w = w_.data();
    par(h, kLoopGrain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        C xk = in[k * is], xc = in[(h - k) * is];
        if (k == 0) {
          xk.im = T(0);
          xc.im = T(0);
        }
        xc.im = -xc.im;
        C s = xk + xc, d = xk - xc;
        C t = C(w[k].re, -w[k].im) * d;
        z[k] = C(s.re - t.im, -(s.im + t.re));  // conj(s + i t)
      }
    });
    complex_.forward(z, work, par);
    par(h, kLoopGrain, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        out[2 * j * os] = z[j].re;
        out[(2 * j + 1) * os] = -z[j].im;
      }
    });
  }

 private:
  int64_t n_;
  bool even_;
  FftPlan<T> complex_;
  std::vector<C> w_;  // e^(-2 pi i k / n), k <= n / 2
};

}  // namespace fft
}  // namespace torchlite
