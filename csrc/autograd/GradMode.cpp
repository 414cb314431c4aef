#include "autograd/GradMode.h"

namespace torchlite::autograd {

ModeState& mode_state() {
  thread_local ModeState state;
  return state;
}

}  // namespace torchlite::autograd

#include "autograd/Stage.h"
#include "core/Error.h"

namespace torchlite::autograd {

void throw_not_implemented(const OpInfo& op) {
  throw_error(ErrorKind::NotImplemented,
              str("autograd for ", op.name, op.overload[0] ? "." : "", op.overload,
                  " is not implemented yet: its derivatives are validated but not generated"));
}

}  // namespace torchlite::autograd
