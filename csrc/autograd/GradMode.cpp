#include "autograd/GradMode.h"

namespace torchlite::autograd {

ModeState& mode_state() {
  thread_local ModeState state;
  return state;
}

}  // namespace torchlite::autograd
