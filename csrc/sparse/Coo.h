#pragma once
// Sparse COO tensors (PyTorch's torch.sparse_coo layout), as far as sparse gradients need them: nn.Embedding
// and EmbeddingBag with sparse=True give their weight a sparse gradient, which autograd accumulates and
// optim.SparseAdam, SGD and Adagrad consume.
//
// A sparse tensor is a TensorImpl whose geometry is the dense shape (all strides 0) and whose storage holds a
// single zero element; the storage's release context is the tensor's CooParts (indices and values), which is
// how is_sparse() recognizes it without a field in TensorImpl. Ops do not read sparse tensors: the Python entry
// points refuse them (NotImplementedError naming the op, python/ArgParser.cpp), autograd gives them only to
// leaf accumulators and densifies them for every other node (autograd/Engine.cpp), and the handful of sparse
// operations below and in torchlite/_sparse.py work on the parts. A stray read would see zeros, never memory
// out of bounds.
#include "core/Tensor.h"
#include "core/TensorImpl.h"

namespace torchlite::sparse {

struct CooParts {
  Tensor indices;  // int64 (sparse_dim, nnz)
  Tensor values;   // (nnz, *dense sizes), the tensor's dtype and device
  bool coalesced = false;  // indices sorted and unique
  Tensor zero;     // the one zero element the carrier's storage points at
};

bool is_sparse(const TensorImpl& t);
inline bool is_sparse(const Tensor& t) { return t.defined() && is_sparse(*t.impl()); }

// The parts of a sparse tensor (RuntimeError naming `op` for a dense one).
CooParts& parts(const Tensor& t, const char* op = "sparse");

// A sparse tensor of `size` from indices (sparse_dim, nnz) and values (nnz, *size[sparse_dim:]). Checks the
// shapes, dtypes and devices; the indices' bounds only when `check_bounds` (it costs a reduction).
Tensor make_coo(const char* op, const Tensor& indices, const Tensor& values, IntArrayRef size, bool coalesced,
                bool check_bounds);

// The dense tensor: zeros with each value added at its index (duplicates summed).
Tensor to_dense(const Tensor& t);
// a + b for any mix of sparse and dense of one shape: sparse + sparse is sparse (the parts concatenated,
// uncoalesced); with a dense operand the result is dense.
Tensor add(const Tensor& a, const Tensor& b);
// dense += sparse, in place.
void add_to_dense_(const Tensor& dense, const Tensor& sparse);
// A sparse tensor with copies of t's parts.
Tensor clone(const Tensor& t);

}  // namespace torchlite::sparse
