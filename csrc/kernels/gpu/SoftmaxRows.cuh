#pragma once
// softmax / log_softmax and their gradients over the last dim of contiguous CUDA tensors: a warp per row
// (rows up to 1024 elements) or a block of 512 threads per row, reading the row in the passes of the
// one-thread-per-slice kernels of kernels/gpu/softmax.inc (maximum, sum of exponentials, result), with the
// same rules: the maximum skips NaNs (v > m), so a NaN or an infinite maximum makes the row NaN through
// the sum. Included by softmax.inc under nvcc only. (Holding a warp's row in registers, as NormRows.cuh
// does, ran out of registers for the float64 backward at 512 threads, and was slower for float32 on an
// H100: 31 us against 16 us for 4096 x 1000.)
#include <cuda_runtime.h>

#include <limits>

#include "core/Error.h"
#include "kernels/ScalarMath.h"
#include "kernels/gpu/Device.cuh"

namespace torchlite::gpu::cuda_detail {

// G threads per row: G = 32 packs blockDim.x / 32 rows in a block; G = blockDim.x gives each block a row.
template <int G, typename T, bool kLog>
__global__ void softmax_rows_kernel(const T* x, T* y, int64_t rows, int64_t n) {
  using op_t = opmath_t<T>;
  __shared__ op_t shared[32];
  const int t = threadIdx.x % G;
  const int64_t per_block = blockDim.x / G;
  const int64_t row_stride = static_cast<int64_t>(gridDim.x) * per_block;
  for (int64_t r = blockIdx.x * per_block + threadIdx.x / G; r < rows; r += row_stride) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    op_t m = -std::numeric_limits<op_t>::infinity();
    for (int64_t j = t; j < n; j += G) {
      const op_t v = static_cast<op_t>(xr[j]);
      m = v > m ? v : m;
    }
    m = row_all_reduce<G>(m, [](op_t a, op_t b) { return b > a ? b : a; }, shared);
    op_t sum = 0;
    for (int64_t j = t; j < n; j += G) sum += scalar_math::exp(static_cast<op_t>(xr[j]) - m);
    sum = row_all_reduce<G>(sum, [](op_t a, op_t b) { return a + b; }, shared);
    const op_t scale = kLog ? scalar_math::log(sum) : op_t(1) / sum;
    for (int64_t j = t; j < n; j += G) {
      const op_t z = static_cast<op_t>(xr[j]) - m;
      yr[j] = static_cast<T>(kLog ? z - scale : scalar_math::exp(z) * scale);
    }
  }
}

template <int G, typename T, bool kLog>
__global__ void softmax_backward_rows_kernel(const T* g, const T* y, T* gi, int64_t rows, int64_t n) {
  using op_t = opmath_t<T>;
  __shared__ op_t shared[32];
  const int t = threadIdx.x % G;
  const int64_t per_block = blockDim.x / G;
  const int64_t row_stride = static_cast<int64_t>(gridDim.x) * per_block;
  for (int64_t r = blockIdx.x * per_block + threadIdx.x / G; r < rows; r += row_stride) {
    const int64_t first = r * n;
    op_t sum = 0;
    for (int64_t j = t; j < n; j += G) {
      const op_t gv = static_cast<op_t>(g[first + j]);
      sum += kLog ? gv : gv * static_cast<op_t>(y[first + j]);
    }
    sum = row_all_reduce<G>(sum, [](op_t a, op_t b) { return a + b; }, shared);
    for (int64_t j = t; j < n; j += G) {
      const op_t gv = static_cast<op_t>(g[first + j]), yv = static_cast<op_t>(y[first + j]);
      gi[first + j] = static_cast<T>(kLog ? gv - scalar_math::exp(yv) * sum : yv * (gv - sum));
    }
  }
}

}  // namespace torchlite::gpu::cuda_detail
