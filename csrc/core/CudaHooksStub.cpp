// CPU-only builds: no CUDA runtime.
#include "core/CudaHooks.h"

#ifndef TORCHLITE_WITH_CUDA
namespace torchlite::cuda {
bool is_built() { return false; }
int device_count() { return 0; }
const char* version() { return nullptr; }
void init() {}
int current_device() { throw_not_available(); }
void set_device(int) { throw_not_available(); }
void synchronize(int) { throw_not_available(); }
DeviceMemoryStats memory_stats(int) { throw_not_available(); }
void reset_peak_memory_stats(int) { throw_not_available(); }
void empty_cache() {}
}  // namespace torchlite::cuda
#endif
