#pragma once
// The CUDA elementwise loop every generated pointwise kernel runs. Geometry
// comes from the same ElementwiseIter as on the CPU; inputs that are one host
// value (wrapped numbers, 0-dim CPU tensors) are passed by value.
#include <cuda_runtime.h>

#include <utility>

#include "core/Error.h"
#include "kernels/Convert.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/Loops.h"

namespace torchlite {

namespace cuda_detail {

template <int N, typename op_t>
struct Args {
  int ndim;
  int64_t shape[ElementwiseIter::kMaxDims];
  int64_t strides[N + 1][ElementwiseIter::kMaxDims];
  char* data[N + 1];
  bool is_scalar[N + 1];
  op_t scalar[N + 1];
};

template <typename in_t, typename op_t, int N>
__device__ inline op_t load(const Args<N, op_t>& a, int k, const int64_t* offsets) {
  if (a.is_scalar[k]) return a.scalar[k];
  return static_cast<op_t>(*reinterpret_cast<const in_t*>(a.data[k] + offsets[k]));
}

template <typename in_t, typename out_t, typename op_t, int N, typename F, size_t... I>
__global__ void elementwise_kernel(int64_t numel, Args<N, op_t> a, F f, std::index_sequence<I...>) {
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < numel;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t offsets[N + 1] = {};
    int64_t rem = idx;
    for (int d = 0; d < a.ndim; ++d) {
      int64_t c = rem % a.shape[d];
      rem /= a.shape[d];
      for (int k = 0; k <= N; ++k) offsets[k] += c * a.strides[k][d];
    }
    *reinterpret_cast<out_t*>(a.data[0] + offsets[0]) =
        convert<out_t>(f(load<in_t, op_t, N>(a, 1 + static_cast<int>(I), offsets)...));
  }
}

// Every non-scalar operand dense (ElementwiseIter::is_contiguous): element idx of each is at idx.
template <typename in_t, typename out_t, typename op_t, int N, typename F, size_t... I>
__global__ void contiguous_kernel(int64_t numel, Args<N, op_t> a, F f, std::index_sequence<I...>) {
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < numel;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    reinterpret_cast<out_t*>(a.data[0])[idx] = convert<out_t>(
        f((a.is_scalar[1 + I] ? a.scalar[1 + I]
                              : static_cast<op_t>(reinterpret_cast<const in_t*>(a.data[1 + I])[idx]))...));
  }
}

}  // namespace cuda_detail

template <typename in_t, typename out_t = in_t, typename F>
void gpu_kernel(ElementwiseIter& it, const F& f) {
  constexpr int N = static_cast<int>(lambda_traits<F>::arity);
  using op_t = opmath_t<in_t>;
  if (it.numel == 0) return;
  cuda_detail::Args<N, op_t> a{};
  a.ndim = it.ndim;
  for (int d = 0; d < it.ndim; ++d) a.shape[d] = it.shape[d];
  for (int k = 0; k <= N; ++k) {
    for (int d = 0; d < it.ndim; ++d) a.strides[k][d] = it.strides[k][d];
    a.data[k] = it.data[k];
    a.is_scalar[k] = it.is_scalar[k];
    if (it.is_scalar[k]) a.scalar[k] = static_cast<op_t>(*reinterpret_cast<const in_t*>(it.scalar_buf[k]));
  }
  constexpr int kThreads = 256;
  int64_t blocks = (it.numel + kThreads - 1) / kThreads;
  if (blocks > 65535 * 4) blocks = 65535 * 4;
  if (it.is_contiguous()) {
    cuda_detail::contiguous_kernel<in_t, out_t, op_t, N>
        <<<static_cast<unsigned>(blocks), kThreads>>>(it.numel, a, f, std::make_index_sequence<N>{});
  } else {
    cuda_detail::elementwise_kernel<in_t, out_t, op_t, N>
        <<<static_cast<unsigned>(blocks), kThreads>>>(it.numel, a, f, std::make_index_sequence<N>{});
  }
  cudaError_t err = cudaGetLastError();
  TL_CHECK(err == cudaSuccess, "CUDA kernel launch failed: ", cudaGetErrorString(err));
  it.finish();  // the cast into out's dtype, when it differs
}

}  // namespace torchlite
