// Composite linear algebra: matmul and the vector products written with mm, bmm
// and addmm (csrc/kernels/cpu/mm.cpp), with PyTorch's checks and messages.
#include <algorithm>

#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/addbmm.h"
#include "kernels/addmv.h"
#include "kernels/diag.h"
#include "kernels/dot.h"
#include "kernels/ger.h"
#include "kernels/matmul.h"
#include "kernels/mv.h"
#include "kernels/outer.h"
#include "kernels/trace.h"
#include "kernels/vdot.h"
#include "ops/addmm.h"
#include "ops/bmm.h"
#include "ops/clone.h"
#include "ops/contiguous.h"
#include "ops/diag_embed.h"
#include "ops/diagonal.h"
#include "ops/conj.h"
#include "ops/dot.h"
#include "ops/expand.h"
#include "ops/mm.h"
#include "ops/mul_Tensor.h"
#include "ops/mv.h"
#include "ops/outer.h"
#include "ops/permute.h"
#include "ops/reshape.h"
#include "ops/squeeze_dim.h"
#include "ops/sum.h"
#include "ops/t.h"
#include "ops/transpose_int.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"

namespace torchlite {

namespace {

Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }

// The (m, k) matrix whose product with (k, 1) vec is mat @ vec, as one GEMM.
Tensor matrix_times_vector(const Tensor& mat, const Tensor& vec) {
  return view(mm(mat, unsqueeze(vec, 1)), IntArrayRef(mat.size(0)));
}

void check_mv(const Tensor& input, int64_t input_dim, const Tensor& mat, const Tensor& vec) {
  TL_CHECK(mat.dim() == 2 && vec.dim() == 1 && input_dim <= 1, "vector + matrix @ vector expected, got ", input_dim,
           ", ", mat.dim(), ", ", vec.dim());
  int64_t input_numel = input.defined() ? input.numel() : mat.size(0);
  int64_t input_size = input.defined() ? (input.dim() > 0 ? input.size(0) : 1) : mat.size(0);
  TL_CHECK(mat.size(1) == vec.size(0) && (mat.size(0) == input_numel || input_numel == 1), "size mismatch, got input (",
           input_size, "), mat (", mat.size(0), "x", mat.size(1), "), vec (", vec.size(0), ")");
  ScalarType in = input.defined() ? input.scalar_type() : vec.scalar_type();
  TL_CHECK(in == mat.scalar_type() && mat.scalar_type() == vec.scalar_type(),
           "addmv input tensors must have the same dtype, but got ", scalar_type_name(in), ", ",
           scalar_type_name(mat.scalar_type()), ", and ", scalar_type_name(vec.scalar_type()));
}

// PyTorch's should_fold: whether matmul can fold the larger operand's batch dims
// into the rows of one mm/mv without copying it.
bool should_fold(const Tensor& tensor1, const Tensor& tensor2) {
  bool larger = tensor1.dim() >= tensor2.dim();
  Tensor t1 = larger ? tensor1 : mT(tensor2);
  int64_t dim_t1 = t1.dim(), dim_t2 = larger ? tensor2.dim() : tensor1.dim();
  if (!(dim_t1 >= 3 && dim_t2 <= 2)) return false;
  if (tensor1.dim() == 2) return false;  // folding 2-D @ 3-D would need a transposed copy of the result
  if (t1.numel() == 0) return true;
  for (int64_t i = 0; i < dim_t1 - 2; ++i) {
    if (t1.stride(i) != t1.stride(i + 1) * t1.size(i + 1)) return false;
  }
  return true;
}

}  // namespace

// ------------------------------------------------------------------ vector products

Tensor composite::dot(const Tensor& self, const Tensor& tensor) {
  TL_CHECK(self.dim() == 1 && tensor.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ", tensor.dim(),
           "D tensors");
  TL_CHECK(self.scalar_type() == tensor.scalar_type(), "dot : expected both vectors to have same dtype, but found ",
           scalar_type_name(self.scalar_type()), " and ", scalar_type_name(tensor.scalar_type()));
  TL_CHECK(self.numel() == tensor.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
           "] and src [", tensor.numel(), "] to have the same number of elements, but got ", self.numel(), " and ",
           tensor.numel(), " elements respectively");
  if (self.scalar_type() == ScalarType::Bool) throw_dtype_not_implemented("dot", self.scalar_type());
  return view(mm(unsqueeze(self, 0), unsqueeze(tensor, 1)), IntArrayRef());
}

Tensor composite::vdot(const Tensor& self, const Tensor& other) {
  return torchlite::dot(torchlite::conj(self), other);  // conj: self itself for real dtypes
}

Tensor composite::mv(const Tensor& self, const Tensor& vec) {
  check_mv(Tensor(), 1, self, vec);
  if (self.scalar_type() == ScalarType::Bool) throw_dtype_not_implemented("mv", self.scalar_type());
  return matrix_times_vector(self, vec);
}

Tensor composite::addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                        const Scalar& alpha) {
  check_mv(self, self.dim(), mat, vec);
  Tensor column = self.dim() == 1 ? unsqueeze(self, 1) : self;  // (m) or (1) -> (m, 1) or (1, 1); 0-dim broadcasts
  return view(addmm(column, mat, unsqueeze(vec, 1), beta, alpha), IntArrayRef(mat.size(0)));
}

Tensor composite::outer(const Tensor& self, const Tensor& vec2) {
  TL_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  TL_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return mul(unsqueeze(self, 1), vec2);
}

Tensor composite::ger(const Tensor& self, const Tensor& vec2) { return torchlite::outer(self, vec2); }

// ------------------------------------------------------------------ addbmm

Tensor composite::addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                         const Scalar& alpha) {
  TL_CHECK(self.scalar_type() == batch2.scalar_type(), "self and mat2 must have the same dtype, but got ",
           scalar_type_name(self.scalar_type()), " and ", scalar_type_name(batch2.scalar_type()));
  TL_CHECK(batch1.scalar_type() == batch2.scalar_type(), "mat1 and mat2 must have the same dtype, but got ",
           scalar_type_name(batch1.scalar_type()), " and ", scalar_type_name(batch2.scalar_type()));
  int64_t sizes[2] = {batch1.size(1), batch2.size(2)};  // IndexError for fewer than 3 dims, as PyTorch
  expand(self, IntArrayRef(sizes, 2));
  TL_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TL_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  TL_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got ",
           batch1.size(0), " and ", batch2.size(0));
  TL_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (", batch1.size(1), "x",
           batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  // sum_b batch1[b] @ batch2[b] = [batch1[0] ... batch1[B-1]] (m x Bk) @ [batch2[0]; ...; batch2[B-1]] (Bk x n).
  int64_t b = batch1.size(0), m = batch1.size(1), k = batch1.size(2), n = batch2.size(2);
  Tensor lhs = reshape(permute(batch1, IntArrayRef({1, 0, 2})), IntArrayRef({m, b * k}));
  Tensor rhs = reshape(batch2, IntArrayRef({b * k, n}));
  return addmm(self, lhs, rhs, beta, alpha);
}

// ------------------------------------------------------------------ matmul

Tensor composite::matmul(const Tensor& tensor1, const Tensor& tensor2) {
  int64_t dim1 = tensor1.dim(), dim2 = tensor2.dim();
  TL_CHECK(dim1 != 0 && dim2 != 0, "both arguments to matmul need to be at least 1D, but they are ", dim1, "D and ",
           dim2, "D");
  if (dim1 == 1 && dim2 == 1) return torchlite::dot(tensor1, tensor2);
  if (dim1 == 2 && dim2 == 1) return torchlite::mv(tensor1, tensor2);
  if (dim1 == 1 && dim2 == 2) return squeeze(mm(unsqueeze(tensor1, 0), tensor2), 0);
  if (dim1 == 2 && dim2 == 2) return mm(tensor1, tensor2);

  if (should_fold(tensor1, tensor2)) {
    // The larger operand (transposed when it is the second) folds into the rows of one mm or mv.
    bool transposed = dim2 > dim1;
    Tensor t1 = transposed ? mT(tensor2) : tensor1;
    Tensor t2 = !transposed ? tensor2 : (dim1 == 2 ? t(tensor1) : tensor1);
    IntArrayRef sizes1 = t1.sizes();
    DimVector output_shape(IntArrayRef(sizes1.data(), sizes1.size() - 1));
    int64_t folded = compute_numel(output_shape.ref());
    Tensor t1_folded = reshape(t1, IntArrayRef({folded, sizes1.back()}));
    if (t2.dim() == 2) {
      output_shape.push_back(t2.size(1));
      Tensor out = view(mm(t1_folded, t2), output_shape.ref());
      return transposed ? contiguous(mT(out)) : out;
    }
    return view(torchlite::mv(t1_folded, t2), output_shape.ref());
  }

  // Batched: broadcast the batch dims, flatten them, one bmm.
  int64_t n = dim1 > 1 ? tensor1.size(-2) : 1;
  int64_t m1 = tensor1.size(-1);
  IntArrayRef batch1(tensor1.sizes().data(), static_cast<size_t>(std::max<int64_t>(dim1 - 2, 0)));
  int64_t m2 = dim2 > 1 ? tensor2.size(-2) : tensor2.size(0);
  int64_t p = dim2 > 1 ? tensor2.size(-1) : 1;
  IntArrayRef batch2(tensor2.sizes().data(), static_cast<size_t>(std::max<int64_t>(dim2 - 2, 0)));
  DimVector output_shape = broadcast_sizes(batch1, batch2);
  int64_t batch = compute_numel(output_shape.ref());

  DimVector size1(output_shape);
  size1.push_back(n);
  size1.push_back(m1);
  Tensor t1 = reshape(expand(tensor1, size1.ref()), IntArrayRef({batch, n, m1}));
  bool vector_rhs = dim2 == 1;
  DimVector size2(output_shape);
  size2.push_back(m2);
  if (!vector_rhs) size2.push_back(p);
  Tensor t2 = vector_rhs ? unsqueeze(reshape(expand(tensor2, size2.ref()), IntArrayRef({batch, m2})), 2)
                         : reshape(expand(tensor2, size2.ref()), IntArrayRef({batch, m2, p}));
  if (dim1 > 1) output_shape.push_back(n);
  if (dim2 > 1) output_shape.push_back(p);
  Tensor out = bmm(t1, t2);
  return view(vector_rhs ? squeeze(out, -1) : out, output_shape.ref());
}

}  // namespace torchlite

namespace torchlite {

// ------------------------------------------------------------------ diagonals

Tensor composite::diag(const Tensor& self, int64_t diagonal) {
  TL_CHECK(self.dim() == 1 || self.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ", self.dim(), "D");
  if (self.dim() == 1) return diag_embed(self, diagonal, 0, 1);
  return clone(torchlite::diagonal(self, diagonal, 0, 1));
}

Tensor composite::trace(const Tensor& self) {
  TL_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  if (self.scalar_type() == ScalarType::Bool) throw_dtype_not_implemented("trace", self.scalar_type());
  return sum(torchlite::diagonal(self, 0, 0, 1));
}

}  // namespace torchlite
