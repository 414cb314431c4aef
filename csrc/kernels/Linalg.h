#pragma once
// Shared by the torch.linalg kernels (kernels/generic/linalg_lapack.cpp), their metas (meta/linalg.cpp) and
// the compositions (composite/linalg_namespace.cpp): PyTorch's argument checks and its LinAlgError messages.
#include <string>
#include <string_view>

#include "core/Error.h"
#include "core/Tensor.h"
#include "dispatch/Meta.h"

namespace torchlite::linalg {

// "linalg.inv: The input tensor A must have at least 2 dimensions."
void check_matrix(const Tensor& A, std::string_view api, std::string_view name = "A");
// A batch of square matrices: "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices".
void check_square(const Tensor& A, std::string_view api, std::string_view name = "A");
// float32 or float64 (the real LAPACK dtypes): "linalg.inv: Expected a floating point or complex tensor as
// input. Got Long", "linalg.inv: Low precision dtypes not supported. Got Half".
void check_float(const Tensor& A, std::string_view api);
// check_float, or complex64/complex128 (the kernels with complex LAPACK calls: LU, solve, inv, det, eig).
void check_float_or_complex(const Tensor& A, std::string_view api);
// The dtypes of the LAPACK kernels PyTorch names by its CPU kernel (geqrf, ormqr): NotImplementedError
// "\"geqrf_cpu\" not implemented for 'Long'" for any other.
void check_lapack_dtype(const Tensor& A, std::string_view kernel);
// Same dtype: "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type
// Double instead".
void check_same_dtype(const Tensor& A, const Tensor& B, std::string_view api, std::string_view a = "A",
                      std::string_view b = "B");

// The transpose of the last two dims, and the conjugate transpose (the transpose of a real matrix): the
// compositions' and the derivative formulas' mT and mH.
Tensor mT(const Tensor& t);
Tensor mH(const Tensor& t);

// The batch dims of a (..., r, c) tensor.
DimVector batch_sizes(const Tensor& A);
// Broadcasts two batch shapes (PyTorch's message on a mismatch).
DimVector broadcast_batch(IntArrayRef a, IntArrayRef b);
// batch + {r, c} (or + {r}).
DimVector with_matrix(IntArrayRef batch, int64_t r, int64_t c);
DimVector with_vector(IntArrayRef batch, int64_t r);

// Whether linalg.solve's B is a (batch of) vector(s): B.dim() == 1, or B is A's shape without its last dim.
bool is_vector_rhs(const Tensor& A, const Tensor& B);

// Raises torchlite.linalg.LinAlgError (a RuntimeError) for the first nonzero LAPACK info of `info` (int32,
// any device), with PyTorch's text for `api` ("linalg.inv", "torch.linalg.solve", "linalg.cholesky", ...).
// `is_matrix`: one matrix, so no "(Batch element i)" part.
void check_errors(const Tensor& info, std::string_view api, bool is_matrix);

}  // namespace torchlite::linalg
