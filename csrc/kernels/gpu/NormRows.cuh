#pragma once
// layer_norm's forward and its input gradient on CUDA: a warp per row of up to kWarpRowMax elements (held in
// registers: the row is read once) or a block of 512 threads per longer row, with the formulas of the
// one-thread-per-row kernels of kernels/gpu/norm.inc (the mean, then the mean squared deviation around it;
// dx = g * rstd + (x - mean) * u + v with u, v from the row's sums of g = dy * w and g * (x - mean)).
// Included by norm.inc under nvcc only.
#include <cuda_runtime.h>

#include "kernels/Norm.h"
#include "kernels/gpu/Device.cuh"

namespace torchlite::gpu::cuda_detail {

// G threads per row (32: a warp, rows packed blockDim.x / 32 to a block; 512: a block a row). Each thread
// holds up to kPer of its row's elements (kPer = 0: none, the row is read again from memory).
template <int G, int kPer, typename T>
__global__ void layer_norm_rows_kernel(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd, int64_t R,
                                       int64_t M, double eps) {
  using acc_t = opmath_t<T>;
  __shared__ acc_t shared[32];
  const int t = threadIdx.x % G;
  const int64_t per_block = blockDim.x / G;
  const int64_t row_stride = static_cast<int64_t>(gridDim.x) * per_block;
  const auto add = [](acc_t p, acc_t q) { return p + q; };
  for (int64_t r = blockIdx.x * per_block + threadIdx.x / G; r < R; r += row_stride) {
    const T* xr = x + r * M;
    acc_t v[kPer > 0 ? kPer : 1];
    acc_t sum = 0;
    if constexpr (kPer > 0) {
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
        const int64_t j = t + G * i;
        v[i] = j < M ? static_cast<acc_t>(xr[j]) : acc_t(0);
        sum += v[i];
      }
    } else {
      for (int64_t j = t; j < M; j += G) sum += static_cast<acc_t>(xr[j]);
    }
    const acc_t mu = row_all_reduce<G>(sum, add, shared) / static_cast<acc_t>(M);
    acc_t sq = 0;
    if constexpr (kPer > 0) {
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
        const acc_t d = v[i] - mu;
        if (t + G * i < M) sq += d * d;
      }
    } else {
      for (int64_t j = t; j < M; j += G) {
        const acc_t d = static_cast<acc_t>(xr[j]) - mu;
        sq += d * d;
      }
    }
    const acc_t rs = norm::inv_std<acc_t>(row_all_reduce<G>(sq, add, shared) / static_cast<acc_t>(M), eps);
    if (t == 0) {
      mean[r] = static_cast<T>(mu);
      rstd[r] = static_cast<T>(rs);
    }
    T* yr = y + r * M;
    const auto write = [&](int64_t j, acc_t xv) {
      const acc_t n = (xv - mu) * rs;
      yr[j] = static_cast<T>(n * (w ? static_cast<acc_t>(w[j]) : acc_t(1)) + (b ? static_cast<acc_t>(b[j]) : acc_t(0)));
    };
    if constexpr (kPer > 0) {
#pragma unroll
      for (int i = 0; i < kPer; ++i)
        if (t + G * i < M) write(t + G * i, v[i]);
    } else {
      for (int64_t j = t; j < M; j += G) write(j, static_cast<acc_t>(xr[j]));
    }
  }
}

template <int G, typename T>
__global__ void layer_norm_grad_input_rows_kernel(const T* dy, const T* x, const T* mean, const T* rstd, const T* w,
                                                  T* dx, int64_t R, int64_t M) {
  using acc_t = opmath_t<T>;
  __shared__ acc_t shared[32];
  const int t = threadIdx.x % G;
  const int64_t per_block = blockDim.x / G;
  const int64_t row_stride = static_cast<int64_t>(gridDim.x) * per_block;
  const auto add = [](acc_t p, acc_t q) { return p + q; };
  for (int64_t r = blockIdx.x * per_block + threadIdx.x / G; r < R; r += row_stride) {
    const T *dyr = dy + r * M, *xr = x + r * M;
    const acc_t mu = static_cast<acc_t>(mean[r]), rs = static_cast<acc_t>(rstd[r]), inv_m = acc_t(1) / M;
    acc_t a = 0, bx = 0;  // the sums of g = dy * w and of g * (x - mean)
    for (int64_t j = t; j < M; j += G) {
      const acc_t g = static_cast<acc_t>(dyr[j]) * (w ? static_cast<acc_t>(w[j]) : acc_t(1));
      a += g;
      bx += g * (static_cast<acc_t>(xr[j]) - mu);
    }
    a = row_all_reduce<G>(a, add, shared);
    bx = row_all_reduce<G>(bx, add, shared);
    const acc_t u = -rs * rs * rs * bx * inv_m, v = -rs * a * inv_m;
    T* dxr = dx + r * M;
    for (int64_t j = t; j < M; j += G) {
      const acc_t g = static_cast<acc_t>(dyr[j]) * (w ? static_cast<acc_t>(w[j]) : acc_t(1));
      dxr[j] = static_cast<T>(g * rs + (static_cast<acc_t>(xr[j]) - mu) * u + v);
    }
  }
}

}  // namespace torchlite::gpu::cuda_detail
