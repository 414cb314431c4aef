// Formula helpers of torchlite.special's ops (issue 18).
#include <string>

#include "autograd/FormulaHelpers.h"
#include "core/Error.h"

namespace torchlite::autograd {

Tensor not_implemented(std::string_view what) {
  throw_error(ErrorKind::NotImplemented, str("the derivative for '", what, "' is not implemented."));
}

}  // namespace torchlite::autograd
