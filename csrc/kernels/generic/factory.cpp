// Device-generic factory kernels (dispatch: {any: ...}).
#include <limits>

#include "core/TensorFactory.h"
#include "kernels/empty.h"
#include "kernels/empty_like.h"
#include "kernels/empty_strided.h"

namespace torchlite {

Tensor kernels::empty_any(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return empty_tensor(size, dtype.value_or(default_dtype()), device.value_or(Device()));
}

Tensor kernels::empty_strided_any(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                                  std::optional<Device> device) {
  TL_CHECK(size.size() == stride.size(), "empty_strided: dimensionality of sizes (", size.size(),
           ") must match dimensionality of strides (", stride.size(), ")");
  check_sizes_nonnegative("empty_strided", size);
  // The storage must hold element 1 + sum (size - 1) * stride; refuse what cannot be addressed.
  bool ok = true, empty = false;
  for (int64_t s : size) empty = empty || s == 0;
  for (int64_t s : stride) ok = ok && (empty || s >= 0);
  int64_t nbytes = 0;
  const ScalarType t = dtype.value_or(default_dtype());
  ok = ok && storage_nbytes_needed(size, stride, 0, element_size(t), &nbytes);
  TL_CHECK(ok, "empty_strided: Storage size calculation overflowed with sizes=", size, " and strides=", stride);
  return empty_strided_tensor(size, stride, t, device.value_or(Device()));
}

// PyTorch's preserve_format: a dense tensor lends its strides (a transposed
// input gives a transposed result); anything else gives a contiguous one.
Tensor kernels::empty_like_any(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  ScalarType t = dtype.value_or(self.scalar_type());
  Device dev = device.value_or(self.device());
  if (!self.is_contiguous() && self.numel() > 0 && is_non_overlapping_and_dense(self))
    return empty_strided_tensor(self.sizes(), self.strides(), t, dev);
  return empty_tensor(self.sizes(), t, dev);
}

}  // namespace torchlite
