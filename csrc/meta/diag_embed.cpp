// diag_embed's output shape, shared by all devices.
#include "dispatch/Meta.h"
#include "kernels/diag_embed.h"

namespace torchlite {

TensorMeta meta::diag_embed_meta(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t nd = self.dim() + 1;
  int64_t d1 = wrap_dim(dim1, nd), d2 = wrap_dim(dim2, nd);
  TL_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t n = std::abs(offset) + self.size(-1);
  TensorMeta m;
  m.sizes.assign(IntArrayRef(self.sizes().data(), self.sizes().size() - 1));
  m.sizes.insert(static_cast<size_t>(std::min(d1, d2)), n);
  m.sizes.insert(static_cast<size_t>(std::max(d1, d2)), n);
  m.dtype = self.scalar_type();
  m.device = self.device();
  return m;
}

}  // namespace torchlite
