#pragma once
// What the rest of torchlite asks of the CUDA runtime. A CUDA build implements
// these in cuda/CudaHooks.cu and cuda/Cublas.cu; a CPU-only build in core/CudaHooksStub.cpp.
//
// The device functions go through core/CudaEmulation.cpp, which forwards them to that runtime
// (namespace cuda::runtime below) unless TORCHLITE_EMULATE_CUDA=N was set at import: then, for tests on
// machines without a GPU, N emulated CUDA devices keep their tensors in host memory and run the CUDA
// kernels' host compilation (kernels/gpu/Backend.h; the CPU kernel for generated pointwise kernels), so
// that everything above the kernels (device placement and rules, copies, autograd, Python) runs as on a GPU.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/DeviceCachingAllocator.h"
#include "core/DeviceGuard.h"
#include "core/ScalarType.h"

namespace torchlite::cuda {

bool is_built();
bool emulated();  // TORCHLITE_EMULATE_CUDA=N (tests only): N CUDA devices (1 to 8) emulated in host memory
int device_count();  // 0 without a GPU or driver, never an error
const char* version();  // "13.0", or nullptr without CUDA
void init();  // registers the CUDA allocator when a device exists

// Without a device these raise "CUDA is not available: ..." (a RuntimeError); empty_cache does nothing.
// current_device and exchange_device are declared in core/DeviceGuard.h.
void set_device(int device);
void synchronize(int device);  // -1: the current device
std::string device_name(int device);  // "NVIDIA H100 80GB HBM3"
DeviceMemoryStats memory_stats(int device);
void reset_peak_memory_stats(int device);
void empty_cache();
// Copies nbytes between host and device memory, either way or device to device (unified addressing
// tells which). Returns once the copy is done, unless non_blocking (then ordered after earlier kernels
// and before later ones; host memory must stay alive until then).
void memcpy(void* dst, const void* src, size_t nbytes, bool non_blocking);

// cuBLAS, loaded at run time (libcublas.so.13 or .12: the nvidia-cublas wheel's, which `import torchlite.cuda`
// preloads, or the system's). The build needs no cuBLAS headers or libraries.
bool blas_available();  // false without CUDA, a GPU or a loadable cuBLAS
std::string blas_error();  // why cuBLAS could not be loaded ("" when it was, or without CUDA)
void set_blas_library(const std::string& path);  // tried first
// One strided-batched column-major GEMM, as cublasGemmStridedBatchedEx takes it: for each batch,
// C = alpha * op(A) @ op(B) + beta * C (float16/bfloat16/float32/float64, accumulated in float or double).
struct GemmArgs {
  ScalarType dtype = ScalarType::Float;
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;
  const void* a = nullptr;
  int64_t lda = 0, stride_a = 0;
  const void* b = nullptr;
  int64_t ldb = 0, stride_b = 0;
  void* c = nullptr;
  int64_t ldc = 0, stride_c = 0;
  int64_t batch = 1;
};
void gemm(const GemmArgs& args);
[[noreturn]] void throw_not_available();

// The real runtime behind the device functions above (cuda/CudaHooks.cu, or the CPU-only stubs).
namespace runtime {
int device_count();
void init();
int current_device();
int exchange_device(int device);
void set_device(int device);
void synchronize(int device);
std::string device_name(int device);
DeviceMemoryStats memory_stats(int device);
void reset_peak_memory_stats(int device);
void empty_cache();
void memcpy(void* dst, const void* src, size_t nbytes, bool non_blocking);
bool blas_available();
}  // namespace runtime

}  // namespace torchlite::cuda
