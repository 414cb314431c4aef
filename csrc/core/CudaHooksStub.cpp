// CPU-only builds: no CUDA runtime.
#include "core/CudaHooks.h"

#ifndef TORCHLITE_WITH_CUDA
namespace torchlite::cuda {
bool is_built() { return false; }
int device_count() { return 0; }
const char* version() { return nullptr; }
void init() {}
}  // namespace torchlite::cuda
#endif
