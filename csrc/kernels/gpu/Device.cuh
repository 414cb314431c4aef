#pragma once
// Facts about the current CUDA device that kernels size their grids by.
#include <cuda_runtime.h>

#include <type_traits>

#include "core/Error.h"

namespace torchlite::gpu {

// V elements of T, loaded and stored as one access (16 bytes for the widest dtype of a kernel).
template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// The number of streaming multiprocessors of the current device (cached per device).
inline int sm_count() {
  constexpr int kMaxDevices = 64;
  static int cached[kMaxDevices] = {};
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  TL_CHECK(err == cudaSuccess, "CUDA error in cudaGetDevice: ", cudaGetErrorString(err));
  if (dev >= 0 && dev < kMaxDevices && cached[dev] > 0) return cached[dev];
  int n = 0;
  err = cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
  TL_CHECK(err == cudaSuccess, "CUDA error in cudaDeviceGetAttribute: ", cudaGetErrorString(err));
  if (n < 1) n = 1;
  if (dev >= 0 && dev < kMaxDevices) cached[dev] = n;
  return n;
}

namespace cuda_detail {

// The combination of v over the G threads of a row (G = 32: the warp; G = blockDim.x: the block, through
// `shared`, 32 slots), returned to every thread of the row.
template <int G, typename V, typename F>
__device__ inline V row_all_reduce(V v, const F& combine, V* shared) {
#pragma unroll
  for (int delta = 16; delta > 0; delta /= 2) v = combine(v, __shfl_xor_sync(0xffffffffu, v, delta));
  if constexpr (G > 32) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    __syncthreads();  // shared may still be read by the previous reduction
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = shared[0];
    for (int w = 1; w < G / 32; ++w) v = combine(v, shared[w]);
  }
  return v;
}

// Row kernels (softmax, layer norm) give a warp to each row of up to kWarpRowMax elements (32 per lane,
// held in registers) and a block of 512 threads to each longer row.
constexpr int kWarpRowMax = 1024;

// Launches the warp-per-row form (G = 32) for rows of up to kWarpRowMax elements, else a block a row
// (G = 512).
template <typename Launch>
void launch_rows(int64_t rows, int64_t n, const Launch& launch) {
  if (rows <= 0) return;
  constexpr int kThreads = 512;
  const int64_t cap = static_cast<int64_t>(sm_count()) * 32;
  if (n <= kWarpRowMax) {
    int64_t blocks = (rows + kThreads / 32 - 1) / (kThreads / 32);
    launch(std::integral_constant<int, 32>{}, blocks < cap ? blocks : cap, kThreads);
  } else {
    launch(std::integral_constant<int, kThreads>{}, rows < cap ? rows : cap, kThreads);
  }
  cudaError_t err = cudaGetLastError();
  TL_CHECK(err == cudaSuccess, "CUDA kernel launch failed: ", cudaGetErrorString(err));
}

}  // namespace cuda_detail

}  // namespace torchlite::gpu
