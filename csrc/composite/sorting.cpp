// Composite sorting ops: the `stable` signatures and argsort, over the (always stable) sort kernel.
#include "kernels/argsort.h"
#include "kernels/argsort_stable.h"
#include "kernels/sort_stable.h"
#include "ops/sort.h"

namespace torchlite {

std::tuple<Tensor, Tensor> composite::sort_stable(const Tensor& self, std::optional<bool> stable, int64_t dim,
                                                  bool descending) {
  return torchlite::sort(self, dim, descending);
}

Tensor composite::argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(torchlite::sort(self, dim, descending));
}

Tensor composite::argsort_stable(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(torchlite::sort(self, dim, descending));
}

}  // namespace torchlite
