#pragma once
// Autocast (torchlite.autocast / torchlite.amp): inside a region enabled for a device type, the ops whose
// schema entry has `autocast:` cast their floating Tensor inputs first, by the entry's policy for the
// device of those inputs:
// - Lower: to the region's lower-precision dtype (bfloat16 on the CPU, float16 on CUDA by default);
//   float64 inputs stay as they are (PyTorch's rule);
// - Fp32: float16 and bfloat16 inputs to float32;
// - Promote: every floating input to the widest floating dtype among them.
// The generated call path (stage 0, before autograd) asks target(); when it names a dtype, the op calls itself
// again on the cast inputs with autocast excluded (ExcludeGuard), so the casts are ordinary recorded ops and
// gradients flow back to the inputs in their own dtypes. State is per thread, as PyTorch's.
#include <initializer_list>
#include <optional>

#include "core/Device.h"
#include "core/ScalarType.h"
#include "core/Tensor.h"

namespace torchlite::autocast {

enum class Policy : int8_t { None, Lower, Fp32, Promote };

struct State {
  bool enabled[kNumDeviceTypes] = {false, false};
  ScalarType dtype[kNumDeviceTypes] = {ScalarType::BFloat16, ScalarType::Half};
  int excluded = 0;  // > 0 inside an op's own call on cast inputs
  int nesting = 0;   // autocast regions entered (Python's autocast_increment_nesting)
};

State& state();  // this thread's

inline bool active() {
  const State& s = state();
  return (s.enabled[0] || s.enabled[1]) && s.excluded == 0;
}

struct ExcludeGuard {
  ExcludeGuard() { ++state().excluded; }
  ~ExcludeGuard() { --state().excluded; }
  ExcludeGuard(const ExcludeGuard&) = delete;
  ExcludeGuard& operator=(const ExcludeGuard&) = delete;
};

inline const Tensor* ptr(const Tensor& t) { return &t; }
inline const Tensor* ptr(const std::optional<Tensor>& t) { return t && t->defined() ? &*t : nullptr; }

// The dtype the op's inputs are cast to, or nullopt when autocast leaves them (region not enabled for their
// device, or nothing to change). policies: {cpu, cuda}.
std::optional<ScalarType> target(std::initializer_list<Policy> policies, std::initializer_list<const Tensor*> args);

// t cast to dtype when it is floating (and, for a lower-precision dtype, not float64), else t.
Tensor cast(const Tensor& t, ScalarType dtype);
std::optional<Tensor> cast(const std::optional<Tensor>& t, ScalarType dtype);

}  // namespace torchlite::autocast
