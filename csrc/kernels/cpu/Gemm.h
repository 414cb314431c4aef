#pragma once
// The one matrix-product engine of the CPU kernels (mm, bmm, addmm, baddbmm):
// scipy-openblas32's gemm (sgemm, dgemm, cgemm, zgemm) for float32/float64/complex64/complex128, a plain
// loop (accumulating in float for half/bfloat16, int64 for integers) otherwise.
#include "core/Scalar.h"
#include "core/Tensor.h"

namespace torchlite::cpu {

// For each batch index i: c[i] = alpha * a[i] @ b[i] + beta * c[i], where a is
// (batch, m, k), b is (batch, k, n), both of c's dtype with any strides (a batch
// stride of 0 included), and c is a contiguous (batch, m, n) tensor. beta == 0
// ignores c's contents (NaN included). An operand whose matrices are row- or
// column-major is passed to BLAS as it is (with the transpose flag); any other is
// copied once. `op` names the op in errors.
void gemm_batched(const char* op, const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha,
                  const Scalar& beta);

// The same for one matrix product: a (m, k), b (k, n), c contiguous (m, n).
void gemm(const char* op, const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta);

}  // namespace torchlite::cpu
