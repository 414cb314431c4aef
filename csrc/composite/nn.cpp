// nn.functional ops written with torchlite ops (autograd and every device come from them).
#include "core/Error.h"
#include "core/TensorFactory.h"
#include "core/ScalarType.h"
#include "kernels/dropout.h"
#include "kernels/linear.h"
#include "ops/add_Tensor.h"
#include "ops/addmm.h"
#include "ops/bernoulli_p.h"
#include "ops/div_Tensor.h"
#include "ops/empty_like.h"
#include "ops/matmul.h"
#include "ops/mul_Tensor.h"
#include "ops/t.h"
#include "ops/zeros_like.h"

namespace torchlite {

Tensor composite::linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  // A matrix input with a bias: one addmm (BLAS adds the bias), as PyTorch does.
  if (input.dim() == 2 && weight.dim() == 2 && bias && bias->defined())
    return torchlite::addmm(*bias, input, torchlite::t(weight));
  Tensor out = torchlite::matmul(input, weight.dim() == 2 ? torchlite::t(weight) : weight);
  return bias && bias->defined() ? torchlite::add(out, *bias) : out;
}

Tensor composite::dropout(const Tensor& input, double p, bool train) {
  TL_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (!train || p == 0 || input.numel() == 0) return input;
  TL_CHECK(is_floating_type(input.scalar_type()), "result type Float can't be cast to the desired output type ",
           scalar_type_name(input.scalar_type()));
  if (p == 1) return torchlite::mul(input, torchlite::zeros_like(input));  // zeros, with a zero gradient
  // Keep each element with probability 1 - p (a 0/1 mask of input's dtype), scaled so the mean is kept.
  Tensor mask = torchlite::bernoulli(torchlite::empty_like(input), 1 - p);
  return torchlite::div(torchlite::mul(input, mask), scalar_to_tensor(Scalar(1 - p), /*wrapped=*/true));
}

}  // namespace torchlite
