#pragma once
// What the rest of torchlite asks of the CUDA runtime. A CUDA build implements
// these in kernels/cuda/CudaHooks.cu; a CPU-only build in core/CudaHooksStub.cpp.
#include "core/DeviceCachingAllocator.h"

namespace torchlite::cuda {

bool is_built();
int device_count();  // 0 without a GPU or driver, never an error
const char* version();  // "13.0", or nullptr without CUDA
void init();  // registers the CUDA allocator when a device exists

// Without a device these raise "CUDA is not available: ..." (a RuntimeError); empty_cache does nothing.
int current_device();
void set_device(int device);
void synchronize(int device);  // -1: the current device
DeviceMemoryStats memory_stats(int device);
void reset_peak_memory_stats(int device);
void empty_cache();
[[noreturn]] void throw_not_available();

}  // namespace torchlite::cuda
