// embedding: the meta rule and one kernel for every device, the rows index_select picks (its bounds check
// included), written into the output.
#include "dispatch/Meta.h"
#include "kernels/embedding.h"
#include "ops/copy.h"
#include "ops/index_select.h"
#include "ops/reshape.h"

namespace torchlite {

TensorMeta meta::embedding_meta(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                                bool scale_grad_by_freq, bool sparse) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  (void)sparse;  // only the backward differs (_embedding_sparse_backward)
  TL_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  TL_CHECK(indices.scalar_type() == ScalarType::Int64 || indices.scalar_type() == ScalarType::Int32,
           "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got ",
           scalar_type_name(indices.scalar_type()), " instead (while checking arguments for embedding)");
  TL_CHECK(indices.device() == weight.device(), "Expected all tensors to be on the same device, but found at least "
           "two devices, ", weight.device(), " and ", indices.device(), "!");
  TensorMeta m;
  m.sizes = DimVector(indices.sizes());
  m.sizes.push_back(weight.size(1));
  m.dtype = weight.scalar_type();
  m.device = weight.device();
  m.exact_dtype = true;
  return m;
}

void kernels::embedding_out_any_device(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                                       bool scale_grad_by_freq, bool sparse, const Tensor& out) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  (void)sparse;
  const DimVector flat{-1};
  const Tensor rows = index_select(weight, 0, reshape(indices, flat.ref()));
  copy_(out, reshape(rows, out.sizes()));
}

}  // namespace torchlite
