// softmax, log_softmax and their gradients on the CPU, fused: each slice along dim is read a few times
// while it is in cache (its maximum, the sum of its exponentials, the result) and nothing else is
// allocated. The input is seen as [outer, n, inner] (copied to a contiguous tensor when it is not one):
//  - dim innermost (inner == 1): each slice is a contiguous row, one row at a time per thread, and every
//    loop over a row vectorizes (float's exp is ScalarMath's polynomial);
//  - otherwise kLanes adjacent slices are processed together, vectorized across them.
// The loops are compiled for AVX-512, AVX2 and the baseline, chosen at load time (TL_CPU_MULTIVERSION).
// NaN anywhere in a slice makes the whole slice NaN, and so does an infinite maximum, as in PyTorch.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#endif

#include "core/Macros.h"
#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "kernels/Dispatch.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/ScalarMath.h"
#include "kernels/Slices.h"
#include "kernels/_log_softmax.h"
#include "kernels/_log_softmax_backward_data.h"
#include "kernels/_softmax.h"
#include "kernels/_softmax_backward_data.h"

namespace torchlite {

namespace {

constexpr int64_t kLanes = 64;

// Rows of n elements (dim innermost) per parallel chunk: about kGrainSize elements.
int64_t row_grain(int64_t n) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)); }

template <typename T>
inline opmath_t<T> load(const T* p, int64_t i) {
  return static_cast<opmath_t<T>>(p[i]);
}

// ------------------------------------------------------------------------------------ forward

// e^z for z <= 0 (z = x - max, or a log-probability) with no NaN or infinity: ScalarMath's Cody-Waite reduction
// and polynomial, but no upper clamp and no NaN test, and one power of two, 2^(n + 64) (a normal float for every
// n >= -150), scaled by 2^-64 after, so results in the denormals keep their single rounding. About a third
// fewer instructions than scalar_math::exp; callers take it only for rows they have checked are finite.
__attribute__((always_inline)) inline float exp_nonpositive(float z) {
  float n;
  const float y = scalar_math::exp_float_poly(z < -104.0f ? -104.0f : z, n);
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127 + 64) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale * 5.42101086242752217e-20f;  // 2^-64
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// The same passes over float rows with AVX-512 written out: e^z for finite z <= 0 rounds n = z / ln 2 with
// vrndscaleps and scales by 2^n with vscalefps (one rounding, denormals included), about a quarter fewer
// instructions than exp_nonpositive's integer exponent; Cody-Waite's reduction and Cephes' polynomial as there.
// The row's tail is a masked vector.
bool avx512_rows() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
}

__attribute__((target("avx512f"), always_inline)) inline __m512 exp512_nonpositive(__m512 z) {
  z = _mm512_max_ps(z, _mm512_set1_ps(-104.0f));  // e^-104 is 0 in float: scalef gives 0 below
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(z, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), z);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 y = _mm512_set1_ps(1.9875691500e-4f);
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.3981999507e-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(8.3334519073e-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(4.1665795894e-2f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.6666665459e-1f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(5.0000001201e-1f));
  y = _mm512_add_ps(_mm512_fmadd_ps(y, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(y, n);
}

inline __mmask16 tail_mask(int64_t left) {
  return left >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << left) - 1);
}

// Forward passes after the maximum m of a finite float row: the sum of e^(x - m) (softmax: kept in y), then y.
template <bool kLog>
__attribute__((target("avx512f"))) void forward_row_rest_avx512(const float* xr, float* yr, int64_t n, float m) {
  const __m512 vm = _mm512_set1_ps(m);
  __m512 acc = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = tail_mask(n - i);
    const __m512 e = exp512_nonpositive(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, xr + i), vm));
    acc = _mm512_mask_add_ps(acc, k, acc, e);
    if (!kLog) _mm512_mask_storeu_ps(yr + i, k, e);
  }
  const float s = _mm512_reduce_add_ps(acc);
  if (kLog) {
    const __m512 shift = _mm512_set1_ps(scalar_math::log(s));
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 k = tail_mask(n - i);
      _mm512_mask_storeu_ps(yr + i, k, _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, xr + i), vm), shift));
    }
  } else {
    const __m512 inv = _mm512_set1_ps(1.0f / s);
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 k = tail_mask(n - i);
      _mm512_mask_storeu_ps(yr + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, yr + i), inv));
    }
  }
}

// log_softmax's gradient of a float row whose log-probabilities are finite: g - e^y * s.
__attribute__((target("avx512f"))) void log_backward_row_avx512(const float* gr, const float* yr, float* out,
                                                               int64_t n, float s) {
  const __m512 vs = _mm512_set1_ps(s);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = tail_mask(n - i);
    const __m512 e = exp512_nonpositive(_mm512_maskz_loadu_ps(k, yr + i));
    _mm512_mask_storeu_ps(out + i, k, _mm512_fnmadd_ps(e, vs, _mm512_maskz_loadu_ps(k, gr + i)));
  }
}
#else
bool avx512_rows() { return false; }
template <bool kLog>
void forward_row_rest_avx512(const float*, float*, int64_t, float) {}
void log_backward_row_avx512(const float*, const float*, float*, int64_t, float) {}
#endif

template <bool kFast, typename op_t>
__attribute__((always_inline)) inline op_t shifted_exp(op_t z) {
  if constexpr (kFast && std::is_same_v<op_t, float>) {
    return exp_nonpositive(z);
  } else {
    return scalar_math::exp(z);
  }
}

// The passes after the maximum m; kFast: the row is finite, so every x - m is a finite z <= 0.
template <typename T, bool kLog, bool kFast>
__attribute__((always_inline)) inline void forward_row_rest(const T* xr, T* yr, int64_t n, opmath_t<T> m) {
  using op_t = opmath_t<T>;
  op_t s = 0;
  if constexpr (!kLog && std::is_same_v<T, op_t>) {  // keep the exponentials in y, then scale them
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) {
      const op_t e = shifted_exp<kFast>(xr[i] - m);
      yr[i] = e;
      s += e;
    }
    const op_t inv = op_t(1) / s;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) yr[i] *= inv;
    return;
  }
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += shifted_exp<kFast>(load(xr, i) - m);
  if constexpr (kLog) {
    const op_t log_s = scalar_math::log(s);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) yr[i] = static_cast<T>((load(xr, i) - m) - log_s);
  } else {
    const op_t inv = op_t(1) / s;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) yr[i] = static_cast<T>(shifted_exp<kFast>(load(xr, i) - m) * inv);
  }
}

template <typename T, bool kLog>
TL_CPU_MULTIVERSION void forward_row(const T* xr, T* yr, int64_t n) {
  using op_t = opmath_t<T>;
  op_t m = -std::numeric_limits<op_t>::infinity();
  op_t finite = 0;  // 0 when every element is finite, NaN otherwise
#pragma omp simd reduction(max : m) reduction(+ : finite)
  for (int64_t i = 0; i < n; ++i) {
    const op_t v = load(xr, i);
    m = v > m ? v : m;  // (std::max here keeps GCC from vectorizing the loop)
    finite += v * op_t(0);
  }
  if constexpr (std::is_same_v<op_t, float>) {
    if (finite == 0) {
      if constexpr (std::is_same_v<T, float>) {
        if (avx512_rows()) {
          forward_row_rest_avx512<kLog>(xr, yr, n, m);
          return;
        }
      }
      forward_row_rest<T, kLog, true>(xr, yr, n, m);
      return;
    }
  }
  forward_row_rest<T, kLog, false>(xr, yr, n, m);
}

template <typename T, bool kLog>
void forward_rows(const T* x, T* y, int64_t rows, int64_t n) {
  parallel_for(rows, row_grain(n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) forward_row<T, kLog>(x + r * n, y + r * n, n);
  });
}

// Runs f(o, i0, lanes) for every block of up to kLanes adjacent slices (outer index o, first inner index i0).
template <typename F>
void for_each_lane_block(const Slices& s, const F& f) {
  const int64_t blocks = (s.inner + kLanes - 1) / kLanes;
  parallel_for(s.outer * blocks, row_grain(s.n * kLanes), [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t o = k / blocks, i0 = k % blocks * kLanes;
      f(o, i0, std::min(kLanes, s.inner - i0));
    }
  });
}

// `lanes` adjacent slices of n elements, inner apart, starting at xo (yo).
template <typename T, bool kLog>
TL_CPU_MULTIVERSION void forward_lane_block(const T* xo, T* yo, int64_t n, int64_t inner, int64_t lanes) {
  using op_t = opmath_t<T>;
  op_t m[kLanes], sum[kLanes];
  for (int64_t l = 0; l < lanes; ++l) {
    m[l] = -std::numeric_limits<op_t>::infinity();
    sum[l] = 0;
  }
  for (int64_t j = 0; j < n; ++j) {
    const T* xj = xo + j * inner;
#pragma omp simd
    for (int64_t l = 0; l < lanes; ++l) {
      const op_t v = load(xj, l);
      m[l] = v > m[l] ? v : m[l];
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    const T* xj = xo + j * inner;
#pragma omp simd
    for (int64_t l = 0; l < lanes; ++l) sum[l] += scalar_math::exp(load(xj, l) - m[l]);
  }
  for (int64_t l = 0; l < lanes; ++l) sum[l] = kLog ? scalar_math::log(sum[l]) : op_t(1) / sum[l];
  for (int64_t j = 0; j < n; ++j) {
    const T* xj = xo + j * inner;
    T* yj = yo + j * inner;
#pragma omp simd
    for (int64_t l = 0; l < lanes; ++l) {
      const op_t z = load(xj, l) - m[l];
      yj[l] = static_cast<T>(kLog ? z - sum[l] : scalar_math::exp(z) * sum[l]);
    }
  }
}

template <typename T, bool kLog>
void forward_lanes(const T* x, T* y, const Slices& s) {
  for_each_lane_block(s, [&](int64_t o, int64_t i0, int64_t lanes) {
    const int64_t base = o * s.n * s.inner + i0;
    forward_lane_block<T, kLog>(x + base, y + base, s.n, s.inner, lanes);
  });
}

// ------------------------------------------------------------------------------------ backward
// softmax:     grad_input = y * (g - sum(g * y))
// log_softmax: grad_input = g - exp(y) * sum(g)

// The sum of a[i] * b[i] over a float row in four independent vector sums, so that an add need not wait for the
// one before it (a single running sum makes the loop latency-bound).
__attribute__((always_inline)) inline float dot_row(const float* a, const float* b, int64_t n) {
  constexpr int64_t kL = 16;
  float acc[4][kL] = {};
  int64_t i = 0;
  for (; i + 4 * kL <= n; i += 4 * kL) {
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) {
#pragma omp simd
      for (int64_t l = 0; l < kL; ++l) acc[u][l] += a[i + u * kL + l] * b[i + u * kL + l];
    }
  }
  float s = 0;
  for (; i < n; ++i) s += a[i] * b[i];
  for (int u = 0; u < 4; ++u) {
    for (int64_t l = 0; l < kL; ++l) s += acc[u][l];
  }
  return s;
}

template <typename T, bool kLog>
TL_CPU_MULTIVERSION void backward_row(const T* gr, const T* yr, T* out, int64_t n) {
  using op_t = opmath_t<T>;
  op_t s = 0;
  if constexpr (kLog) {
    op_t finite = 0;  // 0 when every log-probability is finite (then each is <= 0), NaN otherwise
#pragma omp simd reduction(+ : s) reduction(+ : finite)
    for (int64_t i = 0; i < n; ++i) {
      s += load(gr, i);
      finite += load(yr, i) * op_t(0);
    }
    if constexpr (std::is_same_v<T, float>) {
      if (finite == 0 && avx512_rows()) {
        log_backward_row_avx512(gr, yr, out, n, s);
        return;
      }
    }
    if (std::is_same_v<op_t, float> && finite == 0) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(load(gr, i) - shifted_exp<true>(load(yr, i)) * s);
    } else {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(load(gr, i) - scalar_math::exp(load(yr, i)) * s);
    }
  } else {
    if constexpr (std::is_same_v<T, float>) {
      s = dot_row(gr, yr, n);
    } else {
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < n; ++i) s += load(gr, i) * load(yr, i);
    }
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(load(yr, i) * (load(gr, i) - s));
  }
}

template <typename T, bool kLog>
void backward_rows(const T* g, const T* y, T* gi, int64_t rows, int64_t n) {
  parallel_for(rows, row_grain(n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) backward_row<T, kLog>(g + r * n, y + r * n, gi + r * n, n);
  });
}

template <typename T, bool kLog>
TL_CPU_MULTIVERSION void backward_lane_block(const T* g, const T* y, T* gi, int64_t n, int64_t inner,
                                             int64_t lanes) {
  using op_t = opmath_t<T>;
  op_t sum[kLanes];
  for (int64_t l = 0; l < lanes; ++l) sum[l] = 0;
  for (int64_t j = 0; j < n; ++j) {
    const T* gj = g + j * inner;
    const T* yj = y + j * inner;
#pragma omp simd
    for (int64_t l = 0; l < lanes; ++l) sum[l] += kLog ? load(gj, l) : load(gj, l) * load(yj, l);
  }
  for (int64_t j = 0; j < n; ++j) {
    const T* gj = g + j * inner;
    const T* yj = y + j * inner;
    T* out = gi + j * inner;
#pragma omp simd
    for (int64_t l = 0; l < lanes; ++l)
      out[l] = static_cast<T>(kLog ? load(gj, l) - scalar_math::exp(load(yj, l)) * sum[l]
                                   : load(yj, l) * (load(gj, l) - sum[l]));
  }
}

template <typename T, bool kLog>
void backward_lanes(const T* g, const T* y, T* gi, const Slices& s) {
  for_each_lane_block(s, [&](int64_t o, int64_t i0, int64_t lanes) {
    const int64_t base = o * s.n * s.inner + i0;
    backward_lane_block<T, kLog>(g + base, y + base, gi + base, s.n, s.inner, lanes);
  });
}

// ------------------------------------------------------------------------------------ entry points

// out itself when it is contiguous in dtype t, else a contiguous temporary copied into it by finish().
Tensor target_for(const Tensor& out, ScalarType t) {
  return out.is_contiguous() && out.scalar_type() == t ? out : empty_tensor(out.sizes(), t, out.device());
}
void finish(const Tensor& out, const Tensor& result) {
  if (!result.is_same(out)) copy_cast_cpu(out, result);
}

template <bool kLog>
void softmax_forward(const char* lastdim_name, const char* name, const Tensor& self, int64_t dim, bool half_to_float,
                     const Tensor& out) {
  TL_CHECK(!half_to_float, kLog ? "log_softmax" : "softmax", " with half to float conversion is not supported on CPU");
  const Slices s = slices_of(self, dim);
  const ScalarType t = self.scalar_type();
  dispatch_floating(t, s.inner == 1 ? lastdim_name : name, [&](auto tag) {
    using T = decltype(tag);
    if (self.numel() == 0) return;
    const Tensor x = contiguous_as(self, t);
    const Tensor y = target_for(out, t);
    if (s.inner == 1)
      forward_rows<T, kLog>(x.data<T>(), y.data<T>(), s.outer, s.n);
    else
      forward_lanes<T, kLog>(x.data<T>(), y.data<T>(), s);
    finish(out, y);
  });
}

template <bool kLog>
void softmax_backward(const char* lastdim_name, const char* name, const Tensor& grad_output, const Tensor& output,
                      int64_t dim, const Tensor& out) {
  const Slices s = slices_of(output, dim);
  const ScalarType t = grad_output.scalar_type();
  dispatch_floating(t, s.inner == 1 ? lastdim_name : name, [&](auto tag) {
    using T = decltype(tag);
    if (output.numel() == 0) return;
    const Tensor g = contiguous_as(grad_output, t);
    const Tensor y = contiguous_as(output, t);
    const Tensor gi = target_for(out, t);
    if (s.inner == 1)
      backward_rows<T, kLog>(g.data<T>(), y.data<T>(), gi.data<T>(), s.outer, s.n);
    else
      backward_lanes<T, kLog>(g.data<T>(), y.data<T>(), gi.data<T>(), s);
    finish(out, gi);
  });
}

}  // namespace

void kernels::softmax_out_cpu(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  softmax_forward<false>("softmax_lastdim_kernel_impl", "softmax_kernel_impl", self, dim, half_to_float, out);
}

void kernels::log_softmax_out_cpu(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  softmax_forward<true>("log_softmax_lastdim_kernel_impl", "log_softmax_kernel_impl", self, dim, half_to_float, out);
}

void kernels::softmax_backward_data_out_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                            std::optional<ScalarType> input_dtype, const Tensor& out) {
  softmax_backward<false>("softmax_backward_lastdim_kernel_impl", "softmax_backward_kernel_impl", grad_output, output,
                          dim, out);
}

void kernels::log_softmax_backward_data_out_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                                std::optional<ScalarType> input_dtype, const Tensor& out) {
  softmax_backward<true>("log_softmax_backward_lastdim_kernel_impl", "log_softmax_backward_kernel_impl", grad_output,
                         output, dim, out);
}

}  // namespace torchlite
