// nn.functional ops written with torchlite ops (autograd and every device come from them).
#include "core/Error.h"
#include "kernels/linear.h"
#include "ops/add_Tensor.h"
#include "ops/addmm.h"
#include "ops/matmul.h"
#include "ops/t.h"

namespace torchlite {

Tensor composite::linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  // A matrix input with a bias: one addmm (BLAS adds the bias), as PyTorch does.
  if (input.dim() == 2 && weight.dim() == 2 && bias && bias->defined())
    return torchlite::addmm(*bias, input, torchlite::t(weight));
  Tensor out = torchlite::matmul(input, weight.dim() == 2 ? torchlite::t(weight) : weight);
  return bias && bias->defined() ? torchlite::add(out, *bias) : out;
}

}  // namespace torchlite
