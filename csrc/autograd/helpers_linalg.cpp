// Formula helpers of the matrix products, written with torchlite ops.
#include "autograd/FormulaHelpers.h"
#include "ops/conj.h"
#include "ops/mm.h"
#include "ops/mul.h"
#include "core/TensorFactory.h"
#include "ops/t.h"

namespace torchlite::autograd {

namespace {

// Whether a 2-D operand with these strides is column-major (its transpose is contiguous) rather than row-major.
bool column_major(IntArrayRef strides) { return strides.size() == 2 && strides[0] == 1 && strides[1] != 1; }

// t * conj(alpha) (the conjugate: PyTorch's complex convention; a real alpha is itself).
Tensor scaled(Tensor t, const Scalar& alpha) {
  if (alpha.tag() != Scalar::Tag::Bool && !alpha.is_complex() && alpha.to_double() == 1.0) return t;
  return mul(t, scalar_to_tensor(scalar_conj(alpha), /*wrapped=*/true));
}

}  // namespace

// grad @ mat2^H and mat1^H @ grad (conj is mat itself for real dtypes). mm passes a transposed operand to the
// GEMM without copying it; the result is computed in the layout of the operand it is the gradient of.
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, IntArrayRef mat1_strides, const Scalar& alpha) {
  if (column_major(mat1_strides)) return t(scaled(mm(torchlite::conj(mat2), t(grad)), alpha));
  return scaled(mm(grad, t(torchlite::conj(mat2))), alpha);
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef mat2_strides, const Scalar& alpha) {
  if (column_major(mat2_strides)) return t(scaled(mm(t(grad), torchlite::conj(mat1)), alpha));
  return scaled(mm(t(torchlite::conj(mat1)), grad), alpha);
}

}  // namespace torchlite::autograd

// ------------------------------------------------------------------ torch.linalg (issue 18)
// The gradients of the LAPACK kernels (kernels/generic/linalg_lapack.cpp), written with torchlite ops so that
// double backward records through them. mH is the conjugate transpose (the transpose of a real matrix), so the
// formulas serve complex matrices in PyTorch's convention too.
#include <algorithm>
#include <vector>

#include "composite/Numbers.h"
#include "kernels/Linalg.h"
#include "ops/_linalg_svd.h"
#include "ops/_to_copy.h"
#include "ops/abs.h"
#include "ops/add.h"
#include "ops/amax.h"
#include "ops/cat.h"
#include "ops/complex.h"
#include "ops/contiguous.h"
#include "ops/diag_embed.h"
#include "ops/diagonal.h"
#include "ops/div.h"
#include "ops/eye.h"
#include "ops/imag.h"
#include "ops/linalg_det.h"
#include "ops/linalg_inv.h"
#include "ops/linalg_lu_solve.h"
#include "ops/linalg_solve.h"
#include "ops/linalg_solve_triangular.h"
#include "ops/lu_unpack.h"
#include "ops/matmul.h"
#include "ops/narrow.h"
#include "ops/neg.h"
#include "ops/prod_dim_int.h"
#include "ops/real.h"
#include "ops/reciprocal.h"
#include "ops/squeeze_dim.h"
#include "ops/sub.h"
#include "ops/zeros_like.h"
#include "ops/ones_like.h"
#include "ops/sum_dim_IntList.h"
#include "ops/transpose_int.h"
#include "ops/tril.h"
#include "ops/triu.h"
#include "ops/unsqueeze.h"

namespace torchlite::autograd {

using linalg::mH;
using linalg::mT;

namespace {

Tensor eye_like(int64_t n, const Tensor& like) { return eye(n, std::nullopt, like.scalar_type(), like.device()); }

// M with its diagonal replaced by d.
Tensor with_diagonal(const Tensor& M, const Tensor& d) {
  return add(sub(M, diag_embed(diagonal(M, 0, -2, -1))), diag_embed(d));
}

// L^-H X (L unit lower triangular) and X U^-H (U upper triangular).
Tensor solve_LH(const Tensor& L, const Tensor& X) {
  return linalg_solve_triangular(mH(L), X, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
}
Tensor solve_UH_right(const Tensor& X, const Tensor& U) {
  return linalg_solve_triangular(mH(U), X, /*upper=*/false, /*left=*/false, /*unitriangular=*/false);
}

// The gradient of B = L U (square, no pivoting) from those of its factors: L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H.
Tensor lu_square_backward(const Tensor& gL, const Tensor& gU, const Tensor& L, const Tensor& U) {
  Tensor phi = add(tril(matmul(mH(L), gL), -1), triu(matmul(gU, mH(U))));
  return solve_UH_right(solve_LH(L, phi), U);
}

// The gradient of A = P L U (m x n, k = min(m, n): L m x k unit lower trapezoidal, U k x n upper trapezoidal) from
// those of its factors. With B = P^T A, a wide A (m < n) is B = L [U1 | U2]: B2 = L U2 moves gU2 U2^H onto L's
// gradient and gives gB2 = L^-H gU2; a tall one (m > n) is B = [L1; L2] U: B2 = L2 U moves L2^H gL2 U^-H onto
// U's and gives gB2 = gL2 U^-H. The square blocks take lu_square_backward.
Tensor lu_factors_backward(const Tensor& gL, const Tensor& gU, const Tensor& P, const Tensor& L, const Tensor& U) {
  const int64_t m = L.size(-2), n = U.size(-1);
  if (m == n) return matmul(P, lu_square_backward(gL, gU, L, U));
  if (m < n) {
    const Tensor U1 = narrow(U, -1, 0, m), U2 = narrow(U, -1, m, n - m);
    const Tensor gU1 = narrow(gU, -1, 0, m), gU2 = narrow(gU, -1, m, n - m);
    const Tensor gL_eff = sub(gL, solve_LH(L, matmul(gU2, mH(U2))));
    const Tensor parts[2] = {lu_square_backward(gL_eff, gU1, L, U1), solve_LH(L, gU2)};
    return matmul(P, cat(ArrayRef<Tensor>(parts, 2), -1));
  }
  const Tensor L1 = narrow(L, -2, 0, n), L2 = narrow(L, -2, n, m - n);
  const Tensor gL1 = narrow(gL, -2, 0, n), gL2 = narrow(gL, -2, n, m - n);
  const Tensor gL2_U = solve_UH_right(gL2, U);  // gL2 U^-H
  const Tensor gU_eff = sub(gU, matmul(mH(L2), gL2_U));
  const Tensor parts[2] = {lu_square_backward(gL1, gU_eff, L1, U), gL2_U};
  return matmul(P, cat(ArrayRef<Tensor>(parts, 2), -2));
}

// The gradient of the packed LU from that of A = P L U.
Tensor lu_packed_from_A(const Tensor& gA, const Tensor& P, const Tensor& L, const Tensor& U) {
  Tensor ptg = matmul(mH(P), gA);
  return add(tril(matmul(ptg, mH(U)), -1), triu(matmul(mH(L), ptg)));
}

}  // namespace

Tensor linalg_lu_factor_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots) {
  auto [P, L, U] = lu_unpack(LU, pivots, true, true);
  const int64_t k = std::min(LU.size(-2), LU.size(-1));
  // the packed gradient's strict lower part is L's (its first k columns), its upper part U's (its first k rows)
  return lu_factors_backward(narrow(tril(grad, -1), -1, 0, k), narrow(triu(grad), -2, 0, k), P, L, U);
}

std::tuple<Tensor, Tensor> linalg_lu_solve_backward(const Tensor& grad, const Tensor& result, const Tensor& LU,
                                                    const Tensor& pivots, bool left, bool adjoint,
                                                    std::array<bool, 2> grad_input_mask) {
  Tensor gB = linalg_lu_solve(LU, pivots, grad, left, !adjoint);
  Tensor gLU;
  if (grad_input_mask[0]) {
    Tensor gM = left ? neg(matmul(gB, mH(result))) : neg(matmul(mH(result), gB));  // of the system's matrix
    Tensor gA = adjoint ? mH(gM) : gM;
    auto [P, L, U] = lu_unpack(LU, pivots, true, true);
    gLU = lu_packed_from_A(gA, P, L, U);
  }
  return {gLU, grad_input_mask[1] ? gB : Tensor()};
}

// dA = P (dL U + L dU) from the packed LU tangent (dL its strict lower part, dU its upper one); then
// X' = M^-1 (B' - M' X) (left) or (B' - X M') M^-1, M = A or A^H.
Tensor linalg_lu_solve_jvp(const Tensor& LU_t, const Tensor& B_t, const Tensor& LU, const Tensor& pivots,
                           const Tensor& result, bool left, bool adjoint) {
  auto [P, L, U] = lu_unpack(LU, pivots, true, true);
  const Tensor dA = matmul(P, add(matmul(tril(LU_t, -1), U), matmul(L, triu(LU_t))));
  const Tensor dM = adjoint ? mH(dA) : dA;
  const Tensor rhs = sub(B_t, left ? matmul(dM, result) : matmul(result, dM));
  return linalg_lu_solve(LU, pivots, rhs, left, adjoint);
}

std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& result, const Tensor& A,
                                                 const Tensor& B, bool left, std::array<bool, 2> grad_input_mask) {
  // conjugate transposes: the same formulas serve complex matrices (PyTorch's convention)
  Tensor gB = linalg_solve(mH(A), grad, left);
  Tensor gA;
  if (grad_input_mask[0]) {
    bool vector = linalg::is_vector_rhs(A, B);
    Tensor g = vector ? unsqueeze(gB, left ? -1 : -2) : gB;
    Tensor x = vector ? unsqueeze(result, left ? -1 : -2) : result;
    gA = left ? neg(matmul(g, mH(x))) : neg(matmul(mH(x), g));
  }
  return {gA, grad_input_mask[1] ? gB : Tensor()};
}

Tensor linalg_inv_backward(const Tensor& grad, const Tensor& inverse) {
  Tensor it = mH(inverse);
  return neg(matmul(matmul(it, grad), it));
}

Tensor linalg_det_backward(const Tensor& grad, const Tensor& A, const Tensor& det) {
  // grad conj(det) A^-H (det is holomorphic: the conjugate of its derivative, det A^-T)
  Tensor g = unsqueeze(unsqueeze(mul(grad, torchlite::conj(det)), -1), -1);
  Tensor host = contiguous(_to_copy(torchlite::abs(det), ScalarType::Double, Device()));
  const double* d = host.data<double>();
  bool singular = false;
  for (int64_t i = 0; i < host.numel(); ++i) singular = singular || d[i] == 0;
  if (!singular) return mul(g, mH(linalg_inv(A)));
  TL_CHECK_KIND(ErrorKind::NotImplemented, !is_complex_type(A.scalar_type()), "linalg.det: the derivative at a "
                "singular complex matrix is not implemented yet (it goes through the SVD, which takes real matrices)");
  // det(A) A^-T is the cofactor matrix, U diag(prod of the other singular values) Vh det(U) det(Vh), which
  // stays finite where A is singular
  auto [U, S, Vh] = _linalg_svd(A, false, true, std::nullopt);
  int64_t n = S.size(-1);
  Tensor others = add(sub(unsqueeze(S, -2), diag_embed(S)), eye_like(n, S));  // row i: S with S_i replaced by 1
  Tensor cof = prod(others, -1);
  Tensor sign = mul(linalg_det(U), linalg_det(Vh));
  Tensor adjT = mul(matmul(mul(U, unsqueeze(cof, -2)), Vh), unsqueeze(unsqueeze(sign, -1), -1));
  return mul(unsqueeze(unsqueeze(grad, -1), -1), adjT);
}

// d log det A = tr(A^-1 dA) = dz: logabsdet moves by Re(dz), and sign = e^(i theta) by i sign Im(dz). So
// dL = g_l Re(dz) - Im(conj(g_s) sign) Im(dz), whose gradient is (g_l - i Im(conj(g_s) sign)) A^-H. A real
// sign is piecewise constant: its gradient is 0.
Tensor linalg_slogdet_backward(const Tensor& grad_sign, const Tensor& grad_logabsdet, const Tensor& A,
                               const Tensor& sign) {
  Tensor g = grad_logabsdet;
  if (is_complex_type(A.scalar_type())) g = complex(g, neg(imag(mul(torchlite::conj(grad_sign), sign))));
  return mul(unsqueeze(unsqueeze(g, -1), -1), mH(linalg_inv(A)));
}

// A = L L^H: gA = L^-H Phi L^-1 with Phi = (M + tril(M, -1)^H) / 2, M = tril(L^H gL): PyTorch's gradient
// (symmetric for real matrices; for complex ones Hermitian up to the imaginary part of Phi's diagonal, which no
// Hermitian direction sees).
Tensor linalg_cholesky_backward(const Tensor& grad, const Tensor& L, bool upper) {
  Tensor l = upper ? mH(L) : L;
  Tensor gl = upper ? mH(grad) : grad;
  Tensor M = tril(matmul(mH(l), gl));
  Tensor phi = mul(add(M, mH(tril(M, -1))), number(0.5));
  Tensor x = linalg_solve_triangular(mH(l), phi, /*upper=*/true, /*left=*/true, /*unitriangular=*/false);
  return linalg_solve_triangular(l, x, /*upper=*/false, /*left=*/false, /*unitriangular=*/false);
}

namespace {

// The QR gradient of A = QR with m >= n (Q m x n, R n x n upper with a real diagonal, as LAPACK's):
// gA = (gQ + Q (G - N)) R^-H with N = Q^H gQ - gR R^H and G = tril(N - N^H) with its (imaginary) diagonal
// halved. For real matrices G - N is copyltu(R gR^T - gQ^T Q).
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  Tensor N = sub(matmul(mH(Q), gQ), matmul(gR, mH(R)));
  Tensor K = sub(N, mH(N));
  Tensor G = sub(tril(K), mul(diag_embed(diagonal(K, 0, -2, -1)), number(0.5)));
  Tensor b = add(gQ, matmul(Q, sub(G, N)));
  return linalg_solve_triangular(mH(R), b, /*upper=*/false, /*left=*/false, /*unitriangular=*/false);
}

}  // namespace

Tensor linalg_qr_backward(const Tensor& grad_Q, const Tensor& grad_R, const Tensor& Q, const Tensor& R,
                          std::string_view mode) {
  TL_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  int64_t m = Q.size(-2), n = R.size(-1);
  TL_CHECK(!(mode == "complete" && m > n), "The QR decomposition is not differentiable when mode='complete' and "
           "nrows > ncols.");
  if (m >= n) return qr_backward_tall(grad_Q, grad_R, Q, R);
  // A = [X | Y] with X = Q R1 square and Y = Q R2: Y reaches Q through R2 = Q^H Y
  Tensor R1 = narrow(R, -1, 0, m), R2 = narrow(R, -1, m, n - m);
  Tensor gR1 = narrow(grad_R, -1, 0, m), gR2 = narrow(grad_R, -1, m, n - m);
  Tensor Y = matmul(Q, R2);
  Tensor gX = qr_backward_tall(add(grad_Q, matmul(Y, mH(gR2))), gR1, Q, R1);
  return cat({gX, matmul(Q, gR2)}, -1);
}

// A = V diag(L) V^-1 with unit-norm columns of V (LAPACK's geev): PyTorch's formula, gA = V^-H (diag(gL) +
// (V^H gV - V^H V diag(Re diag(V^H gV))) / (conj(L_j) - conj(L_i))) V^H off the diagonal. A real A takes its
// real part (the engine's cast). The loss must not depend on the phase of each eigenvector.
Tensor linalg_eig_backward(const Tensor& grad_eigenvalues, const Tensor& grad_eigenvectors, const Tensor& eigenvalues,
                           const Tensor& eigenvectors) {
  const Tensor& L = eigenvalues;
  const Tensor& V = eigenvectors;
  const int64_t n = L.size(-1);
  Tensor I = eye(n, std::nullopt, to_real_type(L.scalar_type()), L.device());
  Tensor Vh = torchlite::conj(mT(V));
  Tensor VhgV = matmul(Vh, grad_eigenvectors);
  Tensor d = diagonal(VhgV, 0, -2, -1);
  if (d.numel() > 0) {
    const double phase_dependence = item(amax(abs(imag(d)), std::nullopt, false)).to_double();
    TL_CHECK(phase_dependence <= 1e-2, "linalg_eig_backward: The eigenvectors in the complex case are specified up "
             "to multiplication by e^{i phi}. The specified loss function depends on this quantity, so it is "
             "ill-defined.");
  }
  Tensor tangent = sub(VhgV, matmul(Vh, mul(V, unsqueeze(real(d), -2))));
  Tensor Lc = torchlite::conj(L);
  Tensor E = add(sub(unsqueeze(Lc, -2), unsqueeze(Lc, -1)), I);  // ones on the diagonal, which is replaced
  Tensor inner = add(mul(div(tangent, E), sub(ones_like(I), I)), mul(unsqueeze(grad_eigenvalues, -1), I));
  return linalg_solve(Vh, matmul(inner, Vh), /*left=*/true);
}

// A = V diag(L) V^H: gA = V (diag(gL) + skew(V^H gV) / (L_j - L_i)) V^H, skew(X) = (X - X^H) / 2, Hermitian as
// PyTorch's (the derivative of the Hermitian matrix A stands for; eigh reads one triangle). Complex eigenvectors
// are defined up to a phase each: a loss that depends on it is refused, as by PyTorch.
Tensor linalg_eigh_backward(const Tensor& grad_eigenvalues, const Tensor& grad_eigenvectors, const Tensor& eigenvalues,
                            const Tensor& eigenvectors) {
  int64_t n = eigenvalues.size(-1);
  TL_CHECK(eigenvectors.numel() > 0 || n == 0, "linalg.eigh: the derivative needs the eigenvectors, which "
           "_linalg_eigh(compute_v=False) does not compute; use linalg.eigh");
  const Tensor& V = eigenvectors;
  Tensor VhgV = matmul(mH(V), grad_eigenvectors);
  if (is_complex_type(V.scalar_type()) && n > 0) {
    const double phase_dependence =
        item(amax(abs(imag(diagonal(VhgV, 0, -2, -1))), std::nullopt, false)).to_double();
    TL_CHECK(phase_dependence <= 1e-2, "linalg_eigh_backward: The eigenvectors in the complex case are specified up "
             "to multiplication by e^{i phi}. The specified loss function depends on this quantity, so it is "
             "ill-defined.");
  }
  // E_ij = L_j - L_i, with ones on the diagonal so that the division leaves it finite (it is replaced)
  Tensor E = add(sub(unsqueeze(eigenvalues, -2), unsqueeze(eigenvalues, -1)), eye_like(n, eigenvalues));
  Tensor inner = div(mul(sub(VhgV, mH(VhgV)), number(0.5)), E);
  inner = with_diagonal(inner, grad_eigenvalues);
  return matmul(matmul(V, inner), mH(V));
}

// A = U diag(S) Vh: gA = U (J S + S K + diag(gS) + i Im(diag(U^H gU)) / S) Vh, J and K the skew-Hermitian parts
// of U^H gU and V^H gV over S_j^2 - S_i^2, plus the parts of gU and gVh outside the spans of U and V. Complex
// singular vectors are defined up to a common phase per pair: a loss that depends on it is refused, as by
// PyTorch.
Tensor linalg_svd_backward(const Tensor& grad_U, const Tensor& grad_S, const Tensor& grad_Vh, const Tensor& U_,
                           const Tensor& S, const Tensor& Vh_, bool full_matrices) {
  int64_t k = S.size(-1);
  TL_CHECK(U_.numel() > 0 || k == 0, "svd_backward: Setting compute_uv to false in torch.svd doesn't compute singular "
           "matrices, and hence we cannot compute backward. Please use torch.svd(compute_uv=True)");
  // columns of full matrices past min(m, n) are ignored, as in PyTorch
  Tensor U = full_matrices ? narrow(U_, -1, 0, k) : U_;
  Tensor Vh = full_matrices ? narrow(Vh_, -2, 0, k) : Vh_;
  Tensor gU = full_matrices ? narrow(grad_U, -1, 0, k) : grad_U;
  Tensor gVh = full_matrices ? narrow(grad_Vh, -2, 0, k) : grad_Vh;
  int64_t m = U.size(-2), n = Vh.size(-1);
  Tensor UhgU = matmul(mH(U), gU);
  Tensor VhgV = matmul(Vh, mH(gVh));
  const bool complex_ = is_complex_type(U.scalar_type());
  Tensor imdiag;  // Im(diag(U^H gU))
  if (complex_ && k > 0) {
    imdiag = imag(diagonal(UhgU, 0, -2, -1));
    Tensor invariance = add(imdiag, imag(diagonal(VhgV, 0, -2, -1)));
    TL_CHECK(item(amax(abs(invariance), std::nullopt, false)).to_double() <= 1e-2, "svd_backward: The singular "
             "vectors in the complex case are specified up to multiplication by e^{i phi}. The specified loss "
             "function depends on this phase term, making it ill-defined.");
  }
  Tensor S2 = mul(S, S);
  Tensor I = eye_like(k, S);
  // F_ij = 1 / (S_j^2 - S_i^2) off the diagonal, 0 on it
  Tensor F = sub(reciprocal(add(sub(unsqueeze(S2, -2), unsqueeze(S2, -1)), I)), I);
  Tensor J = mul(F, sub(UhgU, mH(UhgU)));
  Tensor K = mul(F, sub(VhgV, mH(VhgV)));
  Tensor inner = add(add(mul(J, unsqueeze(S, -2)), mul(unsqueeze(S, -1), K)), diag_embed(grad_S));
  if (imdiag.defined()) inner = add(inner, diag_embed(complex(zeros_like(imdiag), div(imdiag, S))));
  Tensor gA = matmul(matmul(U, inner), Vh);
  if (m > k) gA = add(gA, matmul(div(sub(gU, matmul(U, UhgU)), unsqueeze(S, -2)), Vh));
  if (n > k) gA = add(gA, matmul(U, div(sub(gVh, matmul(mH(VhgV), Vh)), unsqueeze(S, -1))));
  return gA;
}

std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& result,
                                                            bool upper, bool left, bool unitriangular,
                                                            std::array<bool, 2> grad_input_mask) {
  Tensor gB = linalg_solve_triangular(mH(A), grad, !upper, left, unitriangular);
  Tensor gA;
  if (grad_input_mask[0]) {
    gA = left ? neg(matmul(gB, mH(result))) : neg(matmul(mH(result), gB));
    gA = upper ? triu(gA, unitriangular ? 1 : 0) : tril(gA, unitriangular ? -1 : 0);
  }
  return {gA, grad_input_mask[1] ? gB : Tensor()};
}

std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& grad, const Tensor& A, const Tensor& B,
                                                 const Tensor& solution, std::array<bool, 2> grad_input_mask) {
  bool vector = B.dim() == A.dim() - 1;
  Tensor g = vector ? unsqueeze(grad, -1) : grad;
  Tensor X = vector ? unsqueeze(solution, -1) : solution;
  Tensor Bm = vector ? unsqueeze(B, -1) : B;
  int64_t m = A.size(-2), n = A.size(-1);
  Tensor gA, gB;
  if (m >= n) {  // X = (A^H A)^-1 A^H B
    Tensor Y = linalg_solve(matmul(mH(A), A), g, true);
    gB = matmul(A, Y);
    if (grad_input_mask[0]) {
      Tensor r = sub(Bm, matmul(A, X));
      gA = sub(matmul(r, mH(Y)), matmul(matmul(A, Y), mH(X)));
    }
  } else {  // X = A^H (A A^H)^-1 B
    Tensor H = matmul(A, mH(A));
    Tensor W = linalg_solve(H, matmul(A, g), true);
    gB = W;
    if (grad_input_mask[0]) {
      Tensor Z = linalg_solve(H, Bm, true);
      gA = sub(matmul(Z, mH(sub(g, matmul(mH(A), W)))), matmul(W, mH(X)));
    }
  }
  if (vector) gB = squeeze(gB, -1);
  return {grad_input_mask[0] ? gA : Tensor(), grad_input_mask[1] ? gB : Tensor()};
}

// ------------------------------------------------------------------ forward mode (jvp)
// The tangents of the LAPACK ops' results from their inputs' tangents (A_t, B_t: zeros where an input has none),
// written with ops as the gradients are.

namespace {

// sum over the last two dims of a * b: <a, b> per matrix.
Tensor matrix_dot(const Tensor& a, const Tensor& b) {
  return sum(mul(a, b), std::optional<IntArrayRef>(DimVector{-2, -1}), false);
}

// A symmetric (Hermitian) matrix's tangent as the ops that read one triangle see it, for the symmetric
// (Hermitian) tangents their derivatives assume.
Tensor symmetric_part(const Tensor& A_t) { return mul(add(A_t, mH(A_t)), number(0.5)); }

// V^H dA V for eigh's tangents.
Tensor eigh_rotated(const Tensor& A_t, const Tensor& eigenvectors) {
  TL_CHECK(eigenvectors.numel() > 0 || A_t.numel() == 0, "linalg.eigh: the forward-mode derivative needs the "
           "eigenvectors, which _linalg_eigh(compute_v=False) does not compute; use linalg.eigh");
  return matmul(matmul(mH(eigenvectors), symmetric_part(A_t)), eigenvectors);
}

}  // namespace

Tensor linalg_inv_jvp(const Tensor& A_t, const Tensor& inverse) { return neg(matmul(matmul(inverse, A_t), inverse)); }

Tensor linalg_det_jvp(const Tensor& A_t, const Tensor& A, const Tensor& det) {
  // <cofactor(A), dA>: the backward's cofactor (conjugated: det is holomorphic), finite where A is singular
  return matrix_dot(torchlite::conj(linalg_det_backward(ones_like(det), A, det)), A_t);
}

// dz = tr(A^-1 dA): logabsdet moves by Re(dz), a complex sign by i sign Im(dz) (see the backward); a real sign
// is piecewise constant.
namespace {
Tensor logdet_tangent(const Tensor& A_t, const Tensor& A) { return matrix_dot(mT(linalg_inv(A)), A_t); }
}  // namespace

Tensor linalg_slogdet_jvp(const Tensor& A_t, const Tensor& A) {
  const Tensor dz = logdet_tangent(A_t, A);
  return is_complex_type(dz.scalar_type()) ? real(dz) : dz;
}

Tensor linalg_slogdet_jvp_sign(const Tensor& A_t, const Tensor& A, const Tensor& sign) {
  if (!is_complex_type(sign.scalar_type())) return zeros_like(sign);
  const Tensor dz = logdet_tangent(A_t, A);
  return mul(sign, complex(zeros_like(real(dz)), imag(dz)));
}

Tensor linalg_solve_jvp(const Tensor& A_t, const Tensor& B_t, const Tensor& A, const Tensor& B, const Tensor& result,
                        bool left) {
  const bool vector = linalg::is_vector_rhs(A, B);
  const int64_t d = left ? -1 : -2;
  const Tensor x = vector ? unsqueeze(result, d) : result;
  Tensor ax = left ? matmul(A_t, x) : matmul(x, A_t);
  if (vector) ax = squeeze(ax, d);
  return linalg_solve(A, sub(B_t, ax), left);
}

Tensor linalg_solve_triangular_jvp(const Tensor& A_t, const Tensor& B_t, const Tensor& A, const Tensor& result,
                                   bool upper, bool left, bool unitriangular) {
  const int64_t k = unitriangular ? 1 : 0;
  const Tensor dA = upper ? triu(A_t, k) : tril(A_t, -k);  // the part of A that is read
  return linalg_solve_triangular(A, sub(B_t, left ? matmul(dA, result) : matmul(result, dA)), upper, left,
                                 unitriangular);
}

Tensor linalg_cholesky_jvp(const Tensor& A_t, const Tensor& L, bool upper) {
  // dL = L Phi(L^-1 dA L^-H), Phi: the lower triangle with half the diagonal (real: L's diagonal stays real)
  const Tensor l = upper ? mH(L) : L;
  Tensor z = linalg_solve_triangular(l, symmetric_part(A_t), /*upper=*/false, /*left=*/true, false);
  z = linalg_solve_triangular(mH(l), z, /*upper=*/true, /*left=*/false, false);
  Tensor diag = diagonal(z, 0, -2, -1);
  if (is_complex_type(diag.scalar_type())) diag = complex(real(diag), zeros_like(real(diag)));
  const Tensor phi = sub(add(tril(z, -1), diag_embed(diag)), mul(diag_embed(diag), number(0.5)));
  const Tensor dl = matmul(l, phi);
  return upper ? mH(dl) : dl;
}

namespace {
// V^-1 dA V for eig's tangents (a real A's tangent made complex, as V is).
Tensor eig_rotated(const Tensor& A_t, const Tensor& V) {
  return linalg_solve(V, matmul(_to_copy(A_t, V.scalar_type(), std::nullopt), V), /*left=*/true);
}
}  // namespace

Tensor linalg_eig_jvp_eigenvalues(const Tensor& A_t, const Tensor& eigenvalues, const Tensor& eigenvectors) {
  (void)eigenvalues;
  return diagonal(eig_rotated(A_t, eigenvectors), 0, -2, -1);
}

Tensor linalg_eig_jvp_eigenvectors(const Tensor& A_t, const Tensor& eigenvalues, const Tensor& eigenvectors) {
  // dV = V (X / (L_j - L_i)) off the diagonal, X = V^-1 dA V, then minus V Re(diag(V^H dV)): each eigenvector
  // keeps norm 1 (its phase is a gauge, as in the backward)
  const Tensor& L = eigenvalues;
  const Tensor& V = eigenvectors;
  const int64_t n = L.size(-1);
  const Tensor I = eye_like(n, L);
  const Tensor E = add(sub(unsqueeze(L, -2), unsqueeze(L, -1)), I);
  const Tensor dV = matmul(V, with_diagonal(div(eig_rotated(A_t, V), E), zeros_like(L)));
  return sub(dV, mul(V, unsqueeze(real(diagonal(matmul(mH(V), dV), 0, -2, -1)), -2)));
}

Tensor linalg_eigh_jvp_eigenvalues(const Tensor& A_t, const Tensor& eigenvectors) {
  const Tensor d = diagonal(eigh_rotated(A_t, eigenvectors), 0, -2, -1);
  return is_complex_type(d.scalar_type()) ? real(d) : d;
}

Tensor linalg_eigh_jvp_eigenvectors(const Tensor& A_t, const Tensor& eigenvalues, const Tensor& eigenvectors) {
  // dV = V (V^H dA V / (L_j - L_i)), zero on the diagonal (the gauge: V^H dV has a zero diagonal)
  const int64_t n = eigenvalues.size(-1);
  const Tensor E = add(sub(unsqueeze(eigenvalues, -2), unsqueeze(eigenvalues, -1)), eye_like(n, eigenvalues));
  const Tensor inner = div(eigh_rotated(A_t, eigenvectors), E);
  return matmul(eigenvectors, with_diagonal(inner, zeros_like(eigenvalues)));
}

namespace {

// QR's tangents of a square or tall A = QR (m >= n, reduced): X = Q^H dA R^-1 splits into a skew-Hermitian part
// (Q^H dQ) and an upper triangle (dR R^-1, with a real diagonal: R's diagonal is real, as LAPACK makes it).
std::tuple<Tensor, Tensor> qr_jvp_tall(const Tensor& dA, const Tensor& Q, const Tensor& R) {
  const Tensor dAR = linalg_solve_triangular(R, dA, /*upper=*/true, /*left=*/false, /*unitriangular=*/false);
  const Tensor X = matmul(mH(Q), dAR);
  const Tensor low = tril(X, -1);
  // X minus its skew-Hermitian part tril(X, -1) - tril(X, -1)^H (+ i Im(diag(X)) for complex X)
  Tensor upper = add(sub(X, low), mH(low));
  if (is_complex_type(X.scalar_type())) {
    const Tensor im = imag(diagonal(X, 0, -2, -1));
    upper = sub(upper, diag_embed(complex(zeros_like(im), im)));
  }
  return {sub(dAR, matmul(Q, upper)), matmul(upper, R)};
}

std::tuple<Tensor, Tensor> qr_jvp(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode) {
  TL_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = Q.size(-2), n = R.size(-1);
  TL_CHECK(!(mode == "complete" && m > n), "The QR decomposition is not differentiable when mode='complete' and "
           "nrows > ncols.");
  if (m >= n) return qr_jvp_tall(A_t, Q, R);
  // A = [X | Y] with X = Q R1 square: Q and R1 move with X, R2 = Q^T Y with both
  auto [dQ, dR1] = qr_jvp_tall(narrow(A_t, -1, 0, m), Q, narrow(R, -1, 0, m));
  const Tensor dR2 = matmul(mH(Q), sub(narrow(A_t, -1, m, n - m), matmul(dQ, narrow(R, -1, m, n - m))));
  return {dQ, cat({dR1, dR2}, -1)};
}

// The SVD's tangents of the first k = min(m, n) singular triplets: dP = U^T dA V, dS = diag(dP), U^T dU and
// V^T dV from dP's symmetric and skew parts over S_j^2 - S_i^2, and the parts of dA outside the spans of U
// and V. Full matrices' other columns get zero tangents, as PyTorch's.
std::tuple<Tensor, Tensor, Tensor> svd_jvp(const Tensor& A_t, const Tensor& U_, const Tensor& S, const Tensor& Vh_,
                                           bool full_matrices) {
  const int64_t k = S.size(-1);
  TL_CHECK(U_.numel() > 0 || k == 0, "linalg.svd: the forward-mode derivative needs U and Vh, which compute_uv=False "
           "does not compute; use linalg.svd");
  const Tensor U = full_matrices ? narrow(U_, -1, 0, k) : U_;
  const Tensor V = mH(full_matrices ? narrow(Vh_, -2, 0, k) : Vh_);
  const int64_t m = U.size(-2), n = V.size(-2);
  const bool cx = is_complex_type(A_t.scalar_type());
  const Tensor dAV = matmul(A_t, V);
  const Tensor dP = matmul(mH(U), dAV);
  const Tensor dP_diag = diagonal(dP, 0, -2, -1);
  const Tensor dS = cx ? real(dP_diag) : dP_diag;
  const Tensor S2 = mul(S, S);
  const Tensor I = eye_like(k, S);
  const Tensor F = sub(reciprocal(add(sub(unsqueeze(S2, -2), unsqueeze(S2, -1)), I)), I);
  const Tensor row = unsqueeze(S, -2), col = unsqueeze(S, -1);  // multiply columns j by S_j, rows i by S_i
  Tensor dU = matmul(U, mul(F, add(mul(dP, row), mul(col, mH(dP)))));
  Tensor dV = matmul(V, mul(F, add(mul(col, dP), mul(mH(dP), row))));
  // complex: Im(diag(dP)) = S (Im diag(U^H dU) - Im diag(V^H dV)); the gauge puts it all in U
  if (cx) {
    const Tensor im = div(imag(dP_diag), S);
    dU = add(dU, mul(U, unsqueeze(complex(zeros_like(im), im), -2)));
  }
  if (m > k) dU = add(dU, div(sub(dAV, matmul(U, dP)), row));
  if (n > k) dV = add(dV, div(sub(matmul(mH(A_t), U), matmul(V, mH(dP))), row));
  Tensor dVh = mH(dV);
  if (full_matrices) {  // zero tangents for the columns past k
    dU = cat({dU, zeros_like(narrow(U_, -1, k, U_.size(-1) - k))}, -1);
    dVh = cat({dVh, zeros_like(narrow(Vh_, -2, k, Vh_.size(-2) - k))}, -2);
  }
  return {dU, dS, dVh};
}

}  // namespace

Tensor linalg_qr_jvp_Q(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode) {
  return std::get<0>(qr_jvp(A_t, Q, R, mode));
}

Tensor linalg_qr_jvp_R(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode) {
  return std::get<1>(qr_jvp(A_t, Q, R, mode));
}

Tensor linalg_svd_jvp_U(const Tensor& A_t, const Tensor& U, const Tensor& S, const Tensor& Vh, bool full_matrices) {
  return std::get<0>(svd_jvp(A_t, U, S, Vh, full_matrices));
}

Tensor linalg_svd_jvp_S(const Tensor& A_t, const Tensor& U, const Tensor& S, const Tensor& Vh, bool full_matrices) {
  return std::get<1>(svd_jvp(A_t, U, S, Vh, full_matrices));
}

Tensor linalg_svd_jvp_Vh(const Tensor& A_t, const Tensor& U, const Tensor& S, const Tensor& Vh, bool full_matrices) {
  return std::get<2>(svd_jvp(A_t, U, S, Vh, full_matrices));
}

Tensor linalg_lu_factor_jvp(const Tensor& A_t, const Tensor& LU, const Tensor& pivots) {
  // B = P^T A = L U on the leading k x k block: X = L1^-1 dB1 U1^-1 = L1^-1 dL1 + dU1 U1^-1, its strict lower
  // triangle and its upper one. A wide A's other columns B2 = L U2 give dU2 = L^-1 (dB2 - dL U2); a tall A's other
  // rows B2 = L2 U give dL2 = (dB2 - L2 dU) U^-1. The packed tangent holds dL's strict lower part and dU.
  auto [P, L, U] = lu_unpack(LU, pivots, true, true);
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const Tensor dB = matmul(mT(P), A_t);
  const Tensor L1 = narrow(L, -2, 0, k), U1 = narrow(U, -1, 0, k);
  Tensor X = linalg_solve_triangular(L1, narrow(narrow(dB, -2, 0, k), -1, 0, k), /*upper=*/false, /*left=*/true,
                                     /*unitriangular=*/true);
  X = linalg_solve_triangular(U1, X, /*upper=*/true, /*left=*/false, /*unitriangular=*/false);
  const Tensor dL1 = matmul(L1, tril(X, -1)), dU1 = matmul(triu(X), U1);
  if (m == n) return add(dL1, dU1);
  if (m < n) {
    const Tensor rest = sub(narrow(dB, -1, m, n - m), matmul(dL1, narrow(U, -1, m, n - m)));
    const Tensor parts[2] = {add(dL1, dU1), linalg_solve_triangular(L1, rest, false, true, true)};
    return cat(ArrayRef<Tensor>(parts, 2), -1);
  }
  const Tensor rest = sub(narrow(dB, -2, n, m - n), matmul(narrow(L, -2, n, m - n), dU1));
  const Tensor parts[2] = {add(dL1, dU1), linalg_solve_triangular(U1, rest, true, false, false)};
  return cat(ArrayRef<Tensor>(parts, 2), -2);
}

Tensor linalg_lstsq_jvp(const Tensor& A_t, const Tensor& B_t, const Tensor& A, const Tensor& B,
                        const Tensor& solution) {
  const bool vector = B.dim() == A.dim() - 1;
  const Tensor X = vector ? unsqueeze(solution, -1) : solution;
  const Tensor Bm = vector ? unsqueeze(B, -1) : B, dB = vector ? unsqueeze(B_t, -1) : B_t;
  Tensor dX;
  if (A.size(-2) >= A.size(-1)) {  // X = (A^H A)^-1 A^H B
    const Tensor rhs = add(matmul(mH(A_t), sub(Bm, matmul(A, X))), matmul(mH(A), sub(dB, matmul(A_t, X))));
    dX = linalg_solve(matmul(mH(A), A), rhs, true);
  } else {  // X = A^H Z, Z = (A A^H)^-1 B
    const Tensor H = matmul(A, mH(A));
    const Tensor Z = linalg_solve(H, Bm, true);
    const Tensor dH = add(matmul(A_t, mH(A)), matmul(A, mH(A_t)));
    dX = add(matmul(mH(A_t), Z), matmul(mH(A), linalg_solve(H, sub(dB, matmul(dH, Z)), true)));
  }
  return vector ? squeeze(dX, -1) : dX;
}

}  // namespace torchlite::autograd
