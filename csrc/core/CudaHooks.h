#pragma once
// What the rest of torchlite asks of the CUDA runtime. A CUDA build implements
// these in kernels/cuda/CudaHooks.cu; a CPU-only build in core/CudaHooksStub.cpp.
namespace torchlite::cuda {

bool is_built();
int device_count();  // 0 without a GPU or driver, never an error
const char* version();  // "13.0", or nullptr without CUDA
void init();  // registers the CUDA allocator when a device exists

}  // namespace torchlite::cuda
