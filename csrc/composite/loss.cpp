// The losses written with other ops: nll_loss (and its nd/2d names) over nll_loss_forward, and
// cross_entropy_loss as log_softmax + nll_loss for class indices (label smoothing adds the uniform
// distribution's term) or a weighted sum for class probabilities, as PyTorch computes them.
#include "core/ScalarType.h"
#include "composite/Numbers.h"
#include "core/TensorFactory.h"
#include "kernels/cross_entropy_loss.h"
#include "kernels/nll_loss.h"
#include "kernels/nll_loss2d.h"
#include "kernels/nll_loss_nd.h"
#include "ops/_cross_entropy_forward.h"
#include "ops/div_Tensor.h"
#include "ops/eq_Tensor.h"
#include "ops/gather.h"
#include "ops/log_softmax_int.h"
#include "ops/logical_not.h"
#include "ops/masked_fill_Scalar.h"
#include "ops/masked_select.h"
#include "ops/mul_Tensor.h"
#include "ops/neg.h"
#include "ops/add_Tensor.h"
#include "ops/nll_loss_forward.h"
#include "ops/nll_loss_nd.h"
#include "ops/sum.h"
#include "ops/sum_dim_IntList.h"
#include "ops/to_dtype.h"
#include "ops/view.h"

namespace torchlite {

namespace {

using loss::kNone;
using loss::kSum;
using loss::reduce;


// weight shaped to broadcast along the class dim of self: (C) for a (C) input, else (1, C, 1, ...).
Tensor class_view(const Tensor& weight, const Tensor& self) {
  DimVector shape(static_cast<size_t>(self.dim()), 1);
  shape[self.dim() == 1 ? 0 : 1] = weight.numel();
  return torchlite::view(weight, shape.ref());
}

// Class probabilities: -sum over classes of weight * target * log_softmax, averaged over the batch elements.
Tensor probability_loss(const Tensor& logp, const Tensor& target, const std::optional<Tensor>& weight,
                        int64_t reduction, int64_t class_dim) {
  Tensor prod = torchlite::mul(logp, target);
  if (weight) prod = torchlite::mul(prod, class_view(*weight, logp));
  const int64_t dims[] = {class_dim};
  return reduce(torchlite::neg(torchlite::sum(prod, IntArrayRef(dims, 1), false)), reduction);
}

}  // namespace

Tensor composite::nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                           int64_t reduction, int64_t ignore_index) {
  return std::get<0>(torchlite::nll_loss_forward(self, target, weight, reduction, ignore_index));
}

Tensor composite::nll_loss_nd(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                              int64_t reduction, int64_t ignore_index) {
  return std::get<0>(torchlite::nll_loss_forward(self, target, weight, reduction, ignore_index));
}

Tensor composite::nll_loss2d(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                             int64_t reduction, int64_t ignore_index) {
  TL_CHECK(self.dim() == 4, "only batches of spatial inputs supported (4D tensors), but got input of dimension: ",
           self.dim());
  TL_CHECK(target.dim() == 3, "only batches of spatial targets supported (3D tensors) but got targets of dimension: ",
           target.dim());
  return std::get<0>(torchlite::nll_loss_forward(self, target, weight, reduction, ignore_index));
}

Tensor composite::cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                     int64_t reduction, int64_t ignore_index, double label_smoothing) {
  TL_CHECK_VALUE(reduction >= 0 && reduction <= 2, "cross_entropy: reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
                 reduction);
  TL_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
           "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  TL_CHECK_VALUE(self.dim() >= 1, "Expected 1 or more dimensions (got ", self.dim(), ")");
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t n_classes = self.size(class_dim);
  if (is_floating_type(target.scalar_type())) {  // class probabilities
    TL_CHECK(self.sizes().equals(target.sizes()), "Expected input and target to have the same shape for class "
             "probabilities, got input of shape ", to_string(self.sizes()), " and target of shape ",
             to_string(target.sizes()));
    TL_CHECK(ignore_index < 0, "ignore_index is not supported for floating point target");
    Tensor t = target;
    if (label_smoothing > 0.0)
      t = torchlite::add(torchlite::mul(target, number(1.0 - label_smoothing)),
                         number(label_smoothing / static_cast<double>(n_classes)), Scalar(int64_t(1)));
    return probability_loss(torchlite::log_softmax(self, class_dim, std::nullopt), t, weight, reduction, class_dim);
  }
  if (label_smoothing <= 0.0)  // the fused pair, whose backward writes no dense intermediate
    return std::get<0>(torchlite::_cross_entropy_forward(self, target, weight, reduction, ignore_index));
  const Tensor logp = torchlite::log_softmax(self, class_dim, std::nullopt);
  Tensor nll = torchlite::nll_loss_nd(logp, target, weight, reduction, ignore_index);
  // The uniform distribution's term: -sum over classes of weight * log_softmax, zero at ignored targets.
  const int64_t dims[] = {class_dim};
  Tensor per_class = weight ? torchlite::mul(logp, class_view(*weight, logp)) : logp;
  Tensor smooth = torchlite::neg(torchlite::sum(per_class, IntArrayRef(dims, 1), false));
  const Tensor ignored = torchlite::eq(target, scalar_to_tensor(Scalar(ignore_index), /*wrapped=*/true));
  smooth = torchlite::masked_fill(smooth, ignored, Scalar(0.0));
  Tensor smooth_loss;
  if (reduction == kNone) {
    smooth_loss = smooth;
  } else if (reduction == kSum) {
    smooth_loss = torchlite::sum(smooth);
  } else {  // the mean over the weights of the targets taken, as nll_loss's
    const Tensor kept = torchlite::logical_not(ignored);
    Tensor denom = weight ? torchlite::sum(torchlite::gather(*weight, 0, torchlite::masked_select(torchlite::to(target, ScalarType::Int64), kept)))
                          : torchlite::sum(kept);
    smooth_loss = torchlite::div(torchlite::sum(smooth), denom);
  }
  return torchlite::add(torchlite::mul(nll, number(1.0 - label_smoothing)),
                        torchlite::mul(smooth_loss, number(label_smoothing / static_cast<double>(n_classes))),
                        Scalar(int64_t(1)));
}

}  // namespace torchlite
