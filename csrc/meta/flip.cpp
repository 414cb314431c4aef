// flip's output: self's shape and dtype, after PyTorch's checks of dims.
#include <vector>

#include "dispatch/ExactMeta.h"
#include "kernels/flip.h"

namespace torchlite {

TensorMeta meta::flip_meta(const Tensor& self, IntArrayRef dims) {
  // A 0-dim tensor has one dim to name (0 or -1), and nothing to flip.
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  for (int64_t dim : dims) {
    const int64_t d = self.wrap_dim(dim);
    TL_CHECK(!seen[d], "dim ", d, " appears multiple times in the list of dims");
    seen[d] = true;
  }
  return exact_meta(DimVector(self.sizes()), self);
}

}  // namespace torchlite
