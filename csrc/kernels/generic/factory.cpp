// Device-generic factory kernels (dispatch: {any: ...}).
#include "core/TensorFactory.h"
#include "kernels/empty.h"

namespace torchlite {

Tensor kernels::empty_any(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return empty_tensor(size, dtype.value_or(default_dtype()), device.value_or(Device()));
}

}  // namespace torchlite
