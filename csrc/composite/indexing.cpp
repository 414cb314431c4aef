// Composite indexing ops: take_along_dim (gather after broadcasting), argwhere
// and where(condition) (nonzero).
#include <algorithm>

#include "core/TensorFactory.h"
#include "kernels/argwhere.h"
#include "kernels/take_along_dim.h"
#include "kernels/where.h"
#include "ops/expand.h"
#include "ops/gather.h"
#include "ops/nonzero.h"
#include "ops/remainder.h"
#include "ops/reshape.h"
#include "ops/unbind.h"
#include "ops/unsqueeze.h"

namespace torchlite {

Tensor composite::take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  if (!dim.has_value()) {  // gather from the flattened self (which also takes int32 indices)
    const int64_t flat = -1;
    return gather(reshape(self, IntArrayRef(flat)), 0, reshape(indices, IntArrayRef(flat)));
  }
  TL_CHECK(indices.scalar_type() == ScalarType::Int64, "torch.take_along_dim(): dtype of indices should be Long but got ",
           scalar_type_name(indices.scalar_type()));
  TL_CHECK(self.dim() == indices.dim(), "torch.take_along_dim(): input and indices should have the same number of "
           "dimensions, but got ", self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  int64_t d = wrap_dim(*dim, std::max<int64_t>(self.dim(), 1));
  // Broadcast every dim but d.
  DimVector self_shape(self.sizes()), index_shape(indices.sizes());
  for (int64_t k = 0; k < self.dim(); ++k) {
    if (k == d) continue;
    int64_t a = self.sizes()[k], b = indices.sizes()[k];
    TL_CHECK(a == b || a == 1 || b == 1, "The size of tensor a (", a, ") must match the size of tensor b (", b,
             ") at non-singleton dimension ", k);
    self_shape[k] = index_shape[k] = a == 1 ? b : a;
  }
  Tensor src = expand(self, self_shape.ref());
  Tensor idx = expand(indices, index_shape.ref());
  // PyTorch wraps indices along dim modulo its size (index 5 of 3 reads 2, -4 reads 2).
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  if (n > 0 && idx.numel() > 0) idx = remainder(idx, scalar_to_tensor(Scalar(n), /*wrapped=*/true));
  return gather(src, d, idx);
}

Tensor composite::argwhere(const Tensor& self) { return nonzero(self); }

std::vector<Tensor> composite::where(const Tensor& condition) {
  // nonzero(as_tuple=True): one 1-D tensor per dim (a 0-dim condition counts as 1-dim).
  Tensor nz = nonzero(condition.dim() == 0 ? unsqueeze(condition, 0) : condition);
  return unbind(nz, 1);
}

}  // namespace torchlite
