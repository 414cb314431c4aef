// Output shapes of sort, topk and the value-selecting reductions (kthvalue, median, mode), shared by all devices.
#include "dispatch/Meta.h"
#include "kernels/Reduce.h"
#include "kernels/_unique2.h"
#include "kernels/kthvalue.h"
#include "kernels/median.h"
#include "kernels/median_dim.h"
#include "kernels/mode.h"
#include "kernels/nanmedian.h"
#include "kernels/nanmedian_dim.h"
#include "kernels/sort.h"
#include "kernels/topk.h"
#include "kernels/unique_dim.h"

namespace torchlite {

using reduce::dim_size;

namespace {

DimVector reduced(const Tensor& self, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, self.dim());
  DimVector sizes;
  for (int64_t k = 0; k < self.dim(); ++k) {
    if (k != d)
      sizes.push_back(self.size(k));
    else if (keepdim)
      sizes.push_back(1);
  }
  return sizes;
}

}  // namespace

std::array<TensorMeta, 2> meta::sort_meta(const Tensor& self, int64_t dim, bool descending) {
  wrap_dim(dim, self.dim());
  DimVector sizes;
  sizes.assign(self.sizes());
  return reduce::values_indices(self, std::move(sizes));
}

std::array<TensorMeta, 2> meta::topk_meta(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  int64_t d = wrap_dim(dim, self.dim());
  TL_CHECK(k >= 0 && k <= dim_size(self, dim), "selected index k out of range");
  DimVector sizes;
  sizes.assign(self.sizes());
  if (self.dim() > 0) sizes[static_cast<size_t>(d)] = k;
  return reduce::values_indices(self, std::move(sizes));
}

std::array<TensorMeta, 2> meta::select_meta(const Tensor& self, int64_t dim, bool keepdim) {
  return reduce::values_indices(self, reduced(self, dim, keepdim));
}

std::array<TensorMeta, 2> meta::select_meta(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  return reduce::values_indices(self, reduced(self, dim, keepdim));
}

}  // namespace torchlite
