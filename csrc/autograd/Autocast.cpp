// Autocast's state and casting rules (see Autocast.h).
#include "autograd/Autocast.h"

#include "core/Promotion.h"
#include "ops/_to_copy.h"

namespace torchlite::autocast {

State& state() {
  static thread_local State s;
  return s;
}

namespace {

// Whether cast(t, to) changes t: floating inputs other than float64 are eligible (PyTorch's rule; float64 is
// either the widest dtype of a Promote or left alone).
bool changes(const Tensor& t, ScalarType to) {
  const ScalarType s = t.scalar_type();
  return is_floating_type(s) && s != to && s != ScalarType::Double;
}

}  // namespace

std::optional<ScalarType> target(std::initializer_list<Policy> policies, std::initializer_list<const Tensor*> args) {
  const State& s = state();
  const Tensor* first = nullptr;
  for (const Tensor* t : args) {
    if (t && t->defined() && is_floating_type(t->scalar_type())) {
      first = t;
      break;
    }
  }
  if (!first) return std::nullopt;
  const int dev = static_cast<int>(first->device().type);
  if (!s.enabled[dev]) return std::nullopt;
  const Policy policy = policies.begin()[dev];
  std::optional<ScalarType> to;
  switch (policy) {
    case Policy::None: return std::nullopt;
    case Policy::Lower: to = s.dtype[dev]; break;
    case Policy::Fp32: to = ScalarType::Float; break;
    case Policy::Promote: {
      ScalarType widest = first->scalar_type();
      for (const Tensor* t : args) {
        if (t && t->defined() && is_floating_type(t->scalar_type())) widest = promote_types(widest, t->scalar_type());
      }
      to = widest;
      break;
    }
  }
  for (const Tensor* t : args) {
    if (!t || !t->defined()) continue;
    if (changes(*t, *to)) return to;
  }
  return std::nullopt;
}

Tensor cast(const Tensor& t, ScalarType dtype) {
  if (!t.defined() || !changes(t, dtype)) return t;
  return _to_copy(t, dtype);
}

std::optional<Tensor> cast(const std::optional<Tensor>& t, ScalarType dtype) {
  if (!t) return t;
  return cast(*t, dtype);
}

}  // namespace torchlite::autocast
