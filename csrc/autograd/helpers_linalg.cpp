// Formula helpers of the matrix products, written with torchlite ops.
#include "autograd/FormulaHelpers.h"
#include "ops/mm.h"
#include "ops/t.h"

namespace torchlite::autograd {

// mm passes a transposed operand to the GEMM without copying it.
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2) { return mm(grad, t(mat2)); }

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1) { return mm(t(mat1), grad); }

}  // namespace torchlite::autograd
