// Output shapes of the scans with indices (cummax, cummin), shared by all devices.
#include "dispatch/Meta.h"
#include "kernels/Reduce.h"
#include "kernels/cummax.h"
#include "kernels/cummin.h"
#include "kernels/cumprod.h"
#include "kernels/cumsum.h"

namespace torchlite {

std::array<TensorMeta, 2> meta::scan_indices_meta(const Tensor& self, int64_t dim) {
  wrap_dim(dim, self.dim());  // range check
  return reduce::values_indices(self, DimVector(self.sizes()));
}

}  // namespace torchlite
