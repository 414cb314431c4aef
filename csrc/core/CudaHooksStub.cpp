// CPU-only builds: no CUDA runtime.
#include "core/CudaHooks.h"

#ifndef TORCHLITE_WITH_CUDA
namespace torchlite::cuda {
bool is_built() { return false; }
const char* version() { return nullptr; }
std::string blas_error() { return std::string(); }
void set_blas_library(const std::string&) {}
void gemm(const GemmArgs&) { throw_not_available(); }

namespace runtime {
int device_count() { return 0; }
void init() {}
int current_device() { throw_not_available(); }
int exchange_device(int) { throw_not_available(); }
void set_device(int) { throw_not_available(); }
void synchronize(int) { throw_not_available(); }
std::string device_name(int) { throw_not_available(); }
DeviceMemoryStats memory_stats(int) { throw_not_available(); }
void reset_peak_memory_stats(int) { throw_not_available(); }
void empty_cache() {}
void memcpy(void*, const void*, size_t, bool) { throw_not_available(); }
bool blas_available() { return false; }
}  // namespace runtime
}  // namespace torchlite::cuda
#endif
