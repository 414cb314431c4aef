#pragma once
// Thread-local switches read by the generated call path.
//  - grad mode (no_grad / enable_grad): whether the autograd stage records;
//  - below-autograd: set while a Node's formula or a kernel runs ops that must
//    not record, independent of grad mode;
//  - inference mode: core's inference_mode_flag() (core/TensorImpl.h); tensors made under it are inference tensors.
namespace torchlite::autograd {

struct ModeState {
  bool grad_enabled = true;
  bool below_autograd = false;
};

ModeState& mode_state();  // thread-local

inline bool is_grad_enabled() { return mode_state().grad_enabled; }
inline void set_grad_enabled(bool v) { mode_state().grad_enabled = v; }

// Sets grad mode for a scope (no_grad, enable_grad, the engine's create_graph).
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : prev_(mode_state().grad_enabled) { mode_state().grad_enabled = enabled; }
  ~GradModeGuard() { mode_state().grad_enabled = prev_; }

 private:
  bool prev_;
};

class BelowAutogradGuard {
 public:
  BelowAutogradGuard() : prev_(mode_state().below_autograd) { mode_state().below_autograd = true; }
  ~BelowAutogradGuard() { mode_state().below_autograd = prev_; }

 private:
  bool prev_;
};

}  // namespace torchlite::autograd
