// Formula helpers of the matrix products, written with torchlite ops.
#include "autograd/FormulaHelpers.h"
#include "ops/mm.h"
#include "ops/mul.h"
#include "core/TensorFactory.h"
#include "ops/t.h"

namespace torchlite::autograd {

namespace {

// Whether a 2-D operand with these strides is column-major (its transpose is contiguous) rather than row-major.
bool column_major(IntArrayRef strides) { return strides.size() == 2 && strides[0] == 1 && strides[1] != 1; }

Tensor scaled(Tensor t, const Scalar& alpha) {
  if (alpha.tag() != Scalar::Tag::Bool && alpha.to_double() == 1.0) return t;
  return mul(t, scalar_to_tensor(alpha, /*wrapped=*/true));
}

}  // namespace

// mm passes a transposed operand to the GEMM without copying it; the result is computed in the layout of the
// operand it is the gradient of.
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, IntArrayRef mat1_strides, const Scalar& alpha) {
  if (column_major(mat1_strides)) return t(scaled(mm(mat2, t(grad)), alpha));
  return scaled(mm(grad, t(mat2)), alpha);
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef mat2_strides, const Scalar& alpha) {
  if (column_major(mat2_strides)) return t(scaled(mm(t(grad), mat1), alpha));
  return scaled(mm(t(mat1), grad), alpha);
}

}  // namespace torchlite::autograd
