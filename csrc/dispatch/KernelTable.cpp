// The registry of kernel tables, their slow path, and the test modes that rewire them
// (dispatch/KernelTable.h).
#include "dispatch/KernelTable.h"

#include <mutex>
#include <string>
#include <vector>

#include "core/CudaHooks.h"
#include "core/Error.h"

namespace torchlite {
namespace {

// Every table, registered during static initialization (one per op and a few hand-written ones).
std::vector<KernelSlots*>& registry() {
  static std::vector<KernelSlots*> tables;
  return tables;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

bool g_gpu_kernels_on_host = false;

}  // namespace

void register_kernel_slots(KernelSlots* slots) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().push_back(slots);
}

AnyKernel missing_kernel(const OpInfo& op, Device device, const KernelSlots& slots) {
  if (device.is_cuda() && slots.emulated != nullptr) {
    // What a GPU needs: the tensors' device is the current one (index -1 is a factory's "cuda": the current).
    const int current = cuda::current_device();
    TL_CHECK(device.index < 0 || device.index == current, op_name(op), ": its CUDA kernel would run on cuda:",
             current, " with its tensors on ", to_string(device), " (no device guard)");
    return slots.emulated;
  }
  std::string have;
  for (int i = 0; i < kNumDeviceTypes; ++i) {
    if (slots.fns[i] == nullptr) continue;
    if (!have.empty()) have += ", ";
    have += device_type_name(static_cast<DeviceType>(i));
  }
  throw_error(ErrorKind::NotImplemented,
              str("Could not run '", op_name(op), "' with arguments from the '", device_type_name(device.type),
                  "' device: it has kernels for ", have.empty() ? "no device" : have, " only"));
}

bool set_gpu_kernels_on_host(bool on) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const bool previous = g_gpu_kernels_on_host;
  g_gpu_kernels_on_host = on;
  for (KernelSlots* s : registry()) {
    if (s->on_host != nullptr) s->fns[static_cast<int>(DeviceType::CPU)] = on ? s->on_host : s->cpu;
  }
  return previous;
}

void emulate_cuda_kernels() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (KernelSlots* s : registry()) {
    if (!s->has_cuda) continue;
    // The slot stays null so that each call takes the slow path, which checks the device first.
    s->emulated = s->on_host != nullptr ? s->on_host : s->cpu;
    s->fns[static_cast<int>(DeviceType::CUDA)] = nullptr;
  }
}

}  // namespace torchlite
