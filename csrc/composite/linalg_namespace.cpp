// torch.linalg's compositions and the old top-level names (torch.det, torch.svd, torch.cholesky_solve...),
// written with the LAPACK kernels (kernels/generic/linalg_lapack.cpp) and other torchlite ops, so autograd
// flows through them. PyTorch's checks and messages; real dtypes (float32, float64).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "autograd/GradMode.h"
#include "autograd/Stage.h"
#include "composite/Numbers.h"
#include "core/TensorFactory.h"
#include "kernels/Linalg.h"
#include "kernels/cholesky.h"
#include "kernels/cholesky_inverse.h"
#include "kernels/cholesky_solve.h"
#include "kernels/cross.h"
#include "kernels/det.h"
#include "kernels/inverse.h"
#include "kernels/linalg_cholesky.h"
#include "kernels/linalg_cond.h"
#include "kernels/linalg_cross.h"
#include "kernels/linalg_diagonal.h"
#include "kernels/linalg_eigh.h"
#include "kernels/linalg_eigvals.h"
#include "kernels/linalg_eigvalsh.h"
#include "kernels/linalg_householder_product.h"
#include "kernels/linalg_inv.h"
#include "kernels/orgqr.h"
#include "kernels/ormqr.h"
#include "kernels/linalg_lu.h"
#include "kernels/linalg_lu_factor.h"
#include "kernels/linalg_matrix_exp.h"
#include "kernels/linalg_matrix_norm.h"
#include "kernels/linalg_matrix_norm_str_ord.h"
#include "kernels/linalg_norm_ord_str.h"
#include "kernels/linalg_cond_p_str.h"
#include "kernels/linalg_pinv_atol_rtol_float.h"
#include "kernels/linalg_pinv_atol_rtol_tensor.h"
#include "kernels/linalg_matrix_rank_atol_rtol_float.h"
#include "kernels/linalg_matrix_rank_atol_rtol_tensor.h"
#include "ops/conj.h"
#include "ops/linalg_matrix_rank.h"
#include "ops/linalg_pinv.h"
#include "ops/cholesky_solve.h"
#include "kernels/linalg_matrix_power.h"
#include "kernels/linalg_matrix_rank.h"
#include "kernels/linalg_multi_dot.h"
#include "kernels/linalg_norm.h"
#include "kernels/linalg_pinv.h"
#include "kernels/linalg_solve.h"
#include "kernels/linalg_svd.h"
#include "kernels/linalg_svdvals.h"
#include "kernels/linalg_tensorinv.h"
#include "kernels/linalg_tensorsolve.h"
#include "kernels/linalg_vander.h"
#include "kernels/linalg_vecdot.h"
#include "kernels/linalg_vector_norm.h"
#include "kernels/logdet.h"
#include "kernels/lu_solve.h"
#include "kernels/lu_unpack.h"
#include "kernels/matrix_exp.h"
#include "kernels/matrix_power.h"
#include "kernels/orgqr.h"
#include "kernels/ormqr.h"
#include "kernels/pinverse.h"
#include "kernels/qr.h"
#include "kernels/slogdet.h"
#include "kernels/svd.h"
#include "kernels/triangular_solve.h"
#include "ops/_linalg_eigh.h"
#include "ops/_linalg_svd.h"
#include "ops/_to_copy.h"
#include "ops/abs.h"
#include "ops/add.h"
#include "ops/amax.h"
#include "ops/amin.h"
#include "ops/cat.h"
#include "ops/clone.h"
#include "ops/contiguous.h"
#include "ops/cumprod.h"
#include "ops/diagonal.h"
#include "ops/div.h"
#include "ops/expand.h"
#include "ops/eye.h"
#include "ops/gt.h"
#include "ops/maximum.h"
#include "ops/to.h"
#include "ops/linalg_cholesky.h"
#include "ops/linalg_cholesky_ex.h"
#include "ops/linalg_cross.h"
#include "ops/linalg_det.h"
#include "ops/linalg_eigh.h"
#include "ops/linalg_eigvalsh.h"
#include "ops/linalg_householder_product.h"
#include "ops/linalg_inv.h"
#include "ops/linalg_inv_ex.h"
#include "ops/linalg_lu_factor_ex.h"
#include "ops/linalg_lu_solve.h"
#include "ops/linalg_matrix_exp.h"
#include "ops/linalg_matrix_norm.h"
#include "ops/linalg_eig.h"
#include "ops/linalg_matrix_norm_str_ord.h"
#include "ops/linalg_matrix_power.h"
#include "ops/linalg_matrix_rank_atol_rtol_float.h"
#include "ops/linalg_pinv_atol_rtol_float.h"
#include "ops/ones_like.h"
#include "ops/full.h"
#include "ops/full_like.h"
#include "ops/zeros_like.h"
#include "ops/linalg_qr.h"
#include "ops/linalg_slogdet.h"
#include "ops/linalg_solve.h"
#include "ops/linalg_solve_ex.h"
#include "ops/linalg_solve_triangular.h"
#include "ops/linalg_svdvals.h"
#include "ops/linalg_vector_norm.h"
#include "ops/log.h"
#include "ops/lu_unpack.h"
#include "ops/matmul.h"
#include "ops/movedim_intlist.h"
#include "ops/mul.h"
#include "ops/narrow.h"
#include "ops/neg.h"
#include "ops/norm.h"
#include "ops/reciprocal.h"
#include "ops/reshape.h"
#include "ops/select_int.h"
#include "ops/squeeze_dim.h"
#include "ops/stack.h"
#include "ops/sub.h"
#include "ops/sum.h"
#include "ops/sum_dim_IntList.h"
#include "ops/transpose_int.h"
#include "ops/tril.h"
#include "ops/triu.h"
#include "ops/unsqueeze.h"
#include "ops/where_self.h"
#include "ops/zeros.h"

namespace torchlite {

using namespace linalg;

namespace {


// Whether a composite's result must be differentiable: A requires grad and grad mode is on, or A carries a
// forward-mode tangent.
bool wants_grad(const Tensor& A) {
  return (autograd::is_grad_enabled() && A.requires_grad()) || autograd::has_tangent(A);
}

// The identity of n, broadcast to A's batch dims, of A's dtype and device.
Tensor batch_eye(const Tensor& A, int64_t n) {
  Tensor I = eye(n, std::nullopt, A.scalar_type(), A.device());
  return expand(I, with_matrix(batch_sizes(A), n, n));
}

std::string ord_text(const Scalar& ord) {
  double v = ord.to_double();
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v)) return std::to_string(static_cast<int64_t>(v));
  return str(v);
}

double host_max(const Tensor& t) {
  Tensor h = contiguous(_to_copy(t, ScalarType::Double, Device()));
  double m = 0;
  const double* p = h.data<double>();
  for (int64_t i = 0; i < h.numel(); ++i) m = std::max(m, p[i]);
  return m;
}

}  // namespace

// ------------------------------------------------------------------ LU
std::tuple<Tensor, Tensor> composite::linalg_lu_factor(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = linalg_lu_factor_ex(A, pivot, false);
  check_errors(info, "torch.linalg.lu_factor", A.dim() == 2);
  return {LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor> composite::lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots,
                                                        bool unpack_data, bool unpack_pivots) {
  check_matrix(LU_data, "torch.lu_unpack", "LU_data");
  TL_CHECK(LU_pivots.scalar_type() == ScalarType::Int32, "torch.lu_unpack: LU_pivots is expected to be a contiguous "
           "tensor of torch.int32 dtype. Note: this function is intended to be used with the output produced by "
           "torch.linalg.lu_factor");
  int64_t m = LU_data.size(-2), n = LU_data.size(-1), k = std::min(m, n);
  TL_CHECK(LU_pivots.dim() == LU_data.dim() - 1 && LU_pivots.size(-1) == k, "torch.lu_unpack: LU_pivots has shape ",
           to_string(LU_pivots.sizes()), ", expected the batch dims of LU_data and min(m, n) = ", k);
  Tensor L, U, P;
  DimVector batch = batch_sizes(LU_data);
  if (unpack_data) {
    Tensor Ik = eye(m, k, LU_data.scalar_type(), LU_data.device());
    L = add(tril(narrow(LU_data, -1, 0, k), -1), Ik);
    U = triu(narrow(LU_data, -2, 0, k));
  } else {
    L = zeros(DimVector{0}, LU_data.scalar_type(), LU_data.device());
    U = zeros(DimVector{0}, LU_data.scalar_type(), LU_data.device());
  }
  if (unpack_pivots) {
    // A = P L U where LAPACK swapped row i with row pivots[i] - 1, in order
    Tensor piv = contiguous(_to_copy(LU_pivots, ScalarType::Int32, Device()));
    Tensor p = zeros(with_matrix(batch, m, m), ScalarType::Double, Device());
    const int32_t* pp = piv.data<int32_t>();
    double* out = p.data<double>();
    int64_t nb = m == 0 ? 0 : p.numel() / (m * m);
    std::vector<int64_t> perm(static_cast<size_t>(m));
    for (int64_t b = 0; b < nb; ++b) {
      for (int64_t i = 0; i < m; ++i) perm[static_cast<size_t>(i)] = i;
      for (int64_t i = 0; i < k; ++i) {
        int64_t j = pp[b * k + i] - 1;
        TL_CHECK(j >= i && j < m, "torch.lu_unpack: the pivots must be in [i + 1, m] (LAPACK's 1-based order), got ",
                 j + 1, " at ", i);
        std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
      }
      for (int64_t i = 0; i < m; ++i) out[b * m * m + perm[static_cast<size_t>(i)] * m + i] = 1.0;
    }
    P = _to_copy(p, LU_data.scalar_type(), LU_data.device());
  } else {
    P = zeros(DimVector{0}, LU_data.scalar_type(), LU_data.device());
  }
  return {P, L, U};
}

std::tuple<Tensor, Tensor, Tensor> composite::linalg_lu(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = linalg_lu_factor_ex(A, pivot, false);
  return torchlite::lu_unpack(LU, pivots, true, true);
}

Tensor composite::lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots) {
  return linalg_lu_solve(LU_data, LU_pivots, self, true, false);
}

// ------------------------------------------------------------------ solve, inv, det
Tensor composite::linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  auto [X, info] = linalg_solve_ex(A, B, left, false);
  check_errors(info, "torch.linalg.solve", info.dim() == 0);
  return X;
}

Tensor composite::linalg_inv(const Tensor& A) {
  auto [inverse, info] = linalg_inv_ex(A, false);
  check_errors(info, "linalg.inv", A.dim() == 2);
  return inverse;
}

Tensor composite::inverse(const Tensor& self) { return torchlite::linalg_inv(self); }

Tensor composite::det(const Tensor& self) { return linalg_det(self); }

std::tuple<Tensor, Tensor> composite::slogdet(const Tensor& self) { return linalg_slogdet(self); }

Tensor composite::logdet(const Tensor& self) {
  auto [sign, logabsdet] = linalg_slogdet(self);
  return add(logabsdet, log(sign));  // NaN for a negative determinant, -inf for zero
}

// ------------------------------------------------------------------ Cholesky
Tensor composite::linalg_cholesky(const Tensor& A, bool upper) {
  auto [L, info] = linalg_cholesky_ex(A, upper, false);
  check_errors(info, "linalg.cholesky", A.dim() == 2);
  return L;
}

Tensor composite::cholesky(const Tensor& self, bool upper) { return torchlite::linalg_cholesky(self, upper); }

Tensor composite::cholesky_solve(const Tensor& self, const Tensor& input2, bool upper) {
  check_matrix(self, "cholesky_solve", "B");
  check_square(input2, "cholesky_solve");
  check_same_dtype(self, input2, "cholesky_solve", "B", "A");
  // A = L L^H: X = L^-H (L^-1 B); A = U^H U: X = U^-1 (U^-H B)
  const Tensor& F = input2;
  Tensor y = linalg_solve_triangular(upper ? mH(F) : F, self, /*upper=*/false, /*left=*/true, false);
  return linalg_solve_triangular(upper ? F : mH(F), y, /*upper=*/true, /*left=*/true, false);
}

Tensor composite::cholesky_inverse(const Tensor& self, bool upper) {
  check_square(self, "cholesky_inverse", "input");
  return torchlite::cholesky_solve(batch_eye(self, self.size(-1)), self, upper);
}

// ------------------------------------------------------------------ QR, eigh, SVD
std::tuple<Tensor, Tensor> composite::qr(const Tensor& self, bool some) {
  return linalg_qr(self, some ? "reduced" : "complete");
}

std::tuple<Tensor, Tensor> composite::linalg_eigh(const Tensor& A, std::string_view UPLO) {
  return _linalg_eigh(A, UPLO, true);
}

Tensor composite::linalg_eigvals(const Tensor& A) { return std::get<0>(linalg_eig(A)); }

Tensor composite::linalg_eigvalsh(const Tensor& A, std::string_view UPLO) {
  return std::get<0>(_linalg_eigh(A, UPLO, wants_grad(A)));
}

std::tuple<Tensor, Tensor, Tensor> composite::linalg_svd(const Tensor& A, bool full_matrices,
                                                         std::optional<std::string_view> driver) {
  return _linalg_svd(A, full_matrices, true, driver);
}

Tensor composite::linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  return std::get<1>(_linalg_svd(A, false, wants_grad(A), driver));
}

std::tuple<Tensor, Tensor, Tensor> composite::svd(const Tensor& self, bool some, bool compute_uv) {
  check_matrix(self, "linalg.svd");
  if (compute_uv) {
    auto [U, S, Vh] = _linalg_svd(self, !some, true, std::nullopt);
    return {U, S, mH(Vh)};
  }
  Tensor S = torchlite::linalg_svdvals(self, std::nullopt);
  int64_t m = self.size(-2), n = self.size(-1);
  return {zeros(with_matrix(batch_sizes(self), m, m), self.scalar_type(), self.device()), S,
          zeros(with_matrix(batch_sizes(self), n, n), self.scalar_type(), self.device())};
}

std::tuple<Tensor, Tensor> composite::triangular_solve(const Tensor& self, const Tensor& A, bool upper, bool transpose,
                                                       bool unitriangular) {
  check_matrix(self, "torch.triangular_solve", "b");
  check_square(A, "torch.triangular_solve");
  Tensor X = linalg_solve_triangular(transpose ? mT(A) : A, self, transpose ? !upper : upper, true, unitriangular);
  return {X, clone(A)};
}

namespace {

// The Householder vector v_i = (0, ..., 0, 1, A[i+1:, i]) that geqrf leaves in column i of A (..., m, n), as a
// column (..., m, 1) of ops (differentiable in A).
Tensor householder_vector(const Tensor& A, int64_t i) {
  const int64_t m = A.size(-2);
  Tensor below = zeros(DimVector{m}, ScalarType::Double, Device());  // the rows past i
  Tensor unit = zeros(DimVector{m}, ScalarType::Double, Device());   // e_i
  for (int64_t r = i + 1; r < m; ++r) below.data<double>()[r] = 1.0;
  unit.data<double>()[i] = 1.0;
  Tensor v = add(mul(select(A, -1, i), _to_copy(below, A.scalar_type(), A.device())),
                 _to_copy(unit, A.scalar_type(), A.device()));
  return unsqueeze(v, -1);
}

// tau_i (or its conjugate) as a (..., 1, 1) tensor.
Tensor householder_scale(const Tensor& tau, int64_t i, bool conjugate) {
  Tensor t = unsqueeze(unsqueeze(select(tau, -1, i), -1), -1);
  return conjugate ? torchlite::conj(t) : t;
}

}  // namespace

Tensor composite::linalg_householder_product(const Tensor& A, const Tensor& tau) {
  const char* api = "torch.linalg.householder_product";
  TL_CHECK(A.dim() >= 2, api, ": input must have at least 2 dimensions.");
  TL_CHECK(A.size(-2) >= A.size(-1), api, ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  TL_CHECK(A.dim() - tau.dim() == 1, api, ": Expected tau to have one dimension less than input, but got tau.ndim "
           "equal to ", tau.dim(), " and input.ndim is equal to ", A.dim());
  TL_CHECK(A.size(-1) >= tau.size(-1), api, ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  check_float_or_complex(A, api);
  TL_CHECK(A.scalar_type() == tau.scalar_type(), api, ": tau dtype ", scalar_type_name(tau.scalar_type()),
           " does not match input dtype ", scalar_type_name(A.scalar_type()));
  int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  // Q = H_0 H_1 ... H_(k-1) applied to the first n columns of I, H_i = I - tau_i v_i v_i^H
  Tensor Q = expand(eye(m, n, A.scalar_type(), A.device()), with_matrix(batch_sizes(A), m, n));
  for (int64_t i = k - 1; i >= 0; --i) {
    Tensor v = householder_vector(A, i);
    Q = sub(Q, mul(householder_scale(tau, i, false), matmul(v, matmul(mH(v), Q))));
  }
  return k == 0 ? clone(Q) : Q;
}

Tensor composite::orgqr(const Tensor& self, const Tensor& input2) {
  return torchlite::linalg_householder_product(self, input2);
}

Tensor composite::ormqr(const Tensor& self, const Tensor& input2, const Tensor& input3, bool left, bool transpose) {
  const char* api = "torch.ormqr";
  const Tensor &A = self, &tau = input2, &C = input3;
  TL_CHECK(A.dim() >= 2, api, ": input must have at least 2 dimensions.");
  TL_CHECK(C.dim() >= 2, api, ": other must have at least 2 dimensions.");
  const int64_t side = left ? -2 : -1;
  TL_CHECK(C.size(side) == A.size(-2), api, ": other.shape[", side, "] must be equal to input.shape[-2]");
  TL_CHECK(tau.dim() >= 1 && tau.size(-1) == std::min(C.size(side), A.size(-1)), api, ": tau.shape[-1] must be "
           "equal to min(other.shape[", side, "], input.shape[-1])");
  TL_CHECK(A.dim() - tau.dim() == 1, api, ": Expected tau to have one dimension less than input, but got tau.ndim "
           "equal to ", tau.dim(), " and input.ndim is equal to ", A.dim());
  TL_CHECK(A.dim() == C.dim(), api, ": Expected other to have the same number of dimensions as input, but got "
           "other.ndim equal to ", C.dim(), " and input.ndim is equal to ", A.dim());
  const DimVector batch = batch_sizes(A);
  auto batch_of = [](const Tensor& t, int64_t kept) {
    return to_string(IntArrayRef(t.sizes().data(), static_cast<size_t>(t.dim() - kept)));
  };
  TL_CHECK(IntArrayRef(tau.sizes().data(), static_cast<size_t>(tau.dim() - 1)).equals(batch), api,
           ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ", batch_of(tau, 1));
  TL_CHECK(batch_sizes(C).ref().equals(batch), api, ": Expected batch dimensions of other to be equal to "
           "input.shape[:-2], but got ", batch_of(C, 2));
  TL_CHECK(tau.scalar_type() == A.scalar_type(), api, ": Expected input and tau to have the same dtype, but input "
           "has dtype", scalar_type_name(A.scalar_type()), " and tau has dtype ", scalar_type_name(tau.scalar_type()));
  TL_CHECK(C.scalar_type() == A.scalar_type(), api, ": Expected input and other to have the same dtype, but input "
           "has dtype", scalar_type_name(A.scalar_type()), " and other has dtype ", scalar_type_name(C.scalar_type()));
  check_lapack_dtype(A, "ormqr_cpu");
  // Q = H_0 ... H_(k-1): Q C applies H_(k-1) first, Q^H C = H_(k-1)^H ... H_0^H C applies H_0^H first; on the
  // right, C Q applies H_0 first and C Q^H H_(k-1)^H first. H_i^H = I - conj(tau_i) v_i v_i^H.
  const int64_t k = tau.size(-1);
  const bool from_last = left != transpose;
  Tensor X = C;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t i = from_last ? k - 1 - j : j;
    Tensor v = householder_vector(A, i);
    Tensor t = householder_scale(tau, i, transpose);
    X = left ? sub(X, mul(t, matmul(v, matmul(mH(v), X)))) : sub(X, mul(t, matmul(matmul(X, v), mH(v))));
  }
  return k == 0 ? clone(X) : X;
}

// ------------------------------------------------------------------ powers and the exponential
Tensor composite::linalg_matrix_power(const Tensor& A, int64_t n) {
  check_square(A, "linalg.matrix_power");
  if (n == 0) return clone(batch_eye(A, A.size(-1)));
  Tensor base = A;
  if (n < 0) {
    base = torchlite::linalg_inv(A);
    n = -n;
  }
  if (n == 1) return clone(base);
  Tensor result;
  while (n > 0) {
    if (n & 1) result = result.defined() ? matmul(result, base) : base;
    n >>= 1;
    if (n > 0) base = matmul(base, base);
  }
  return result;
}

Tensor composite::matrix_power(const Tensor& self, int64_t n) { return torchlite::linalg_matrix_power(self, n); }

Tensor composite::linalg_matrix_exp(const Tensor& A) {
  check_square(A, "linalg.matrix_exp");
  check_float_or_complex(A, "linalg.matrix_exp");
  int64_t n = A.size(-1);
  if (A.numel() == 0) return clone(A);
  // Higham's scaling and squaring with the [13/13] Pade approximant: exp(A) = r(A / 2^s)^(2^s)
  static const double b[14] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
                               129060195264000.0,   10559470521600.0,    670442572800.0,     33522128640.0,
                               1323241920.0,        40840800.0,          960960.0,           16380.0,
                               182.0,               1.0};
  double norm1 = host_max(amax(sum(abs(A), std::optional<IntArrayRef>(DimVector{-2}), false), DimVector{-1}, false));
  const double theta13 = 5.371920351148152;
  int64_t s = 0;
  if (norm1 > theta13) s = static_cast<int64_t>(std::ceil(std::log2(norm1 / theta13)));
  Tensor X = s > 0 ? div(A, number(std::ldexp(1.0, static_cast<int>(s)))) : A;
  Tensor I = batch_eye(A, n);
  Tensor X2 = matmul(X, X), X4 = matmul(X2, X2), X6 = matmul(X4, X2);
  auto lin = [&](double c6, double c4, double c2, double c0) {
    Tensor t = add(add(mul(X6, number(c6)), mul(X4, number(c4))), mul(X2, number(c2)));
    return c0 != 0 ? add(t, mul(I, number(c0))) : t;
  };
  Tensor U = matmul(X, add(matmul(X6, lin(b[13], b[11], b[9], 0)), lin(b[7], b[5], b[3], b[1])));
  Tensor V = add(matmul(X6, lin(b[12], b[10], b[8], 0)), lin(b[6], b[4], b[2], b[0]));
  Tensor R = torchlite::linalg_solve(sub(V, U), add(V, U), true);
  for (int64_t i = 0; i < s; ++i) R = matmul(R, R);
  return R;
}

Tensor composite::matrix_exp(const Tensor& self) { return torchlite::linalg_matrix_exp(self); }

// ------------------------------------------------------------------ norms, condition number, rank, pinv
Tensor composite::linalg_vector_norm(const Tensor& x, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                                     std::optional<ScalarType> dtype) {
  if (is_complex_type(x.scalar_type())) {  // the norm of the moduli, in the real dtype of the same precision
    TL_CHECK(!dtype.has_value() || is_complex_type(*dtype), "linalg.vector_norm: dtype should be complex for "
             "complex inputs, but got ", scalar_type_name(*dtype));
    std::optional<ScalarType> real;
    if (dtype.has_value()) real = to_real_type(*dtype);
    return norm(abs(x), ord, dim, keepdim, real);
  }
  TL_CHECK(is_floating_type(x.scalar_type()), "linalg.vector_norm: Expected a floating point or complex tensor as "
           "input. Got ", scalar_type_name(x.scalar_type()));
  return norm(x, ord, dim, keepdim, dtype);
}

namespace {

// dim as the two wrapped dims of a matrix norm, checked.
std::array<int64_t, 2> matrix_dims(const Tensor& A, IntArrayRef dim) {
  TL_CHECK(A.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  TL_CHECK(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", to_string(dim));
  int64_t d0 = A.wrap_dim(dim[0]), d1 = A.wrap_dim(dim[1]);
  TL_CHECK(d0 != d1, "linalg.matrix_norm: dims must be different. Got (", dim[0], ", ", dim[1], ")");
  return {d0, d1};
}

// The singular values of the matrices in dims (d0, d1), reduced over them by `reduce`, keepdim honoured.
template <typename F>
Tensor over_singular_values(const Tensor& A, std::array<int64_t, 2> d, bool keepdim, const F& reduce) {
  Tensor moved = movedim(A, DimVector{d[0], d[1]}, DimVector{-2, -1});
  Tensor r = reduce(torchlite::linalg_svdvals(moved, std::nullopt));
  if (keepdim) {
    r = unsqueeze(r, std::min(d[0], d[1]));
    r = unsqueeze(r, std::max(d[0], d[1]));
  }
  return r;
}

Tensor squeeze_two(Tensor t, std::array<int64_t, 2> d) {
  t = squeeze(t, std::max(d[0], d[1]));
  return squeeze(t, std::min(d[0], d[1]));
}

}  // namespace

Tensor composite::linalg_matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim, bool keepdim,
                                     std::optional<ScalarType> dtype) {
  auto d = matrix_dims(A, dim);
  check_float_or_complex(A, "linalg.matrix_norm");
  Tensor X = dtype.has_value() ? _to_copy(A, dtype, std::nullopt) : A;
  double v = ord.to_double();
  if (v == 2 || v == -2) {
    return over_singular_values(X, d, keepdim, [&](const Tensor& s) {
      return v > 0 ? amax(s, DimVector{-1}, false) : amin(s, DimVector{-1}, false);
    });
  }
  TL_CHECK(std::isinf(v) || v == 1 || v == -1, "linalg.matrix_norm: Order ", ord_text(ord), " not supported.");
  // inf: the largest row sum (sum over the columns, dim[1]); 1: the largest column sum
  int64_t summed = std::isinf(v) ? d[1] : d[0], kept = std::isinf(v) ? d[0] : d[1];
  Tensor sums = sum(abs(X), std::optional<IntArrayRef>(DimVector{summed}), true);
  Tensor r = v > 0 ? amax(sums, DimVector{kept}, true) : amin(sums, DimVector{kept}, true);
  return keepdim ? r : squeeze_two(r, d);
}

Tensor composite::linalg_matrix_norm_str_ord(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                                     std::optional<ScalarType> dtype) {
  auto d = matrix_dims(A, dim);
  check_float_or_complex(A, "linalg.matrix_norm");
  TL_CHECK(ord == "fro" || ord == "nuc", "linalg.matrix_norm: Order ", ord, " not supported.");
  Tensor X = dtype.has_value() ? _to_copy(A, dtype, std::nullopt) : A;
  if (ord == "fro") {
    return torchlite::linalg_vector_norm(X, Scalar(int64_t(2)), DimVector{d[0], d[1]}, keepdim, std::nullopt);
  }
  return over_singular_values(X, d, keepdim, [](const Tensor& s) {
    return sum(s, std::optional<IntArrayRef>(DimVector{-1}), false);
  });
}

Tensor composite::linalg_norm(const Tensor& A, const std::optional<Scalar>& ord, std::optional<IntArrayRef> dim,
                              bool keepdim, std::optional<ScalarType> dtype) {
  if (dim.has_value()) {
    TL_CHECK(dim->size() == 1 || dim->size() == 2, "linalg.norm: If dim is specified, it must be of length 1 or 2. Got ",
             to_string(*dim));
  } else if (ord.has_value()) {
    TL_CHECK(A.dim() == 1 || A.dim() == 2, "linalg.norm: If dim is not specified but ord is, the input must be 1D or "
             "2D. Got ", A.dim(), "D.");
  }
  bool matrix = dim.has_value() ? dim->size() == 2 : (ord.has_value() && A.dim() == 2);
  if (matrix) {
    DimVector d = dim.has_value() ? DimVector(*dim) : DimVector{0, 1};
    if (!ord.has_value()) return torchlite::linalg_matrix_norm(A, std::string_view("fro"), d, keepdim, dtype);
    return torchlite::linalg_matrix_norm(A, *ord, d, keepdim, dtype);
  }
  Scalar p = ord.value_or(Scalar(int64_t(2)));
  if (!dim.has_value() && !ord.has_value() && A.dim() != 1) {
    return torchlite::linalg_vector_norm(A, p, std::nullopt, keepdim, dtype);
  }
  return torchlite::linalg_vector_norm(A, p, dim, keepdim, dtype);
}

Tensor composite::linalg_norm_ord_str(const Tensor& A, std::string_view ord, std::optional<IntArrayRef> dim, bool keepdim,
                              std::optional<ScalarType> dtype) {
  DimVector d = dim.has_value() ? DimVector(*dim) : DimVector{0, 1};
  TL_CHECK(dim.has_value() ? dim->size() == 2 : A.dim() == 2, "linalg.norm: If dim is not specified but ord is, the "
           "input must be 1D or 2D. Got ", A.dim(), "D.");
  return torchlite::linalg_matrix_norm(A, ord, d, keepdim, dtype);
}

namespace {

// norm(A) * norm(A^-1) for a square A; inf where A is singular.
template <typename Ord>
Tensor cond_by_inverse(const Tensor& A, const Ord& p, std::string_view api) {
  check_square(A, api);
  auto [inv, info] = linalg_inv_ex(A, false);
  DimVector d{-2, -1};
  Tensor c = mul(torchlite::linalg_matrix_norm(A, p, d, false, std::nullopt),
                 torchlite::linalg_matrix_norm(inv, p, d, false, std::nullopt));
  Tensor singular = gt(info, number(int64_t(0)));
  return where(singular, full_like(c, Scalar(std::numeric_limits<double>::infinity())), c);
}

}  // namespace

Tensor composite::linalg_cond(const Tensor& A, const std::optional<Scalar>& p) {
  check_matrix(A, "linalg.cond");
  check_float_or_complex(A, "linalg.cond");
  double v = p.has_value() ? p->to_double() : 2.0;
  if (v == 2 || v == -2) {
    Tensor s = torchlite::linalg_svdvals(A, std::nullopt);
    Tensor hi = amax(s, DimVector{-1}, false), lo = amin(s, DimVector{-1}, false);
    return v > 0 ? div(hi, lo) : div(lo, hi);
  }
  TL_CHECK(std::isinf(v) || v == 1 || v == -1, "linalg.cond got an invalid norm type: ", ord_text(*p));
  return cond_by_inverse(A, *p, str("linalg.cond(ord=", ord_text(*p), ")"));
}

Tensor composite::linalg_cond_p_str(const Tensor& A, std::string_view p) {
  check_matrix(A, "linalg.cond");
  check_float_or_complex(A, "linalg.cond");
  TL_CHECK(p == "fro" || p == "nuc", "linalg.cond got an invalid norm type: ", p);
  return cond_by_inverse(A, p, str("linalg.cond(ord=", p, ")"));
}

namespace {

// PyTorch's tolerances: max(atol, rtol * largest) per matrix: largest (*, 1); atol and rtol (tensors broadcast over A's batch dims, or
// none). Without rtol: eps * max(m, n), or 0 where atol > 0 (PyTorch's rule).
Tensor tolerance(const Tensor& A, const Tensor& largest, const std::optional<Tensor>& atol,
                 const std::optional<Tensor>& rtol) {
  const ScalarType real = to_real_type(A.scalar_type());
  const double eps = real == ScalarType::Float ? std::numeric_limits<float>::epsilon()
                                               : std::numeric_limits<double>::epsilon();
  auto per_matrix = [&](const Tensor& t, const char* name) {
    TL_CHECK(t.device() == A.device(), "linalg: ", name, " must be on ", to_string(A.device()), ", got ",
             to_string(t.device()));
    TL_CHECK_TYPE(is_floating_type(t.scalar_type()) || is_integral_type(t.scalar_type(), true), "linalg: ", name,
                  " must be a real tensor, got ", scalar_type_name(t.scalar_type()));
    return unsqueeze(torchlite::to(t, real), -1);
  };
  const std::optional<Tensor> a = atol ? std::optional<Tensor>(per_matrix(*atol, "atol")) : std::nullopt;
  Tensor r;
  if (rtol) {
    r = per_matrix(*rtol, "rtol");
  } else {
    Tensor fallback = full_like(largest, Scalar(eps * static_cast<double>(std::max(A.size(-2), A.size(-1)))));
    r = a ? where(gt(*a, number(0.0)), zeros_like(fallback), fallback) : fallback;
  }
  Tensor t = mul(largest, r);
  return a ? maximum(*a, t) : t;
}

std::optional<Tensor> as_tensor_tol(const Tensor& A, std::optional<double> v) {
  if (!v) return std::nullopt;
  return full({}, Scalar(*v), to_real_type(A.scalar_type()), A.device());
}

Tensor pinv_impl(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                 bool hermitian) {
  check_matrix(A, "linalg.pinv");
  check_float_or_complex(A, "linalg.pinv");
  if (A.numel() == 0) return zeros(with_matrix(batch_sizes(A), A.size(-1), A.size(-2)), A.scalar_type(), A.device());
  if (hermitian) {
    check_square(A, "linalg.pinv");
    auto [L, V] = torchlite::linalg_eigh(A, "L");
    Tensor absL = abs(L);
    Tensor tol = tolerance(A, unsqueeze(amax(absL, DimVector{-1}, false), -1), atol, rtol);
    Tensor keep = gt(absL, tol);
    Tensor inv = where(keep, reciprocal(where(keep, L, full_like(L, Scalar(1.0)))), zeros_like(L));
    return matmul(mul(V, unsqueeze(inv, -2)), mH(V));
  }
  auto [U, S, Vh] = _linalg_svd(A, false, true, std::nullopt);
  Tensor tol = tolerance(A, narrow(S, -1, 0, 1), atol, rtol);
  Tensor keep = gt(S, tol);
  Tensor inv = where(keep, reciprocal(where(keep, S, full_like(S, Scalar(1.0)))), zeros_like(S));
  return matmul(mul(mH(Vh), unsqueeze(inv, -2)), mH(U));
}

Tensor matrix_rank_impl(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                        bool hermitian) {
  check_matrix(A, "torch.linalg.matrix_rank");
  check_float_or_complex(A, "torch.linalg.matrix_rank");
  Tensor s = hermitian ? abs(torchlite::linalg_eigvalsh(A, "L")) : torchlite::linalg_svdvals(A, std::nullopt);
  if (s.size(-1) == 0) return zeros(batch_sizes(A), ScalarType::Int64, A.device());
  Tensor tol = tolerance(A, unsqueeze(amax(s, DimVector{-1}, false), -1), atol, rtol);
  return sum(gt(s, tol), std::optional<IntArrayRef>(DimVector{-1}), false);
}

}  // namespace

Tensor composite::linalg_pinv_atol_rtol_tensor(const Tensor& A, const std::optional<Tensor>& atol,
                                               const std::optional<Tensor>& rtol, bool hermitian) {
  return pinv_impl(A, atol, rtol, hermitian);
}

Tensor composite::linalg_pinv_atol_rtol_float(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                                              bool hermitian) {
  return pinv_impl(A, as_tensor_tol(A, atol), as_tensor_tol(A, rtol), hermitian);
}

Tensor composite::linalg_pinv(const Tensor& A, double rcond, bool hermitian) {
  return torchlite::linalg_pinv(A, 0.0, rcond, hermitian);
}

Tensor composite::pinverse(const Tensor& self, double rcond) {
  return torchlite::linalg_pinv(self, 0.0, rcond, false);
}

Tensor composite::linalg_matrix_rank_atol_rtol_tensor(const Tensor& A, const std::optional<Tensor>& atol,
                                                      const std::optional<Tensor>& rtol, bool hermitian) {
  return matrix_rank_impl(A, atol, rtol, hermitian);
}

Tensor composite::linalg_matrix_rank_atol_rtol_float(const Tensor& A, std::optional<double> atol,
                                                     std::optional<double> rtol, bool hermitian) {
  return matrix_rank_impl(A, as_tensor_tol(A, atol), as_tensor_tol(A, rtol), hermitian);
}

Tensor composite::linalg_matrix_rank(const Tensor& A, double tol, bool hermitian) {
  return torchlite::linalg_matrix_rank(A, tol, 0.0, hermitian);
}

// ------------------------------------------------------------------ products and the rest
Tensor composite::linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  TL_CHECK(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  int64_t d = self.wrap_dim(dim);
  TL_CHECK(self.size(d) == 3 && other.size(d) == 3, "linalg.cross: inputs dimension ", dim,
           " must have length 3. Got ", self.size(d), " and ", other.size(d));
  auto c = [&](const Tensor& t, int64_t i) { return select(t, d, i); };
  Tensor x = sub(mul(c(self, 1), c(other, 2)), mul(c(self, 2), c(other, 1)));
  Tensor y = sub(mul(c(self, 2), c(other, 0)), mul(c(self, 0), c(other, 2)));
  Tensor z = sub(mul(c(self, 0), c(other, 1)), mul(c(self, 1), c(other, 0)));
  return stack({x, y, z}, d);
}

Tensor composite::cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim.has_value()) return torchlite::linalg_cross(self, other, *dim);
  DimVector shape = broadcast_batch(self.sizes(), other.sizes());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 3) {
      return torchlite::linalg_cross(expand(self, shape), expand(other, shape), static_cast<int64_t>(i));
    }
  }
  TL_ERROR("no dimension of size 3 in input");
}

Tensor composite::linalg_multi_dot(ArrayRef<Tensor> tensors) {
  size_t n = tensors.size();
  TL_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = tensors[i];
    if (i == 0 || i == n - 1) {
      TL_CHECK(t.dim() == 1 || t.dim() == 2, "multi_dot(): the ", i == 0 ? "first" : "last",
               " tensor must be 1D or 2D but got ", t.dim(), "D");
    } else {
      TL_CHECK(t.dim() == 2, "multi_dot(): tensor ", i, " must be 2D but got ", t.dim(), "D");
    }
    TL_CHECK(t.scalar_type() == tensors[0].scalar_type(), "multi_dot(): all tensors must have be the same dtype but "
             "tensor 0 is ", scalar_type_name(tensors[0].scalar_type()), " and tensor ", i, " ",
             scalar_type_name(t.scalar_type()));
  }
  std::vector<Tensor> mats;
  for (size_t i = 0; i < n; ++i) {
    Tensor t = tensors[i];
    if (t.dim() == 1) t = i == 0 ? unsqueeze(t, 0) : unsqueeze(t, 1);
    mats.push_back(t);
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    TL_CHECK(mats[i].size(1) == mats[i + 1].size(0), "multi_dot(): tensors ", i, " and ", i + 1,
             " with shapes ", to_string(tensors[i].sizes()), " and ", to_string(tensors[i + 1].sizes()),
             " cannot be multiplied");
  }
  // the cheapest order of the chain (dynamic programming over its splits)
  std::vector<int64_t> p(n + 1);
  for (size_t i = 0; i < n; ++i) p[i] = mats[i].size(0);
  p[n] = mats[n - 1].size(1);
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t len = 1; len < n; ++len) {
    for (size_t i = 0; i + len < n; ++i) {
      size_t j = i + len;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (size_t s = i; s < j; ++s) {
        double c = cost[i][s] + cost[s + 1][j] + static_cast<double>(p[i]) * p[s + 1] * p[j + 1];
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = s;
        }
      }
    }
  }
  std::function<Tensor(size_t, size_t)> chain = [&](size_t i, size_t j) -> Tensor {
    if (i == j) return mats[i];
    size_t s = split[i][j];
    return matmul(chain(i, s), chain(s + 1, j));
  };
  Tensor r = chain(0, n - 1);
  if (tensors[n - 1].dim() == 1) r = squeeze(r, 1);
  if (tensors[0].dim() == 1) r = squeeze(r, 0);
  return r;
}

Tensor composite::linalg_tensorinv(const Tensor& A, int64_t ind) {
  TL_CHECK(ind > 0, "Expected a strictly positive integer for 'ind', but got ", ind);
  TL_CHECK(ind <= A.dim(), "Expected ind to be at most the number of dimensions of self (", A.dim(), "), but got ",
           ind);
  DimVector out_shape;
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < A.dim(); ++i) (i < ind ? rows : cols) *= A.size(i);
  for (int64_t i = ind; i < A.dim(); ++i) out_shape.push_back(A.size(i));
  for (int64_t i = 0; i < ind; ++i) out_shape.push_back(A.size(i));
  TL_CHECK(rows == cols, "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
           "but got ", cols, " != ", rows);
  return reshape(torchlite::linalg_inv(reshape(A, DimVector{rows, cols})), out_shape);
}

Tensor composite::linalg_tensorsolve(const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims) {
  Tensor a = A;
  if (dims.has_value() && !dims->empty()) {
    DimVector dest;  // the dims `dims` of A moved to the end, in order
    for (size_t i = 0; i < dims->size(); ++i) dest.push_back(A.dim() - static_cast<int64_t>(dims->size() - i));
    a = movedim(A, *dims, dest);
  }
  TL_CHECK(B.dim() <= a.dim(), "linalg.tensorsolve: B has more dimensions (", B.dim(), ") than A (", a.dim(), ")");
  int64_t rows = B.numel(), cols = 1;
  DimVector result_shape;
  for (int64_t i = B.dim(); i < a.dim(); ++i) {
    cols *= a.size(i);
    result_shape.push_back(a.size(i));
  }
  TL_CHECK(rows == cols, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
           "prod(self.shape[:other.ndim]), but got ", cols, " != ", rows);
  Tensor x = torchlite::linalg_solve(reshape(a, DimVector{rows, cols}), reshape(B, DimVector{rows}), true);
  return reshape(x, result_shape);
}

Tensor composite::linalg_vander(const Tensor& x, std::optional<int64_t> N) {
  TL_CHECK(x.dim() >= 1, "linalg.vander: x must have at least one dimension.");
  TL_CHECK(x.scalar_type() != ScalarType::Bool, "linalg.vander supports floating point, complex, and integer tensors, "
           "but got Bool");
  int64_t n = N.value_or(x.size(-1));
  TL_CHECK(n > 1, "N must be greater than 1.");
  DimVector shape(x.sizes());
  shape.push_back(n - 1);
  Tensor powers = cumprod(expand(unsqueeze(x, -1), shape), -1, std::nullopt);
  return cat({ones_like(unsqueeze(x, -1)), powers}, -1);
}

Tensor composite::linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  TL_CHECK(x.scalar_type() == y.scalar_type(), "linalg.vecdot: Expected x and y to have the same dtype, but found x "
           "of type ", scalar_type_name(x.scalar_type()), " and y of type ", scalar_type_name(y.scalar_type()),
           " instead");
  // PyTorch's vecdot conjugates x (the identity on real tensors).
  return sum(mul(conj(x), y), std::optional<IntArrayRef>(DimVector{dim}), false);
}

Tensor composite::linalg_diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  return diagonal(A, offset, dim1, dim2);
}

}  // namespace torchlite
