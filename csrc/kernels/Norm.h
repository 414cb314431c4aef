#pragma once
// The normalizations' checked arguments and the row loops their kernels share (kernels/gpu/norm.inc).
// Layer norm normalizes each row of M elements (the trailing normalized_shape); group norm each group of
// an image, which is also a contiguous row (C / G channels times HxW); batch norm each channel over the
// batch and spatial positions (N segments of HxW elements). Each group's mean and 1 / sqrt(var + eps) are
// kept for the backward (var biased). Messages follow PyTorch's.
#include <cmath>

#include "core/Error.h"
#include "core/Macros.h"
#include "core/Tensor.h"
#include "kernels/ScalarMath.h"
#include "dispatch/NormShape.h"

// An `omp simd` reduction of the host compilation (nvcc has no use for it).
#if defined(__CUDACC__)
#define TL_NORM_SIMD
#define TL_NORM_SIMD_SUM(...)
#else
#define TL_NORM_PRAGMA(x) _Pragma(#x)
#define TL_NORM_SIMD TL_NORM_PRAGMA(omp simd)
#define TL_NORM_SIMD_SUM(...) TL_NORM_PRAGMA(omp simd reduction(+ : __VA_ARGS__))
#endif

namespace torchlite::norm {

inline void check_floating(const char* op, const Tensor& input) {
  if (!is_floating_type(input.scalar_type())) throw_dtype_not_implemented(op, input.scalar_type());
}

// Layer norm: input (rows..., normalized_shape...), weight and bias normalized_shape. Returns M.
inline int64_t check_layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor* weight,
                                const Tensor* bias) {
  if (normalized_shape.size() >= 1) {  // (an empty shape: the message check_normalized_shape gives)
    if (weight) check_normalized_param("weight", *weight, normalized_shape);
    if (bias) check_normalized_param("bias", *bias, normalized_shape);
  }
  return check_normalized_shape(input, normalized_shape);
}

// Group norm: input (N, C, *) with N * C * HxW elements, weight and bias (C).
inline void check_group_norm(const Tensor& input, const Tensor* weight, const Tensor* bias, int64_t N, int64_t C,
                             int64_t HxW, int64_t group) {
  TL_CHECK(group > 0, "Expected number of groups to be greater than 0, got ", group);
  TL_CHECK(C % group == 0, "Expected number of channels in input to be divisible by num_groups, but got input of "
           "shape ", to_string(input.sizes()), " and num_groups=", group);
  TL_CHECK(input.dim() >= 2 && input.size(0) == N && input.size(1) == C && input.numel() == N * C * HxW,
           "Expected input of shape (N=", N, ", C=", C, ", *) with ", N * C * HxW, " elements, got ",
           to_string(input.sizes()));
  for (const Tensor* p : {weight, bias}) {
    if (!p) continue;
    TL_CHECK(p->dim() == 1 && p->numel() == C, "Expected ", p == weight ? "weight" : "bias",
             " to be a vector of size equal to the number of channels in input, but got ",
             p == weight ? "weight" : "bias", " of shape ", to_string(p->sizes()), " and input of shape ",
             to_string(input.sizes()));
  }
}

// Batch norm: input (N, C, *), weight, bias and the statistics (C).
inline void check_batch_norm(const Tensor& input, const Tensor* weight, const Tensor* bias) {
  TL_CHECK(input.dim() >= 2, "batch_norm: expected an input of at least 2 dims (N, C, *), got ",
           to_string(input.sizes()));
  const int64_t C = input.size(1);
  for (const Tensor* p : {weight, bias}) {
    if (!p) continue;
    TL_CHECK(p->numel() == C, p == weight ? "weight" : "bias", " should contain ", C, " elements not ", p->numel());
  }
}

// The sum of n elements, and the sum of squares of their deviations from `mean`, in acc_t.
template <typename T, typename acc_t>
TL_HOST_DEVICE inline acc_t row_sum(const T* x, int64_t n) {
  acc_t s = 0;
  TL_NORM_SIMD_SUM(s)
  for (int64_t i = 0; i < n; ++i) s += static_cast<acc_t>(x[i]);
  return s;
}

template <typename T, typename acc_t>
TL_HOST_DEVICE inline acc_t row_sq_dev(const T* x, int64_t n, acc_t mean) {
  acc_t s = 0;
  TL_NORM_SIMD_SUM(s)
  for (int64_t i = 0; i < n; ++i) {
    const acc_t d = static_cast<acc_t>(x[i]) - mean;
    s += d * d;
  }
  return s;
}

// y = x * scale + shift over n elements.
template <typename T, typename acc_t>
TL_HOST_DEVICE inline void row_affine(const T* x, T* y, int64_t n, acc_t scale, acc_t shift) {
  TL_NORM_SIMD
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(static_cast<acc_t>(x[i]) * scale + shift);
}

// sum(dy) and sum(dy * (x - mean)) over n elements.
template <typename T, typename acc_t>
TL_HOST_DEVICE inline void row_grad_sums(const T* dy, const T* x, int64_t n, acc_t mean, acc_t& s_dy, acc_t& s_dyx) {
  acc_t a = 0, b = 0;
  TL_NORM_SIMD_SUM(a, b)
  for (int64_t i = 0; i < n; ++i) {
    const acc_t g = static_cast<acc_t>(dy[i]);
    a += g;
    b += g * (static_cast<acc_t>(x[i]) - mean);
  }
  s_dy += a;
  s_dyx += b;
}

// dx = dy * k + (x - mean) * u + v over n elements (every normalization's input gradient has this form).
template <typename T, typename acc_t>
TL_HOST_DEVICE inline void row_grad_input(const T* dy, const T* x, T* dx, int64_t n, acc_t mean, acc_t k, acc_t u,
                                          acc_t v) {
  TL_NORM_SIMD
  for (int64_t i = 0; i < n; ++i) {
    dx[i] = static_cast<T>(static_cast<acc_t>(dy[i]) * k + (static_cast<acc_t>(x[i]) - mean) * u + v);
  }
}

template <typename acc_t>
TL_HOST_DEVICE inline acc_t inv_std(acc_t var, double eps) {
  return acc_t(1) / scalar_math::sqrt(var + static_cast<acc_t>(eps));
}

}  // namespace torchlite::norm
