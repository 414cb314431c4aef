// Composites over searchsorted: its Scalar overload, bucketize and isin.
#include "composite/Numbers.h"
#include "core/Error.h"
#include "core/TensorFactory.h"
#include "kernels/bucketize_Scalar.h"
#include "kernels/bucketize_Tensor.h"
#include "kernels/isin_Scalar_Tensor.h"
#include "kernels/isin_Tensor_Scalar.h"
#include "kernels/isin_Tensor_Tensor.h"
#include "kernels/searchsorted_Scalar.h"
#include "ops/clamp.h"
#include "ops/eq_Tensor.h"
#include "ops/ne_Tensor.h"
#include "ops/isnan.h"
#include "ops/logical_not.h"
#include "ops/narrow.h"
#include "ops/reshape.h"
#include "ops/searchsorted_Tensor.h"
#include "ops/sort.h"
#include "ops/sum.h"
#include "ops/take.h"
#include "ops/to_device.h"
#include "ops/zeros.h"

namespace torchlite {

namespace {

// A number as a 0-dim tensor of its own dtype on `device` (not a wrapped number: it is searched, not promoted).
Tensor value_tensor(const Scalar& s, Device device) {
  Tensor t = scalar_to_tensor(s, /*wrapped=*/false);
  return device.is_cpu() ? t : torchlite::to(t, device, std::nullopt);
}

}  // namespace

Tensor composite::searchsorted_Scalar(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                                      std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  TL_CHECK(sorted_sequence.dim() == 1, "torch.searchsorted(): input value can be a scalar only when boundaries "
           "tensor dimension is 1, but we got boundaries tensor dim(", sorted_sequence.dim(),
           ") and input value's dim(0) numel(1)");
  return torchlite::searchsorted(sorted_sequence, value_tensor(self, sorted_sequence.device()), out_int32, right,
                                 side, sorter);
}

Tensor composite::bucketize_Tensor(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  TL_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return torchlite::searchsorted(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

Tensor composite::bucketize_Scalar(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return composite::bucketize_Tensor(value_tensor(self, boundaries.device()), boundaries, out_int32, right);
}

// Sorts the test elements, finds where each element would go, and checks whether that place holds it.
Tensor composite::isin_Tensor_Tensor(const Tensor& elements, const Tensor& test_elements, bool assume_unique,
                                     bool invert) {
  (void)assume_unique;
  if (test_elements.numel() == 0) {
    Tensor none = torchlite::zeros(elements.sizes(), ScalarType::Bool, elements.device());
    return invert ? torchlite::logical_not(none) : none;
  }
  Tensor sorted = std::get<0>(torchlite::sort(torchlite::reshape(test_elements, IntArrayRef(int64_t(-1)))));
  if (is_floating_type(sorted.scalar_type())) {
    // NaN (sorted last) equals nothing, and the binary search must not walk into it.
    int64_t nans = item(torchlite::sum(torchlite::isnan(sorted))).to<int64_t>();
    if (nans == sorted.numel()) {
      Tensor none = torchlite::zeros(elements.sizes(), ScalarType::Bool, elements.device());
      return invert ? torchlite::logical_not(none) : none;
    }
    sorted = torchlite::narrow(sorted, 0, 0, sorted.numel() - nans);
  }
  Tensor pos = torchlite::searchsorted(sorted, elements, false, false, std::nullopt, std::nullopt);
  pos = torchlite::clamp(pos, std::nullopt, Scalar(sorted.numel() - 1));
  Tensor found = torchlite::take(sorted, pos);
  return invert ? torchlite::ne(found, elements) : torchlite::eq(found, elements);
}

Tensor composite::isin_Tensor_Scalar(const Tensor& elements, const Scalar& test_element, bool assume_unique,
                                     bool invert) {
  // PyTorch's eq / ne with the number (which takes elements' dtype, as a Python number does)
  return invert ? torchlite::ne(elements, number(test_element)) : torchlite::eq(elements, number(test_element));
}

Tensor composite::isin_Scalar_Tensor(const Scalar& element, const Tensor& test_elements, bool assume_unique,
                                     bool invert) {
  return composite::isin_Tensor_Tensor(value_tensor(element, test_elements.device()), test_elements, assume_unique,
                                       invert);
}

}  // namespace torchlite
