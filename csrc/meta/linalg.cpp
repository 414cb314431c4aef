// Output shapes and PyTorch's argument checks of the torch.linalg kernels (kernels/generic/linalg_lapack.cpp),
// shared by all devices, and the checks the compositions reuse (kernels/Linalg.h).
#include <algorithm>

#include "dispatch/ExactMeta.h"
#include "kernels/Linalg.h"
#include "kernels/_linalg_eigh.h"
#include "kernels/linalg_eig.h"
#include "kernels/_linalg_svd.h"
#include "kernels/geqrf.h"
#include "kernels/linalg_cholesky_ex.h"
#include "kernels/linalg_det.h"
#include "kernels/linalg_inv_ex.h"
#include "kernels/linalg_lstsq.h"
#include "kernels/linalg_lu_factor_ex.h"
#include "kernels/linalg_lu_solve.h"
#include "kernels/linalg_qr.h"
#include "kernels/linalg_slogdet.h"
#include "kernels/linalg_solve_ex.h"
#include "kernels/linalg_solve_triangular.h"
#include "ops/_to_copy.h"
#include "ops/conj.h"
#include "ops/transpose_int.h"

namespace torchlite {

namespace linalg {

void check_matrix(const Tensor& A, std::string_view api, std::string_view name) {
  TL_CHECK(A.dim() >= 2, api, ": The input tensor ", name, " must have at least 2 dimensions.");
}

void check_square(const Tensor& A, std::string_view api, std::string_view name) {
  check_matrix(A, api, name);
  TL_CHECK(A.size(-1) == A.size(-2), api, ": ", name, " must be batches of square matrices, but they are ",
           A.size(-2), " by ", A.size(-1), " matrices");
}

void check_float(const Tensor& A, std::string_view api) {
  ScalarType t = A.scalar_type();
  TL_CHECK(is_floating_type(t), api, ": Expected a floating point or complex tensor as input. Got ",
           scalar_type_name(t));
  TL_CHECK(t == ScalarType::Float || t == ScalarType::Double, api, ": Low precision dtypes not supported. Got ",
           scalar_type_name(t));
}

void check_float_or_complex(const Tensor& A, std::string_view api) {
  ScalarType t = A.scalar_type();
  if (t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble) return;
  check_float(A, api);
}

Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }

Tensor mH(const Tensor& t) { return is_complex_type(t.scalar_type()) ? conj(mT(t)) : mT(t); }

void check_lapack_dtype(const Tensor& A, std::string_view kernel) {
  ScalarType t = A.scalar_type();
  TL_CHECK_KIND(ErrorKind::NotImplemented, t == ScalarType::Float || t == ScalarType::Double ||
                t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble,
                "\"", kernel, "\" not implemented for '", scalar_type_name(t), "'");
}

void check_same_dtype(const Tensor& A, const Tensor& B, std::string_view api, std::string_view a, std::string_view b) {
  TL_CHECK(A.scalar_type() == B.scalar_type(), api, ": Expected ", a, " and ", b,
           " to have the same dtype, but found ", a, " of type ", scalar_type_name(A.scalar_type()), " and ", b,
           " of type ", scalar_type_name(B.scalar_type()), " instead");
  TL_CHECK(A.device() == B.device(), "Expected all tensors to be on the same device, but found at least two devices, ",
           to_string(A.device()), " and ", to_string(B.device()), "!");
}

DimVector batch_sizes(const Tensor& A) {
  DimVector b;
  b.assign(IntArrayRef(A.sizes().data(), static_cast<size_t>(A.dim() - 2)));
  return b;
}

DimVector broadcast_batch(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TL_CHECK(x == y || x == 1 || y == 1, "The size of tensor a (", x, ") must match the size of tensor b (", y,
             ") at non-singleton dimension ", i);
    out[i] = x == 1 ? y : x;
  }
  return out;
}

DimVector with_matrix(IntArrayRef batch, int64_t r, int64_t c) {
  DimVector s;
  s.assign(batch);
  s.push_back(r);
  s.push_back(c);
  return s;
}

DimVector with_vector(IntArrayRef batch, int64_t r) {
  DimVector s;
  s.assign(batch);
  s.push_back(r);
  return s;
}

bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  return B.sizes().equals(IntArrayRef(A.sizes().data(), static_cast<size_t>(A.dim() - 1)));
}

void check_errors(const Tensor& info, std::string_view api, bool is_matrix) {
  Tensor host = info.is_cuda() ? _to_copy(info, std::nullopt, Device()) : info;
  if (!host.is_contiguous()) host = _to_copy(host, std::nullopt, Device());
  const int32_t* p = host.data<int32_t>();
  for (int64_t i = 0; i < host.numel(); ++i) {
    int32_t v = p[i];
    if (v == 0) continue;
    std::string where = is_matrix ? std::string(api) : str(api, ": (Batch element ", i, ")");
    TL_CHECK(v > 0, where, ": Argument ", -v, " has illegal value. Most certainly there is a bug in the "
             "implementation calling the backend library.");
    std::string msg;
    if (api.find("inv") != std::string_view::npos) {
      msg = str(where, ": The diagonal element ", v, " is zero, the inversion could not be completed because the "
                "input matrix is singular.");
    } else if (api.find("solve") != std::string_view::npos) {
      msg = str(where, ": The solver failed because the input matrix is singular.");
    } else if (api.find("cholesky") != std::string_view::npos) {
      msg = str(where, ": The factorization could not be completed because the input is not positive-definite (the "
                "leading minor of order ", v, " is not positive-definite).");
    } else if (api.find("svd") != std::string_view::npos) {
      msg = str(where, ": The algorithm failed to converge because the input matrix is ill-conditioned or has too "
                "many repeated singular values (error code: ", v, ").");
    } else if (api.find("eig") != std::string_view::npos) {
      msg = str(where, ": The algorithm failed to converge because the input matrix is ill-conditioned or has too "
                "many repeated eigenvalues (error code: ", v, ").");
    } else if (api.find("lstsq") != std::string_view::npos) {
      msg = str(where, ": The least squares solution could not be computed because the input matrix does not have "
                "full rank (error code: ", v, ").");
    } else if (api.find("lu_factor") != std::string_view::npos) {
      // PyTorch raises a plain RuntimeError here
      TL_ERROR(where, ": U[", v, ",", v, "] is zero and using it on lu_solve would result in a division by zero. "
               "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
               "linalg.lu_factor_ex(A, pivot)");
    } else {
      msg = str(where, ": LAPACK error code ", v);
    }
    throw_error(ErrorKind::LinAlg, msg);
  }
}

}  // namespace linalg

using namespace linalg;

std::array<TensorMeta, 3> meta::linalg_lu_factor_ex_meta(const Tensor& A, bool pivot, bool check_errors) {
  check_matrix(A, "torch.linalg.lu_factor_ex");
  check_float_or_complex(A, "torch.linalg.lu_factor_ex");
  DimVector batch = batch_sizes(A);
  int64_t k = std::min(A.size(-2), A.size(-1));
  return {exact_meta(DimVector(A.sizes()), A), exact_meta(with_vector(batch, k), A, ScalarType::Int32),
          exact_meta(batch, A, ScalarType::Int32)};
}

TensorMeta meta::linalg_lu_solve_meta(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left,
                                      bool adjoint) {
  check_square(LU, "linalg.lu_solve", "LU");
  check_matrix(B, "linalg.lu_solve", "B");
  check_float_or_complex(LU, "linalg.lu_solve");
  check_same_dtype(LU, B, "linalg.lu_solve", "LU", "B");
  TL_CHECK(pivots.scalar_type() == ScalarType::Int32, "linalg.lu_solve: pivots should be a Tensor of scalar type int32");
  int64_t n = LU.size(-1);
  TL_CHECK(pivots.dim() == LU.dim() - 1 && pivots.size(-1) == n,
           "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
           to_string(pivots.sizes()), " instead");
  if (left) {
    TL_CHECK(B.size(-2) == n, "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (", n, "x", n,
             " and ", B.size(-2), "x", B.size(-1), ")");
  } else {
    TL_CHECK(B.size(-1) == n, "linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B (", n, "x", n,
             " and ", B.size(-2), "x", B.size(-1), ")");
  }
  DimVector batch = broadcast_batch(batch_sizes(LU), batch_sizes(B));
  return exact_meta(with_matrix(batch, B.size(-2), B.size(-1)), B);
}

std::array<TensorMeta, 2> meta::linalg_solve_ex_meta(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  const char* api = "linalg.solve";
  check_square(A, api);
  check_float_or_complex(A, api);
  check_same_dtype(A, B, api);
  bool vector = is_vector_rhs(A, B);
  TL_CHECK(B.dim() >= 1, api, ": The input tensor B must have at least 1 dimensions.");
  int64_t n = A.size(-1);
  DimVector batch;
  if (vector) {
    TL_CHECK(B.size(-1) == n, api, ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B",
             " (", n, "x", n, " and ", B.size(-1), left ? "x1)" : ")");
    batch = broadcast_batch(batch_sizes(A), IntArrayRef(B.sizes().data(), static_cast<size_t>(B.dim() - 1)));
  } else {
    int64_t rows = left ? B.size(-2) : B.size(-1);
    TL_CHECK(rows == n, api, ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (",
             n, "x", n, " and ", B.size(-2), "x", B.size(-1), ")");
    batch = broadcast_batch(batch_sizes(A), batch_sizes(B));
  }
  DimVector result = vector ? with_vector(batch, n) : with_matrix(batch, B.size(-2), B.size(-1));
  return {exact_meta(result, A), exact_meta(batch, A, ScalarType::Int32)};
}

std::array<TensorMeta, 2> meta::linalg_inv_ex_meta(const Tensor& A, bool check_errors) {
  check_square(A, "linalg.inv");
  check_float_or_complex(A, "linalg.inv");
  return {exact_meta(DimVector(A.sizes()), A), exact_meta(batch_sizes(A), A, ScalarType::Int32)};
}

TensorMeta meta::linalg_det_meta(const Tensor& A) {
  check_square(A, "linalg.det");
  check_float_or_complex(A, "linalg.det");
  return exact_meta(batch_sizes(A), A);
}

std::array<TensorMeta, 2> meta::linalg_slogdet_meta(const Tensor& A) {
  check_square(A, "linalg.slogdet");
  check_float_or_complex(A, "linalg.slogdet");
  return {exact_meta(batch_sizes(A), A), exact_meta(batch_sizes(A), A, to_real_type(A.scalar_type()))};
}

std::array<TensorMeta, 2> meta::linalg_cholesky_ex_meta(const Tensor& A, bool upper, bool check_errors) {
  check_square(A, "linalg.cholesky");
  check_float_or_complex(A, "linalg.cholesky");
  return {exact_meta(DimVector(A.sizes()), A), exact_meta(batch_sizes(A), A, ScalarType::Int32)};
}

std::array<TensorMeta, 2> meta::linalg_qr_meta(const Tensor& A, std::string_view mode) {
  TL_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '", mode,
           "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_matrix(A, "linalg.qr");
  check_float_or_complex(A, "linalg.qr");
  DimVector batch = batch_sizes(A);
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  if (mode == "r") return {exact_meta(DimVector{0}, A), exact_meta(with_matrix(batch, k, n), A)};
  int64_t cols = mode == "complete" ? m : k;
  return {exact_meta(with_matrix(batch, m, cols), A), exact_meta(with_matrix(batch, cols, n), A)};
}

std::array<TensorMeta, 2> meta::geqrf_meta(const Tensor& self) {
  TL_CHECK(self.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  check_lapack_dtype(self, "geqrf_cpu");
  std::array<TensorMeta, 2> metas{
      exact_meta(DimVector(self.sizes()), self),
      exact_meta(with_vector(batch_sizes(self), std::min(self.size(-2), self.size(-1))), self)};
  for (TensorMeta& m : metas) m.exact_dtype = false;  // PyTorch casts into an out= of another dtype
  return metas;
}

std::array<TensorMeta, 2> meta::linalg_eig_meta(const Tensor& A) {
  check_square(A, "linalg.eig");
  check_float_or_complex(A, "linalg.eig");
  ScalarType c = to_complex_type(to_real_type(A.scalar_type()));
  return {exact_meta(with_vector(batch_sizes(A), A.size(-1)), A, c), exact_meta(DimVector(A.sizes()), A, c)};
}

std::array<TensorMeta, 2> meta::linalg_eigh_meta(const Tensor& A, std::string_view UPLO, bool compute_v) {
  TL_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u",
           "Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  check_square(A, "linalg.eigh");
  check_float_or_complex(A, "linalg.eigh");
  DimVector values = with_vector(batch_sizes(A), A.size(-1));  // real eigenvalues, also of a complex A
  return {exact_meta(values, A, to_real_type(A.scalar_type())),
          exact_meta(compute_v ? DimVector(A.sizes()) : DimVector{0}, A)};
}

std::array<TensorMeta, 3> meta::linalg_svd_meta(const Tensor& A, bool full_matrices, bool compute_uv,
                                                std::optional<std::string_view> driver) {
  check_matrix(A, "linalg.svd");
  check_float_or_complex(A, "linalg.svd");
  TL_CHECK(!driver.has_value() || A.is_cuda(), "torch.linalg.svd: keyword argument `driver=` is only supported on "
           "CUDA inputs with cuSOLVER backend.");
  DimVector batch = batch_sizes(A);
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  TensorMeta S = exact_meta(with_vector(batch, k), A, to_real_type(A.scalar_type()));
  if (!compute_uv) return {exact_meta(DimVector{0}, A), S, exact_meta(DimVector{0}, A)};
  int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  return {exact_meta(with_matrix(batch, m, ucols), A), S, exact_meta(with_matrix(batch, vrows, n), A)};
}

TensorMeta meta::linalg_solve_triangular_meta(const Tensor& A, const Tensor& B, bool upper, bool left,
                                              bool unitriangular) {
  const char* api = "linalg.solve_triangular";
  check_square(A, api);
  check_matrix(B, api, "B");
  check_float_or_complex(A, api);
  check_same_dtype(A, B, api);
  int64_t n = A.size(-1);
  TL_CHECK((left ? B.size(-2) : B.size(-1)) == n, api, ": Incompatible shapes of A and B for the equation ",
           left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1), ")");
  DimVector batch = broadcast_batch(batch_sizes(A), batch_sizes(B));
  return exact_meta(with_matrix(batch, B.size(-2), B.size(-1)), A);
}

std::array<TensorMeta, 4> meta::linalg_lstsq_meta(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                  std::optional<std::string_view> driver) {
  const char* api = "torch.linalg.lstsq";
  TL_CHECK(A.dim() >= 2, api, ": input must have at least 2 dimensions.");
  TL_CHECK(B.dim() >= 1, api, ": other must have at least 1 dimension.");
  check_float_or_complex(A, api);
  TL_CHECK(A.scalar_type() == B.scalar_type(), api, ": Expected input and other to have the same dtype, but got "
           "input's dtype ", scalar_type_name(A.scalar_type()), " and other's dtype ", scalar_type_name(B.scalar_type()));
  TL_CHECK(A.device() == B.device(), api, ": Expected input and other to be on the same device, but got input on ",
           to_string(A.device()), " and other on ", to_string(B.device()));
  std::string_view d = driver.value_or("gelsy");
  TL_CHECK(d == "gels" || d == "gelsy" || d == "gelsd" || d == "gelss", api,
           ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  bool vector = B.dim() == A.dim() - 1;
  int64_t m = A.size(-2), n = A.size(-1);
  TL_CHECK((vector ? B.size(-1) : B.size(-2)) == m, api,
           vector ? ": input.size(-2) should match other.size(-1)" : ": input.size(-2) should match other.size(-2)");
  DimVector b_batch = vector ? DimVector(IntArrayRef(B.sizes().data(), static_cast<size_t>(B.dim() - 1)))
                             : batch_sizes(B);
  DimVector batch = broadcast_batch(batch_sizes(A), b_batch);
  int64_t k = vector ? 1 : B.size(-1);
  DimVector solution = vector ? with_vector(batch, n) : with_matrix(batch, n, k);
  DimVector residuals{0};
  if (m > n && d != "gelsy") residuals = vector ? batch : with_vector(batch, k);
  DimVector rank = d == "gels" ? DimVector{0} : batch;
  DimVector sv = (d == "gelsd" || d == "gelss") ? with_vector(batch, std::min(m, n)) : DimVector{0};
  const ScalarType real = to_real_type(A.scalar_type());
  std::array<TensorMeta, 4> metas{exact_meta(solution, A), exact_meta(residuals, A, real),
                                  exact_meta(rank, A, ScalarType::Int64), exact_meta(sv, A, real)};
  // PyTorch casts lstsq's results into an out= of another dtype, except the residuals
  for (size_t i = 0; i < metas.size(); ++i) metas[i].exact_dtype = i == 1;
  return metas;
}

}  // namespace torchlite
