// copy_'s meta: src broadcasts to self's shape, from any device.
#include "dispatch/Meta.h"
#include "kernels/copy.h"

namespace torchlite {

// copy_ broadcasts src to self's shape from any device.
TensorMeta meta::copy_meta(const Tensor& self, const Tensor& src, bool non_blocking) {
  static constexpr OpInfo kCopy{"copy", "", "copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor"};
  (void)non_blocking;
  return meta_same_as_self(kCopy, self, {&src}, self.scalar_type(), /*same_device=*/false);
}

}  // namespace torchlite
