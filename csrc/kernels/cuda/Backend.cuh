#pragma once
// The CUDA backend of the hand-written kernels (kernels/gpu/Backend.h): one thread per index, in a
// grid-stride loop; launches on the legacy default stream, so kernels run in order with each other and
// with cudaMemcpy.
#include <cuda_runtime.h>

#include "core/Error.h"
#include "kernels/gpu/Backend.h"

namespace torchlite::gpu {

namespace cuda_detail {
template <typename F>
__global__ void for_each_kernel(int64_t n, F f) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    f(i);
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
