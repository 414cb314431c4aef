#pragma once
// The CUDA backend of the hand-written kernels (kernels/gpu/Backend.h): one thread per index, in a
// grid-stride loop; launches on the legacy default stream, so kernels run in order with each other and
// with cudaMemcpy.
#include <cuda_runtime.h>

#include "core/Error.h"
#include "kernels/gpu/Device.cuh"
#include "kernels/gpu/Backend.h"

namespace torchlite::gpu {

namespace cuda_detail {
template <typename F>
__global__ void for_each_kernel(int64_t n, F f) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    f(i);
}

// dst[i] = f(src[i]) over dense arrays, V elements per access.
template <typename S, typename D, int V, typename F>
__global__ void map_kernel(int64_t n, const S* src, D* dst, F f) {
  const int64_t nvec = n / V;
  const int64_t first = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t v = first; v < nvec; v += step) {
    const Pack<S, V> in = reinterpret_cast<const Pack<S, V>*>(src)[v];
    Pack<D, V> out;
#pragma unroll
    for (int j = 0; j < V; ++j) out.v[j] = f(in.v[j]);
    reinterpret_cast<Pack<D, V>*>(dst)[v] = out;
  }
  const int64_t i = nvec * V + first;
  if (i < n) dst[i] = f(src[i]);
}
}  // namespace cuda_detail

struct CudaBackend {
  static constexpr bool is_cuda = true;

  template <typename F>
  static void for_each(int64_t n, const F& f) {
    if (n <= 0) return;
    constexpr int kThreads = 256;
    int64_t blocks = (n + kThreads - 1) / kThreads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    cuda_detail::for_each_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(n, f);
    cudaError_t err = cudaGetLastError();
    TL_CHECK(err == cudaSuccess, "CUDA kernel launch failed: ", cudaGetErrorString(err));
  }
  template <typename F>
  static void for_each(int64_t n, const F& f, int64_t /*work: one thread per index regardless*/) {
    for_each(n, f);
  }

  // dst[i] = f(src[i]) for i in [0, n), both arrays dense: 16-byte accesses when both are aligned.
  template <typename S, typename D, typename F>
  static void map(int64_t n, const S* src, D* dst, const F& f) {
    if (n <= 0) return;
    constexpr int V = 16 / (sizeof(S) > sizeof(D) ? sizeof(S) : sizeof(D));
    if (V < 2 || reinterpret_cast<uintptr_t>(src) % 16 != 0 || reinterpret_cast<uintptr_t>(dst) % 16 != 0) {
      for_each(n, [=] __device__(int64_t i) { dst[i] = f(src[i]); });
      return;
    }
    constexpr int kThreads = 256;
    int64_t blocks = (n / V + kThreads - 1) / kThreads;  // a vector per thread, as Loops.cuh
    if (blocks > 0x7fffffff) blocks = 0x7fffffff;
    if (blocks < 1) blocks = 1;
    cuda_detail::map_kernel<S, D, V><<<static_cast<unsigned>(blocks), kThreads>>>(n, src, dst, f);
    cudaError_t err = cudaGetLastError();
    TL_CHECK(err == cudaSuccess, "CUDA kernel launch failed: ", cudaGetErrorString(err));
  }

  static void to_host(void* dst, const void* src, size_t nbytes) {
    if (nbytes == 0) return;
    cudaError_t err = cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToHost);
    TL_CHECK(err == cudaSuccess, "CUDA error in cudaMemcpy (device to host): ", cudaGetErrorString(err));
  }

  static void copy_device(void* dst, const void* src, size_t nbytes) {
    if (nbytes == 0) return;
    cudaError_t err = cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, /*stream=*/0);
    TL_CHECK(err == cudaSuccess, "CUDA error in cudaMemcpyAsync (device to device): ", cudaGetErrorString(err));
  }
};

}  // namespace torchlite::gpu

// The wrapper that compiles a kernels/gpu/*.inc for CUDA includes this first (instead of the host's
// definitions in kernels/gpu/Backend.h).
#undef TL_GPU_KERNELS_BEGIN
#undef TL_GPU_KERNELS_END
#define TL_GPU_KERNELS_BEGIN    \
  namespace torchlite::kernels { \
  using Backend = ::torchlite::gpu::CudaBackend;
#define TL_GPU_KERNELS_END }
