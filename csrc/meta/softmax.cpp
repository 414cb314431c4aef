// Output shapes and checks of softmax's and log_softmax's kernels and of their backward ops, shared by all
// devices.
#include "dispatch/ExactMeta.h"
#include "kernels/_log_softmax.h"
#include "kernels/_log_softmax_backward_data.h"
#include "kernels/_softmax.h"
#include "kernels/_softmax_backward_data.h"

namespace torchlite {

namespace {

bool is_reduced_float(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

}  // namespace

TensorMeta meta::softmax_meta(const Tensor& self, int64_t dim, bool half_to_float) {
  self.wrap_dim(dim);  // range check
  TL_CHECK(!half_to_float || is_reduced_float(self.scalar_type()),
           "conversion is supported for Half type only");
  return exact_meta(DimVector(self.sizes()), self, half_to_float ? ScalarType::Float : self.scalar_type());
}

// The gradient has the softmax input's dtype: grad_output's, or float16/bfloat16 from a float32 grad_output
// when the forward used half_to_float.
TensorMeta meta::softmax_backward_meta(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                       std::optional<ScalarType> input_dtype) {
  TL_CHECK(grad_output.sizes().equals(output.sizes()), "softmax backward: grad_output of shape ",
           to_string(grad_output.sizes()), " does not match output of shape ", to_string(output.sizes()));
  TL_CHECK(grad_output.scalar_type() == output.scalar_type(), "expected scalar type ",
           scalar_type_name(grad_output.scalar_type()), " but found ", scalar_type_name(output.scalar_type()));
  TL_CHECK(grad_output.device() == output.device(), "Expected all tensors to be on the same device, but found at "
           "least two devices, ", to_string(grad_output.device()), " and ", to_string(output.device()), "!");
  grad_output.wrap_dim(dim);
  ScalarType t = grad_output.scalar_type();
  if (input_dtype && t == ScalarType::Float && is_reduced_float(*input_dtype)) t = *input_dtype;
  return exact_meta(DimVector(grad_output.sizes()), grad_output, t);
}

}  // namespace torchlite
