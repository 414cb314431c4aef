#pragma once
// A per-op table of device kernels: the third stage of the generated call path.
//
// The hot path is one load and one null check. The test modes rewire every table once, when they are
// switched (KernelRegistry below), never per call:
// - TORCHLITE_EMULATE_CUDA=N (core/CudaEmulation.cpp), at import: a CUDA device runs the op's CUDA kernel
//   compiled for the host, or, for an op whose CUDA kernel has no host compilation (the generated pointwise
//   kernels), its CPU kernel; first checking that the tensors' device is the current one (the device guard,
//   core/DeviceGuard.h). An op without a CUDA kernel still fails.
// - torchlite._C._set_gpu_kernels_on_host(True) (TORCHLITE_GPU_KERNELS_ON_HOST=1 in tests/conftest.py): CPU
//   tensors run the op's hand-written CUDA kernel compiled for the host (kernels/gpu/Backend.h) instead of its
//   CPU kernel, where it has one, so the CUDA kernels' index math is checked on machines without a GPU.
#include "core/Device.h"
#include "dispatch/OpInfo.h"

namespace torchlite {

using AnyKernel = void (*)();  // a kernel pointer of any signature (converted back by KernelTable<Fn>)

// What a table holds, whatever its kernels' signature: what the test modes rewire.
struct KernelSlots {
  AnyKernel fns[kNumDeviceTypes];  // what each device runs now (null: none, or the slow path below)
  AnyKernel cpu;                   // the CPU kernel as built
  AnyKernel on_host;               // the CUDA kernel's source compiled for the host
  AnyKernel emulated;              // what an emulated CUDA device runs (null unless emulating)
  bool has_cuda;                   // the schema gives a CUDA kernel (whether or not this build compiled it)
};

// Records a table so that the test modes reach it; every KernelTable registers itself when constructed.
void register_kernel_slots(KernelSlots* slots);
// The slow path of KernelTable::get, for a device whose slot is null: the emulated kernel (after the device
// check), else NotImplementedError naming the op, the device and the devices that have a kernel.
AnyKernel missing_kernel(const OpInfo& op, Device device, const KernelSlots& slots);

// Test modes (see the top of this file). set_gpu_kernels_on_host returns the previous setting.
bool set_gpu_kernels_on_host(bool on);
void emulate_cuda_kernels();

template <typename Fn>
class KernelTable {
 public:
  KernelTable(Fn cpu, Fn cuda, Fn on_host, bool has_cuda)
      : slots_{{}, erase(cpu), erase(on_host), nullptr, has_cuda} {
    slots_.fns[static_cast<int>(DeviceType::CPU)] = erase(cpu);
    slots_.fns[static_cast<int>(DeviceType::CUDA)] = erase(cuda);
    register_kernel_slots(&slots_);
  }
  KernelTable(const KernelTable&) = delete;
  KernelTable& operator=(const KernelTable&) = delete;

  Fn get(const OpInfo& op, Device device) const {
    AnyKernel f = slots_.fns[static_cast<int>(device.type)];
    if (__builtin_expect(f == nullptr, 0)) f = missing_kernel(op, device, slots_);
    return reinterpret_cast<Fn>(f);
  }

 private:
  static AnyKernel erase(Fn f) { return reinterpret_cast<AnyKernel>(f); }
  KernelSlots slots_;
};

}  // namespace torchlite

// The CUDA slot of a kernel table: the kernel when the build has CUDA, else empty.
#ifdef TORCHLITE_WITH_CUDA
#define TL_CUDA_KERNEL(fn) (fn)
#else
#define TL_CUDA_KERNEL(fn) nullptr
#endif
