// _embedding_sparse_backward: nn.Embedding(sparse=True)'s weight gradient as a sparse COO tensor (sparse/Coo.h).
#include "core/Error.h"
#include "core/TensorFactory.h"
#include "kernels/_embedding_sparse_backward.h"
#include "ops/_to_copy.h"
#include "ops/clone.h"
#include "ops/index_select.h"
#include "ops/ne.h"
#include "ops/nonzero.h"
#include "ops/reshape.h"
#include "sparse/Coo.h"

namespace torchlite {

Tensor composite::_embedding_sparse_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                             int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "_embedding_sparse_backward";
  // PyTorch's rule (and message): a frequency-scaled gradient is dense only.
  TL_CHECK(!scale_grad_by_freq, "embedding_backward: scale_grad_by_freq not supported with sparse gradients");
  TL_CHECK(grad_output.dim() >= 1, op, ": expected grad_output with an embedding dim, got a 0-dim tensor");
  TL_CHECK(num_weights >= 0, op, ": num_weights must be non-negative, got ", num_weights);
  const int64_t dim = grad_output.size(-1);
  TL_CHECK(grad_output.numel() == indices.numel() * dim, op, ": grad_output of ", grad_output.numel(),
           " elements does not hold ", indices.numel(), " rows of ", dim);
  const DimVector flat{-1}, rows{-1, dim}, one_row{1, -1};
  Tensor idx = reshape(indices, flat.ref());
  if (idx.scalar_type() != ScalarType::Int64) idx = _to_copy(idx, ScalarType::Int64);
  Tensor values = reshape(grad_output, rows.ref());
  bool fresh = false;  // whether values is already a tensor of its own (else it may view grad_output)
  if (padding_idx >= 0 && padding_idx < num_weights) {  // no gradient for the padding row
    const Tensor keep = reshape(nonzero(ne(idx, scalar_to_tensor(Scalar(padding_idx), true))), flat.ref());
    idx = index_select(idx, 0, keep);
    values = index_select(values, 0, keep);
    fresh = true;
  }
  if (!fresh) values = clone(values);
  if (idx.is_same(indices) || idx.is_view()) idx = clone(idx);
  const DimVector size{num_weights, dim};
  return sparse::make_coo(op, reshape(idx, one_row.ref()), values, size.ref(), /*coalesced=*/false,
                          /*check_bounds=*/false);
}

}  // namespace torchlite
