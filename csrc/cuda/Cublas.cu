// cuBLAS, loaded at run time with dlopen: the build needs no cuBLAS headers or libraries, and a machine
// without cuBLAS still runs every other CUDA kernel (matrix products then take the plain kernel of
// kernels/gpu/mm.inc). The few declarations used are written here from cuBLAS's documented API.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <library_types.h>

#include <mutex>
#include <string>
#include <vector>

#include "core/CudaHooks.h"
#include "core/Error.h"

namespace torchlite::cuda {
namespace {

using cublasHandle_t = void*;
using cublasStatus_t = int;
constexpr int kOpN = 0, kOpT = 1;                // cublasOperation_t
constexpr int kCompute32F = 68, kCompute64F = 70;  // cublasComputeType_t
constexpr int kGemmDefault = -1;                  // cublasGemmAlgo_t

using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*, const void*, cudaDataType,
                                    int, long long, const void*, cudaDataType, int, long long, const void*, void*,
                                    cudaDataType, int, long long, int, int, int);

struct Blas {
  void* lib = nullptr;
  CreateFn create = nullptr;
  GemmExFn gemm = nullptr;
  std::vector<cublasHandle_t> handles;  // one per device, made on first use
  std::string error;                    // why it could not be loaded
};

std::mutex g_mutex;
std::string g_library_path;  // set by torchlite.cuda when the nvidia-cublas wheel is installed

Blas& blas() {
  static Blas b = [] {
    Blas r;
    std::vector<std::string> names;
    if (!g_library_path.empty()) names.push_back(g_library_path);
    for (const char* n : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) names.emplace_back(n);
    for (const std::string& n : names) {
      r.lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (r.lib) break;
      const char* e = dlerror();
      r.error = e ? e : n;
    }
    if (!r.lib) return r;
    r.create = reinterpret_cast<CreateFn>(dlsym(r.lib, "cublasCreate_v2"));
    r.gemm = reinterpret_cast<GemmExFn>(dlsym(r.lib, "cublasGemmStridedBatchedEx"));
    if (!r.create || !r.gemm) {
      r.error = "libcublas lacks cublasCreate_v2 or cublasGemmStridedBatchedEx";
      r.lib = nullptr;
    }
    return r;
  }();
  return b;
}

cudaDataType data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return CUDA_R_16F;
    case ScalarType::BFloat16: return CUDA_R_16BF;
    case ScalarType::Float: return CUDA_R_32F;
    case ScalarType::Double: return CUDA_R_64F;
    default: TL_ERROR("cuBLAS gemm: unsupported dtype ", scalar_type_name(t));
  }
}

int as_int(int64_t v, const char* what) {
  TL_CHECK(v >= 0 && v <= 0x7fffffff, "cuBLAS gemm: ", what, " = ", v, " does not fit in a 32-bit int");
  return static_cast<int>(v);
}

}  // namespace

void set_blas_library(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_library_path = path;
}

bool runtime::blas_available() {
  if (runtime::device_count() == 0) return false;
  std::lock_guard<std::mutex> lock(g_mutex);
  return blas().lib != nullptr;
}

std::string blas_error() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return blas().lib ? std::string() : blas().error;
}

void gemm(const GemmArgs& g) {
  cublasHandle_t handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    Blas& b = blas();
    TL_CHECK(b.lib, "cuBLAS could not be loaded: ", b.error);
    int device = 0;
    TL_CHECK(cudaGetDevice(&device) == cudaSuccess, "cudaGetDevice failed");
    if (b.handles.size() <= static_cast<size_t>(device)) b.handles.resize(static_cast<size_t>(device) + 1, nullptr);
    if (!b.handles[static_cast<size_t>(device)]) {
      const cublasStatus_t s = b.create(&b.handles[static_cast<size_t>(device)]);
      TL_CHECK(s == 0, "cublasCreate failed with status ", s);
    }
    handle = b.handles[static_cast<size_t>(device)];
  }
  const cudaDataType t = data_type(g.dtype);
  const bool dbl = g.dtype == ScalarType::Double;
  const float alpha_f = static_cast<float>(g.alpha), beta_f = static_cast<float>(g.beta);
  const void* alpha = dbl ? static_cast<const void*>(&g.alpha) : &alpha_f;
  const void* beta = dbl ? static_cast<const void*>(&g.beta) : &beta_f;
  const cublasStatus_t s = blas().gemm(
      handle, g.trans_a ? kOpT : kOpN, g.trans_b ? kOpT : kOpN, as_int(g.m, "m"), as_int(g.n, "n"),
      as_int(g.k, "k"), alpha, g.a, t, as_int(std::max<int64_t>(1, g.lda), "lda"), g.stride_a, g.b, t,
      as_int(std::max<int64_t>(1, g.ldb), "ldb"), g.stride_b, beta, g.c, t, as_int(std::max<int64_t>(1, g.ldc), "ldc"),
      g.stride_c, as_int(g.batch, "batch"), dbl ? kCompute64F : kCompute32F, kGemmDefault);
  TL_CHECK(s == 0, "cublasGemmStridedBatchedEx failed with status ", s);
}

}  // namespace torchlite::cuda
