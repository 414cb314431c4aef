// The torch.linalg kernels that are LAPACK calls (scipy-openblas32's LAPACK, `scipy_` prefixed, 32-bit ints),
// for float32, float64, complex64 and complex128 (eigenvalues of Hermitian matrices, singular values and squared
// residuals in the real dtype of the same precision, as PyTorch's). One kernel serves every device: the matrices
// are copied into a CPU buffer in LAPACK's column-major layout (a (..., r, c) batch becomes a contiguous
// (..., c, r) tensor), factored there, and the results are copied into the outputs, which may be CUDA tensors
// (no cuSOLVER yet: a CUDA input makes the round trip through the host). Batches run on the threads of
// parallel_for, each matrix with single-threaded LAPACK (OpenBLAS's own threads would compete with torchlite's
// OpenMP team: measured 3x slower at 2 threads on this machine, benchmarks/results/linalg.json).
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "kernels/Linalg.h"
#include "kernels/_linalg_eigh.h"
#include "kernels/_linalg_svd.h"
#include "kernels/geqrf.h"
#include "kernels/linalg_eig.h"
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
#include "ops/conj.h"
#include "ops/copy.h"
#include "ops/expand.h"
#include "ops/eye.h"
#include "ops/narrow.h"
#include "ops/squeeze_dim.h"
#include "ops/transpose_int.h"
#include "ops/triu.h"
#include "ops/unsqueeze.h"
#include "ops/zeros.h"

// LAPACK's Fortran interface; the trailing size_t arguments are the lengths of the character arguments.
#define TL_LAPACK_DECLARE(T, p)                                                                                   \
  void scipy_##p##getrf_(const int* m, const int* n, T* a, const int* lda, int* ipiv, int* info);                 \
  void scipy_##p##getrs_(const char* trans, const int* n, const int* nrhs, const T* a, const int* lda,            \
                         const int* ipiv, T* b, const int* ldb, int* info, size_t);                               \
  void scipy_##p##gesv_(const int* n, const int* nrhs, T* a, const int* lda, int* ipiv, T* b, const int* ldb,    \
                        int* info);                                                                               \
  void scipy_##p##getri_(const int* n, T* a, const int* lda, const int* ipiv, T* work, const int* lwork,         \
                         int* info);                                                                              \
  void scipy_##p##potrf_(const char* uplo, const int* n, T* a, const int* lda, int* info, size_t);               \
  void scipy_##p##geqrf_(const int* m, const int* n, T* a, const int* lda, T* tau, T* work, const int* lwork,    \
                         int* info);                                                                              \
  void scipy_##p##orgqr_(const int* m, const int* n, const int* k, T* a, const int* lda, const T* tau, T* work,  \
                         const int* lwork, int* info);                                                            \
  void scipy_##p##syevd_(const char* jobz, const char* uplo, const int* n, T* a, const int* lda, T* w, T* work,   \
                         const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);             \
  void scipy_##p##gesdd_(const char* jobz, const int* m, const int* n, T* a, const int* lda, T* s, T* u,         \
                         const int* ldu, T* vt, const int* ldvt, T* work, const int* lwork, int* iwork,           \
                         int* info, size_t);                                                                      \
  void scipy_##p##gels_(const char* trans, const int* m, const int* n, const int* nrhs, T* a, const int* lda,    \
                        T* b, const int* ldb, T* work, const int* lwork, int* info, size_t);                      \
  void scipy_##p##gelsy_(const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b,                 \
                         const int* ldb, int* jpvt, const T* rcond, int* rank, T* work, const int* lwork,         \
                         int* info);                                                                              \
  void scipy_##p##gelsd_(const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b,                 \
                         const int* ldb, T* s, const T* rcond, int* rank, T* work, const int* lwork, int* iwork,  \
                         int* info);                                                                              \
  void scipy_##p##gelss_(const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b,                 \
                         const int* ldb, T* s, const T* rcond, int* rank, T* work, const int* lwork, int* info);

// The complex routines (COMPLEX is laid out as Complex<T>; eigenvalues, singular values and rcond are real), and
// the real eigensolver (eigenvalues as real and imaginary parts).
#define TL_LAPACK_DECLARE_COMPLEX(C, R, p)                                                                        \
  void scipy_##p##getrf_(const int* m, const int* n, C* a, const int* lda, int* ipiv, int* info);                 \
  void scipy_##p##getrs_(const char* trans, const int* n, const int* nrhs, const C* a, const int* lda,            \
                         const int* ipiv, C* b, const int* ldb, int* info, size_t);                               \
  void scipy_##p##gesv_(const int* n, const int* nrhs, C* a, const int* lda, int* ipiv, C* b, const int* ldb,    \
                        int* info);                                                                               \
  void scipy_##p##getri_(const int* n, C* a, const int* lda, const int* ipiv, C* work, const int* lwork,         \
                         int* info);                                                                              \
  void scipy_##p##geev_(const char* jobvl, const char* jobvr, const int* n, C* a, const int* lda, C* w, C* vl,    \
                        const int* ldvl, C* vr, const int* ldvr, C* work, const int* lwork, R* rwork, int* info,  \
                        size_t, size_t);                                                                          \
  void scipy_##p##potrf_(const char* uplo, const int* n, C* a, const int* lda, int* info, size_t);               \
  void scipy_##p##geqrf_(const int* m, const int* n, C* a, const int* lda, C* tau, C* work, const int* lwork,    \
                         int* info);                                                                              \
  void scipy_##p##ungqr_(const int* m, const int* n, const int* k, C* a, const int* lda, const C* tau, C* work,  \
                         const int* lwork, int* info);                                                            \
  void scipy_##p##heevd_(const char* jobz, const char* uplo, const int* n, C* a, const int* lda, R* w, C* work,   \
                         const int* lwork, R* rwork, const int* lrwork, int* iwork, const int* liwork, int* info, \
                         size_t, size_t);                                                                         \
  void scipy_##p##gesdd_(const char* jobz, const int* m, const int* n, C* a, const int* lda, R* s, C* u,         \
                         const int* ldu, C* vt, const int* ldvt, C* work, const int* lwork, R* rwork, int* iwork, \
                         int* info, size_t);                                                                      \
  void scipy_##p##gels_(const char* trans, const int* m, const int* n, const int* nrhs, C* a, const int* lda,    \
                        C* b, const int* ldb, C* work, const int* lwork, int* info, size_t);                      \
  void scipy_##p##gelsy_(const int* m, const int* n, const int* nrhs, C* a, const int* lda, C* b,                 \
                         const int* ldb, int* jpvt, const R* rcond, int* rank, C* work, const int* lwork,         \
                         R* rwork, int* info);                                                                    \
  void scipy_##p##gelsd_(const int* m, const int* n, const int* nrhs, C* a, const int* lda, C* b,                 \
                         const int* ldb, R* s, const R* rcond, int* rank, C* work, const int* lwork, R* rwork,    \
                         int* iwork, int* info);                                                                  \
  void scipy_##p##gelss_(const int* m, const int* n, const int* nrhs, C* a, const int* lda, C* b,                 \
                         const int* ldb, R* s, const R* rcond, int* rank, C* work, const int* lwork, R* rwork,    \
                         int* info);
#define TL_LAPACK_DECLARE_REAL_GEEV(T, p)                                                                         \
  void scipy_##p##geev_(const char* jobvl, const char* jobvr, const int* n, T* a, const int* lda, T* wr, T* wi,   \
                        T* vl, const int* ldvl, T* vr, const int* ldvr, T* work, const int* lwork, int* info,     \
                        size_t, size_t);

extern "C" {
TL_LAPACK_DECLARE(float, s)
TL_LAPACK_DECLARE(double, d)
TL_LAPACK_DECLARE_COMPLEX(torchlite::Complex<float>, float, c)
TL_LAPACK_DECLARE_COMPLEX(torchlite::Complex<double>, double, z)
TL_LAPACK_DECLARE_REAL_GEEV(float, s)
TL_LAPACK_DECLARE_REAL_GEEV(double, d)
}
#undef TL_LAPACK_DECLARE
#undef TL_LAPACK_DECLARE_COMPLEX
#undef TL_LAPACK_DECLARE_REAL_GEEV

namespace torchlite {

using namespace linalg;

namespace {

// ------------------------------------------------------------------ LAPACK by type
template <typename T> struct Lapack;

#define TL_LAPACK_FORWARD(T, p)                                                                                   \
  template <> struct Lapack<T> {                                                                                  \
    static void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) {                                        \
      scipy_##p##getrf_(&m, &n, a, &lda, ipiv, info);                                                             \
    }                                                                                                             \
    static void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb,          \
                      int* info) {                                                                                \
      scipy_##p##getrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);                                      \
    }                                                                                                             \
    static void gesv(int n, int nrhs, T* a, int lda, int* ipiv, T* b, int ldb, int* info) {                      \
      scipy_##p##gesv_(&n, &nrhs, a, &lda, ipiv, b, &ldb, info);                                                  \
    }                                                                                                             \
    static void getri(int n, T* a, int lda, const int* ipiv, T* work, int lwork, int* info) {                    \
      scipy_##p##getri_(&n, a, &lda, ipiv, work, &lwork, info);                                                   \
    }                                                                                                             \
    static void potrf(char uplo, int n, T* a, int lda, int* info) { scipy_##p##potrf_(&uplo, &n, a, &lda, info, 1); } \
    static void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) {                      \
      scipy_##p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                                                \
    }                                                                                                             \
    static void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, int* info) {         \
      scipy_##p##orgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);                                            \
    }                                                                                                             \
    static void syevd(char jobz, char uplo, int n, T* a, int lda, T* w, T* work, int lwork, int* iwork,          \
                      int liwork, int* info) {                                                                    \
      scipy_##p##syevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);                  \
    }                                                                                                             \
    static void gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt, T* work,     \
                      int lwork, int* iwork, int* info) {                                                         \
      scipy_##p##gesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);             \
    }                                                                                                             \
    static void gels(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* work, int lwork, int* info) {      \
      char trans = 'N';                                                                                           \
      scipy_##p##gels_(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info, 1);                           \
    }                                                                                                             \
    static void gelsy(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* jpvt, T rcond, int* rank,       \
                      T* work, int lwork, int* info) {                                                            \
      scipy_##p##gelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, info);                 \
    }                                                                                                             \
    static void gelsd(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, T* work,   \
                      int lwork, int* iwork, int* info) {                                                         \
      scipy_##p##gelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, info);             \
    }                                                                                                             \
    static void gelss(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, T* work,   \
                      int lwork, int* info) {                                                                     \
      scipy_##p##gelss_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, info);                    \
    }                                                                                                             \
    static void geev_query(char jobvl, char jobvr, int n, T* a, T* wr, T* wi, T* work, int* info) {              \
      int lwork = -1, one = 1;                                                                                    \
      T dummy{};                                                                                                  \
      scipy_##p##geev_(&jobvl, &jobvr, &n, a, &n, wr, wi, &dummy, &one, &dummy, &n, work, &lwork, info, 1, 1);    \
    }                                                                                                             \
    static void geev(char jobvl, char jobvr, int n, T* a, T* wr, T* wi, T* vl, int ldvl, T* vr, T* work,         \
                     int lwork, int* info) {                                                                      \
      scipy_##p##geev_(&jobvl, &jobvr, &n, a, &n, wr, wi, vl, &ldvl, vr, &n, work, &lwork, info, 1, 1);           \
    }                                                                                                             \
    static void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, int m, int n, const T* a, int lda, T* b, \
                     int ldb) {                                                                                   \
      scipy_cblas_##p##trsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, m, n, T(1), a, lda, b, ldb);           \
    }                                                                                                             \
  };

TL_LAPACK_FORWARD(float, s)
TL_LAPACK_FORWARD(double, d)
#undef TL_LAPACK_FORWARD

// The complex routines: the same names as the real ones (ungqr as orgqr), plus the real workspaces (rwork) where
// LAPACK's complex routine takes one (heevd for syevd).
#define TL_LAPACK_FORWARD_COMPLEX(T, p)                                                                           \
  template <> struct Lapack<Complex<T>> {                                                                         \
    using C = Complex<T>;                                                                                         \
    static void getrf(int m, int n, C* a, int lda, int* ipiv, int* info) {                                        \
      scipy_##p##getrf_(&m, &n, a, &lda, ipiv, info);                                                             \
    }                                                                                                             \
    static void getrs(char trans, int n, int nrhs, const C* a, int lda, const int* ipiv, C* b, int ldb,          \
                      int* info) {                                                                                \
      scipy_##p##getrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);                                      \
    }                                                                                                             \
    static void gesv(int n, int nrhs, C* a, int lda, int* ipiv, C* b, int ldb, int* info) {                      \
      scipy_##p##gesv_(&n, &nrhs, a, &lda, ipiv, b, &ldb, info);                                                  \
    }                                                                                                             \
    static void getri(int n, C* a, int lda, const int* ipiv, C* work, int lwork, int* info) {                    \
      scipy_##p##getri_(&n, a, &lda, ipiv, work, &lwork, info);                                                   \
    }                                                                                                             \
    static void geev_query(char jobvl, char jobvr, int n, C* a, C* w, C* vr, C* work, int* info) {              \
      int lwork = -1, one = 1;                                                                                    \
      C dummy{};                                                                                                  \
      T rwork{};                                                                                                  \
      scipy_##p##geev_(&jobvl, &jobvr, &n, a, &n, w, &dummy, &one, vr, &n, work, &lwork, &rwork, info, 1, 1);     \
    }                                                                                                             \
    static void geev(char jobvl, char jobvr, int n, C* a, C* w, C* vl, int ldvl, C* vr, C* work, int lwork,      \
                     T* rwork, int* info) {                                                                       \
      scipy_##p##geev_(&jobvl, &jobvr, &n, a, &n, w, vl, &ldvl, vr, &n, work, &lwork, rwork, info, 1, 1);         \
    }                                                                                                             \
    static void potrf(char uplo, int n, C* a, int lda, int* info) { scipy_##p##potrf_(&uplo, &n, a, &lda, info, 1); } \
    static void geqrf(int m, int n, C* a, int lda, C* tau, C* work, int lwork, int* info) {                      \
      scipy_##p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                                                \
    }                                                                                                             \
    static void orgqr(int m, int n, int k, C* a, int lda, const C* tau, C* work, int lwork, int* info) {         \
      scipy_##p##ungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);                                            \
    }                                                                                                             \
    static void heevd(char jobz, char uplo, int n, C* a, int lda, T* w, C* work, int lwork, T* rwork, int lrwork, \
                      int* iwork, int liwork, int* info) {                                                        \
      scipy_##p##heevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);  \
    }                                                                                                             \
    static void gesdd(char jobz, int m, int n, C* a, int lda, T* s, C* u, int ldu, C* vt, int ldvt, C* work,     \
                      int lwork, T* rwork, int* iwork, int* info) {                                               \
      scipy_##p##gesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1);      \
    }                                                                                                             \
    static void gels(int m, int n, int nrhs, C* a, int lda, C* b, int ldb, C* work, int lwork, int* info) {      \
      char trans = 'N';                                                                                           \
      scipy_##p##gels_(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info, 1);                           \
    }                                                                                                             \
    static void gelsy(int m, int n, int nrhs, C* a, int lda, C* b, int ldb, int* jpvt, T rcond, int* rank,       \
                      C* work, int lwork, T* rwork, int* info) {                                                  \
      scipy_##p##gelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, rwork, info);          \
    }                                                                                                             \
    static void gelsd(int m, int n, int nrhs, C* a, int lda, C* b, int ldb, T* s, T rcond, int* rank, C* work,   \
                      int lwork, T* rwork, int* iwork, int* info) {                                               \
      scipy_##p##gelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, rwork, iwork, info);      \
    }                                                                                                             \
    static void gelss(int m, int n, int nrhs, C* a, int lda, C* b, int ldb, T* s, T rcond, int* rank, C* work,   \
                      int lwork, T* rwork, int* info) {                                                           \
      scipy_##p##gelss_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, rwork, info);             \
    }                                                                                                             \
    static void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, int m, int n, const C* a, int lda, C* b, \
                     int ldb) {                                                                                   \
      const C one(T(1));                                                                                          \
      scipy_cblas_##p##trsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, m, n, &one, a, lda, b, ldb);           \
    }                                                                                                             \
  };

TL_LAPACK_FORWARD_COMPLEX(float, c)
TL_LAPACK_FORWARD_COMPLEX(double, z)
#undef TL_LAPACK_FORWARD_COMPLEX

// The workspace size a query (lwork = -1) returned.
template <typename T>
int work_size(T query) {
  return std::max(1, static_cast<int>(std::ceil(static_cast<double>(query))));
}
template <typename T>
int work_size(Complex<T> query) {
  return work_size(query.re);
}

template <typename F>
void dispatch_float(const char* api, ScalarType t, F&& f) {
  if (t == ScalarType::Float) {
    f(float{});
  } else if (t == ScalarType::Double) {
    f(double{});
  } else {
    TL_ERROR(api, ": Low precision dtypes not supported. Got ", scalar_type_name(t));
  }
}

// The kernels that also take complex matrices: f(T{}) for float, double, Complex<float>, Complex<double>.
template <typename F>
void dispatch_float_or_complex(const char* api, ScalarType t, F&& f) {
  if (t == ScalarType::ComplexFloat) {
    f(Complex<float>{});
  } else if (t == ScalarType::ComplexDouble) {
    f(Complex<double>{});
  } else {
    dispatch_float(api, t, std::forward<F>(f));
  }
}

int as_int(int64_t v, const char* api) {
  TL_CHECK(v < INT_MAX, api, ": matrices too large for 32-bit LAPACK (", v, ")");
  return static_cast<int>(v);
}

int64_t product(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// f(i) for each matrix i of a batch of `batch`, each about `flops` multiply-adds.
template <typename F>
void for_each_matrix(int64_t batch, int64_t flops, const F& f) {
  if (batch <= 0) return;
  if (batch == 1) {
    WithoutGil nogil(flops > kGrainSize);
    f(int64_t(0));
    return;
  }
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, flops));
  parallel_for(batch, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) f(i);
  });
}

// A contiguous CPU buffer holding the matrices of t (..., r, c), broadcast to `batch`, column-major: a
// (batch..., c, r) tensor of `dtype`.
Tensor colmajor(const Tensor& t, IntArrayRef batch) {
  int64_t r = t.size(-2), c = t.size(-1);
  Tensor buf = empty_tensor(with_matrix(batch, c, r), t.scalar_type(), Device());
  copy_(buf, transpose(expand(t, with_matrix(batch, r, c)), -2, -1));
  return buf;
}

// A contiguous CPU copy of t expanded to `sizes`, of dtype `dtype`.
Tensor host_copy(const Tensor& t, IntArrayRef sizes, ScalarType dtype) {
  Tensor buf = empty_tensor(sizes, dtype, Device());
  copy_(buf, expand(t, sizes));
  return buf;
}

// The matrices of a column-major buffer (batch..., c, r) as the (batch..., r, c) tensor they are.
Tensor from_colmajor(const Tensor& buf) { return transpose(buf, -2, -1); }

Tensor host_empty(IntArrayRef sizes, ScalarType dtype) { return empty_tensor(sizes, dtype, Device()); }

}  // namespace

// ------------------------------------------------------------------ LU
void kernels::linalg_lu_factor_ex_out_any(const Tensor& A, bool pivot, bool check_errors, const Tensor& LU,
                                          const Tensor& pivots, const Tensor& info) {
  TL_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  const char* api = "torch.linalg.lu_factor_ex";
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  DimVector batch = batch_sizes(A);
  int64_t nb = product(batch);
  Tensor buf = colmajor(A, batch);
  Tensor piv = host_empty(with_vector(batch, k), ScalarType::Int32);
  Tensor inf = host_empty(batch, ScalarType::Int32);
  int im = as_int(m, api), in = as_int(n, api);
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* a = buf.data<T>();
    int* p = piv.data<int>();
    int* f = inf.data<int>();
    for_each_matrix(nb, m * n * k, [&](int64_t i) {
      if (m == 0 || n == 0) {
        f[i] = 0;
        return;
      }
      Lapack<T>::getrf(im, in, a + i * m * n, std::max(1, im), p + i * k, f + i);
    });
  });
  copy_(LU, from_colmajor(buf));
  copy_(pivots, piv);
  copy_(info, inf);
  if (check_errors) linalg::check_errors(inf, api, A.dim() == 2);
}

void kernels::linalg_lu_solve_out_any(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint,
                                      const Tensor& out) {
  const char* api = "linalg.lu_solve";
  int64_t n = LU.size(-1);
  DimVector batch = broadcast_batch(batch_sizes(LU), batch_sizes(B));
  // X A^H = B of complex matrices is A conj(X)^T = conj(B)^T: solved for conj(X)^T, conjugated back below
  const bool conj_rhs = !left && adjoint && is_complex_type(LU.scalar_type());
  Tensor rhs = left ? B : transpose(B, -2, -1);  // n x k
  if (conj_rhs) rhs = torchlite::conj(rhs);
  int64_t k = rhs.size(-1);
  Tensor lu = colmajor(LU, batch);
  Tensor piv = host_copy(pivots, with_vector(batch, n), ScalarType::Int32);
  const int* pp = piv.data<int>();
  for (int64_t i = 0; i < piv.numel(); ++i) {  // LAPACK would read out of bounds
    TL_CHECK(pp[i] >= 1 && pp[i] <= n, api, ": pivots must be between 1 and ", n, " (LAPACK's 1-based row indices), got ",
             pp[i]);
  }
  Tensor b = colmajor(rhs, batch);  // (..., k, n): column-major n x k
  int64_t nb = product(batch);
  // XA = B is A^T X^T = B^T: the transposed system on the transposed right side
  char trans = conj_rhs ? 'N' : (left ? adjoint : !adjoint) ? 'T' : 'N';
  if (trans == 'T' && left && is_complex_type(LU.scalar_type())) trans = 'C';  // A^H X = B
  int in = as_int(n, api), ik = as_int(k, api);
  dispatch_float_or_complex(api, LU.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = lu.data<T>();
    const int* p = piv.data<int>();
    T* x = b.data<T>();
    for_each_matrix(n == 0 || k == 0 ? 0 : nb, n * n * k, [&](int64_t i) {
      int info = 0;
      Lapack<T>::getrs(trans, in, ik, a + i * n * n, in, p + i * n, x + i * n * k, in, &info);
    });
  });
  Tensor x = left ? from_colmajor(b) : b;
  copy_(out, conj_rhs ? torchlite::conj(x) : x);
}

// ------------------------------------------------------------------ solve, inv, det
void kernels::linalg_solve_ex_out_any(const Tensor& A, const Tensor& B, bool left, bool check_errors,
                                      const Tensor& result, const Tensor& info) {
  const char* api = "torch.linalg.solve_ex";
  bool vector = is_vector_rhs(A, B);
  Tensor Bm = vector ? unsqueeze(B, left ? -1 : -2) : B;
  DimVector batch = broadcast_batch(batch_sizes(A), batch_sizes(Bm));
  int64_t n = A.size(-1);
  // XA = B is A^T X^T = B^T: A's row-major copy is A^T column-major
  Tensor a = left ? colmajor(A, batch) : colmajor(transpose(A, -2, -1), batch);
  Tensor b = colmajor(left ? Bm : transpose(Bm, -2, -1), batch);  // (..., k, n)
  int64_t k = b.size(-2), nb = product(batch);
  Tensor inf = host_empty(batch, ScalarType::Int32);
  int in = as_int(n, api), ik = as_int(k, api);
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* pa = a.data<T>();
    T* pb = b.data<T>();
    int* f = inf.data<int>();
    for_each_matrix(nb, n * n * (n + k), [&](int64_t i) {
      f[i] = 0;
      if (n == 0) return;
      std::vector<int> ipiv(static_cast<size_t>(n));
      Lapack<T>::gesv(in, ik, pa + i * n * n, in, ipiv.data(), pb + i * n * k, in, f + i);
    });
  });
  Tensor x = left ? from_colmajor(b) : b;
  if (vector) x = squeeze(x, left ? -1 : -2);
  copy_(result, x);
  copy_(info, inf);
  if (check_errors) linalg::check_errors(inf, api, A.dim() == 2 && batch.empty());
}

void kernels::linalg_inv_ex_out_any(const Tensor& A, bool check_errors, const Tensor& inverse, const Tensor& info) {
  const char* api = "linalg.inv_ex";
  int64_t n = A.size(-1);
  DimVector batch = batch_sizes(A);
  int64_t nb = product(batch);
  Tensor buf = colmajor(A, batch);
  Tensor inf = host_empty(batch, ScalarType::Int32);
  int in = as_int(n, api);
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* a = buf.data<T>();
    int* f = inf.data<int>();
    int lwork = 1;
    if (n > 0) {
      T query{};
      int qinfo = 0;
      std::vector<int> ipiv(static_cast<size_t>(n));
      Lapack<T>::getri(in, a, in, ipiv.data(), &query, -1, &qinfo);
      lwork = work_size(query);
    }
    for_each_matrix(nb, n * n * n, [&](int64_t i) {
      f[i] = 0;
      if (n == 0) return;
      std::vector<int> ipiv(static_cast<size_t>(n));
      T* ai = a + i * n * n;
      Lapack<T>::getrf(in, in, ai, in, ipiv.data(), f + i);
      if (f[i] != 0) return;
      std::vector<T> work(static_cast<size_t>(lwork));
      int ginfo = 0;
      Lapack<T>::getri(in, ai, in, ipiv.data(), work.data(), lwork, &ginfo);
    });
  });
  copy_(inverse, from_colmajor(buf));
  copy_(info, inf);
  if (check_errors) linalg::check_errors(inf, "linalg.inv_ex", A.dim() == 2);
}

namespace {

// The LU factorization of each matrix of A, then f(i, diagonal of U as a strided pointer, number of row swaps).
template <typename T, typename F>
void with_lu(const Tensor& A, const F& f) {
  const char* api = "linalg.det";
  int64_t n = A.size(-1);
  DimVector batch = batch_sizes(A);
  Tensor buf = colmajor(A, batch);
  T* a = buf.data<T>();
  int in = as_int(n, api);
  for_each_matrix(product(batch), n * n * n, [&](int64_t i) {
    T* ai = a + i * n * n;
    int swaps = 0;
    if (n > 0) {
      std::vector<int> ipiv(static_cast<size_t>(n));
      int info = 0;
      Lapack<T>::getrf(in, in, ai, in, ipiv.data(), &info);
      for (int64_t j = 0; j < n; ++j) swaps += ipiv[static_cast<size_t>(j)] != j + 1;
    }
    f(i, ai, swaps);
  });
}

}  // namespace

void kernels::linalg_det_out_any(const Tensor& A, const Tensor& out) {
  int64_t n = A.size(-1);
  Tensor det = host_empty(batch_sizes(A), A.scalar_type());
  dispatch_float_or_complex("linalg.det", A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* d = det.data<T>();
    with_lu<T>(A, [&](int64_t i, const T* lu, int swaps) {
      T v = swaps % 2 ? T(-1) : T(1);
      for (int64_t j = 0; j < n; ++j) v *= lu[j * (n + 1)];
      d[i] = v;
    });
  });
  copy_(out, det);
}

void kernels::linalg_slogdet_out_any(const Tensor& A, const Tensor& sign, const Tensor& logabsdet) {
  int64_t n = A.size(-1);
  Tensor s = host_empty(batch_sizes(A), A.scalar_type());
  Tensor l = host_empty(batch_sizes(A), to_real_type(A.scalar_type()));
  dispatch_float_or_complex("linalg.slogdet", A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* ps = s.data<T>();
    if constexpr (is_complex_v<T>) {
      // sign: the product of the pivots' phases (and -1 per row swap); logabsdet: the sum of log |pivot|
      using R = typename T::value_type;
      R* pl = l.data<R>();
      with_lu<T>(A, [&](int64_t i, const T* lu, int swaps) {
        T phase(swaps % 2 ? R(-1) : R(1));
        R lg = 0;
        bool zero = false;
        for (int64_t j = 0; j < n; ++j) {
          T u = lu[j * (n + 1)];
          R m = std::hypot(u.re, u.im);
          zero = zero || m == 0;
          if (m != 0) phase *= T(u.re / m, u.im / m);
          lg += std::log(m);
        }
        ps[i] = zero ? T(0) : phase;
        pl[i] = lg;
      });
    } else {
      T* pl = l.data<T>();
      with_lu<T>(A, [&](int64_t i, const T* lu, int swaps) {
        int64_t negative = swaps;
        bool zero = false, nan = false;
        T lg = 0;
        for (int64_t j = 0; j < n; ++j) {
          T u = lu[j * (n + 1)];
          negative += u < 0;
          zero = zero || u == 0;
          nan = nan || std::isnan(u);
          lg += std::log(std::abs(u));
        }
        ps[i] = nan ? std::numeric_limits<T>::quiet_NaN() : zero ? T(0) : negative % 2 ? T(-1) : T(1);
        pl[i] = lg;
      });
    }
  });
  copy_(sign, s);
  copy_(logabsdet, l);
}

// ------------------------------------------------------------------ eig
namespace {

// geev on each column-major matrix of `buf` (n x n, real T or Complex<R>): the eigenvalues into w (n per matrix)
// and the right eigenvectors into v (column-major, n x n per matrix), both complex.
template <typename T, typename C>
void geev_each(T* a, int64_t nb, int64_t n, C* w, C* v, int* f, const char* api) {
  int in = as_int(n, api);
  const char jobvl = 'N', jobvr = 'V';
  int one = 1;
  if (n == 0) {
    for (int64_t i = 0; i < nb; ++i) f[i] = 0;
    return;
  }
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    T query{};
    int qinfo = 0;
    Lapack<T>::geev_query(jobvl, jobvr, in, a, w, v, &query, &qinfo);
    const int lwork = work_size(query);
    for_each_matrix(nb, 10 * n * n * n, [&](int64_t i) {
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<R> rwork(static_cast<size_t>(2 * n));
      T dummy{};
      Lapack<T>::geev(jobvl, jobvr, in, a + i * n * n, w + i * n, &dummy, one, v + i * n * n, work.data(), lwork,
                      rwork.data(), f + i);
    });
  } else {
    T query{};
    int qinfo = 0;
    std::vector<T> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
    Lapack<T>::geev_query(jobvl, jobvr, in, a, wr.data(), wi.data(), &query, &qinfo);
    int lwork = work_size(query);
    for_each_matrix(nb, 10 * n * n * n, [&](int64_t i) {
      std::vector<T> work(static_cast<size_t>(lwork)), re(static_cast<size_t>(n)), im(static_cast<size_t>(n));
      std::vector<T> vr(static_cast<size_t>(n * n));
      T dummy{};
      Lapack<T>::geev(jobvl, jobvr, in, a + i * n * n, re.data(), im.data(), &dummy, one, vr.data(), work.data(),
                      lwork, f + i);
      // a complex pair (im[j] > 0, then its conjugate) has its vector's real part in column j, imaginary in j + 1
      C* wi_ = w + i * n;
      C* vi_ = v + i * n * n;
      for (int64_t j = 0; j < n; ++j) {
        wi_[j] = C(re[j], im[j]);
        const T* col = vr.data() + j * n;
        if (im[j] == 0) {
          for (int64_t r = 0; r < n; ++r) vi_[j * n + r] = C(col[r], T(0));
        } else if (im[j] > 0 && j + 1 < n) {
          const T* next = col + n;
          for (int64_t r = 0; r < n; ++r) {
            vi_[j * n + r] = C(col[r], next[r]);
            vi_[(j + 1) * n + r] = C(col[r], -next[r]);
          }
          wi_[j + 1] = C(re[j + 1], im[j + 1]);
          ++j;
        }
      }
    });
  }
}

}  // namespace

void kernels::linalg_eig_out_any(const Tensor& A, const Tensor& eigenvalues, const Tensor& eigenvectors) {
  const char* api = "linalg.eig";
  int64_t n = A.size(-1);
  DimVector batch = batch_sizes(A);
  int64_t nb = product(batch);
  Tensor buf = colmajor(A, batch);
  const ScalarType ct = to_complex_type(to_real_type(A.scalar_type()));
  Tensor w = host_empty(with_vector(batch, n), ct);
  Tensor v = host_empty(with_matrix(batch, n, n), ct);  // column-major: (batch, column, row)
  Tensor inf = host_empty(batch, ScalarType::Int32);
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    using R = std::conditional_t<is_complex_v<T>, T, Complex<T>>;
    using C = Complex<typename R::value_type>;
    geev_each<T, C>(buf.data<T>(), nb, n, w.data<C>(), v.data<C>(), inf.data<int>(), api);
  });
  linalg::check_errors(inf, api, A.dim() == 2);
  copy_(eigenvalues, w);
  copy_(eigenvectors, from_colmajor(v));
}

// ------------------------------------------------------------------ Cholesky
void kernels::linalg_cholesky_ex_out_any(const Tensor& A, bool upper, bool check_errors, const Tensor& L,
                                         const Tensor& info) {
  const char* api = "linalg.cholesky_ex";
  int64_t n = A.size(-1);
  DimVector batch = batch_sizes(A);
  Tensor buf = colmajor(A, batch);
  Tensor inf = host_empty(batch, ScalarType::Int32);
  int in = as_int(n, api);
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* a = buf.data<T>();
    int* f = inf.data<int>();
    for_each_matrix(product(batch), n * n * n / 3, [&](int64_t i) {
      f[i] = 0;
      if (n == 0) return;
      T* ai = a + i * n * n;
      // A's lower triangle for L, its upper one for U (as PyTorch's: the two differ when A is not Hermitian)
      Lapack<T>::potrf(upper ? 'U' : 'L', in, ai, in, f + i);
      for (int64_t j = 0; j < n; ++j) {  // the other strict triangle still holds A
        for (int64_t r = upper ? j + 1 : 0; r < (upper ? n : j); ++r) ai[r + j * n] = T(0);
      }
    });
  });
  copy_(L, from_colmajor(buf));
  copy_(info, inf);
  if (check_errors) linalg::check_errors(inf, api, A.dim() == 2);
}

// ------------------------------------------------------------------ QR
namespace {

// geqrf on each column-major m x n matrix of buf, the scales into tau (max(k, 1) per matrix).
void geqrf_each(const Tensor& buf, const Tensor& tau, int64_t nb, int64_t m, int64_t n, const char* api) {
  const int64_t k = std::min(m, n), ts = std::max<int64_t>(k, 1);
  const int im = as_int(m, api), in = as_int(n, api);
  dispatch_float_or_complex(api, buf.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* a = buf.data<T>();
    T* t = tau.data<T>();
    for_each_matrix(k == 0 ? 0 : nb, m * n * k, [&](int64_t i) {
      T query{};
      int info = 0;
      Lapack<T>::geqrf(im, in, a + i * m * n, im, t + i * ts, &query, -1, &info);
      std::vector<T> work(static_cast<size_t>(work_size(query)));
      Lapack<T>::geqrf(im, in, a + i * m * n, im, t + i * ts, work.data(), work_size(query), &info);
    });
  });
}

}  // namespace

void kernels::geqrf_out_any(const Tensor& self, const Tensor& a, const Tensor& tau) {
  int64_t m = self.size(-2), n = self.size(-1), k = std::min(m, n);
  DimVector batch = batch_sizes(self);
  Tensor buf = colmajor(self, batch);
  Tensor t = host_empty(with_vector(batch, std::max<int64_t>(k, 1)), self.scalar_type());
  geqrf_each(buf, t, product(batch), m, n, "torch.geqrf");
  copy_(a, from_colmajor(buf));
  copy_(tau, narrow(t, -1, 0, k));
}

void kernels::linalg_qr_out_any(const Tensor& A, std::string_view mode, const Tensor& Q, const Tensor& R) {
  const char* api = "linalg.qr";
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  bool complete = mode == "complete";
  DimVector batch = batch_sizes(A);
  int64_t nb = product(batch);
  Tensor buf = colmajor(A, batch);
  Tensor tau = host_empty(with_vector(batch, std::max<int64_t>(k, 1)), A.scalar_type());
  int im = as_int(m, api), ik = as_int(k, api);
  int64_t qcols = complete ? m : k;
  geqrf_each(buf, tau, nb, m, n, api);
  int64_t rrows = complete ? m : k;
  copy_(R, triu(narrow(from_colmajor(buf), -2, 0, rrows)));
  if (mode == "r") return;
  Tensor q = zeros(with_matrix(batch, qcols, m), A.scalar_type(), Device());
  int64_t kept = std::min(qcols, n);
  copy_(narrow(q, -2, 0, kept), narrow(buf, -2, 0, kept));
  int iq = as_int(qcols, api);
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* pq = q.data<T>();
    const T* t = tau.data<T>();
    int64_t ts = std::max<int64_t>(k, 1);
    for_each_matrix(m == 0 || qcols == 0 ? 0 : nb, m * qcols * k, [&](int64_t i) {
      T query{};
      int info = 0;
      Lapack<T>::orgqr(im, iq, ik, pq + i * m * qcols, im, t + i * ts, &query, -1, &info);
      std::vector<T> work(static_cast<size_t>(work_size(query)));
      Lapack<T>::orgqr(im, iq, ik, pq + i * m * qcols, im, t + i * ts, work.data(), work_size(query), &info);
    });
  });
  copy_(Q, from_colmajor(q));
}

// ------------------------------------------------------------------ eigh, svd
void kernels::linalg_eigh_out_any(const Tensor& A, std::string_view UPLO, bool compute_v, const Tensor& eigenvalues,
                                  const Tensor& eigenvectors) {
  const char* api = "linalg.eigh";
  int64_t n = A.size(-1);
  DimVector batch = batch_sizes(A);
  int64_t nb = product(batch);
  Tensor buf = colmajor(A, batch);
  Tensor w = host_empty(with_vector(batch, n), to_real_type(A.scalar_type()));
  Tensor inf = host_empty(batch, ScalarType::Int32);
  char uplo = (UPLO == "U" || UPLO == "u") ? 'U' : 'L';
  char jobz = compute_v ? 'V' : 'N';
  int in = as_int(n, api);
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    using R = real_t<T>;
    T* a = buf.data<T>();
    R* pw = w.data<R>();
    int* f = inf.data<int>();
    T wquery{};
    R rquery{};
    int iquery = 0, qinfo = 0;
    if constexpr (is_complex_v<T>) {
      if (n > 0) Lapack<T>::heevd(jobz, uplo, in, a, in, pw, &wquery, -1, &rquery, -1, &iquery, -1, &qinfo);
    } else {
      if (n > 0) Lapack<T>::syevd(jobz, uplo, in, a, in, pw, &wquery, -1, &iquery, -1, &qinfo);
    }
    int lwork = work_size(wquery), lrwork = work_size(rquery), liwork = std::max(1, iquery);
    for_each_matrix(nb, 4 * n * n * n, [&](int64_t i) {
      f[i] = 0;
      if (n == 0) return;
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<int> iwork(static_cast<size_t>(liwork));
      if constexpr (is_complex_v<T>) {  // the Hermitian solver: a real workspace too
        std::vector<R> rwork(static_cast<size_t>(lrwork));
        Lapack<T>::heevd(jobz, uplo, in, a + i * n * n, in, pw + i * n, work.data(), lwork, rwork.data(), lrwork,
                         iwork.data(), liwork, f + i);
      } else {
        Lapack<T>::syevd(jobz, uplo, in, a + i * n * n, in, pw + i * n, work.data(), lwork, iwork.data(), liwork,
                         f + i);
      }
    });
  });
  linalg::check_errors(inf, api, A.dim() == 2);
  copy_(eigenvalues, w);
  if (compute_v) copy_(eigenvectors, from_colmajor(buf));
}

void kernels::linalg_svd_out_any(const Tensor& A, bool full_matrices, bool compute_uv,
                                 std::optional<std::string_view> driver, const Tensor& U, const Tensor& S,
                                 const Tensor& Vh) {
  const char* api = "linalg.svd";
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  DimVector batch = batch_sizes(A);
  int64_t nb = product(batch);
  int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  if (k == 0) {  // nothing to factor: identities where full matrices ask for columns
    if (compute_uv) {
      copy_(U, expand(eye(m, ucols, A.scalar_type(), Device()), with_matrix(batch, m, ucols)));
      copy_(Vh, expand(eye(vrows, n, A.scalar_type(), Device()), with_matrix(batch, vrows, n)));
    }
    return;
  }
  Tensor buf = colmajor(A, batch);
  Tensor s = host_empty(with_vector(batch, k), to_real_type(A.scalar_type()));
  Tensor u = compute_uv ? host_empty(with_matrix(batch, ucols, m), A.scalar_type()) : Tensor();
  Tensor vt = compute_uv ? host_empty(with_matrix(batch, n, vrows), A.scalar_type()) : Tensor();
  Tensor inf = host_empty(batch, ScalarType::Int32);
  char jobz = compute_uv ? (full_matrices ? 'A' : 'S') : 'N';
  int im = as_int(m, api), in = as_int(n, api);
  int ldu = compute_uv ? im : 1, ldvt = compute_uv ? as_int(vrows, api) : 1;
  // the complex gesdd's real workspace: LAPACK's bound for jobz = 'N', and for the others
  const int64_t big = std::max(m, n);
  const int64_t lrwork = compute_uv ? k * std::max(5 * k + 7, 2 * big + 2 * k + 1) : 7 * k;
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    using R = real_t<T>;
    T* a = buf.data<T>();
    R* ps = s.data<R>();
    T* pu = compute_uv ? u.data<T>() : nullptr;
    T* pv = compute_uv ? vt.data<T>() : nullptr;
    int* f = inf.data<int>();
    // gesdd on matrix i (i < 0: the workspace query on matrix 0)
    auto gesdd = [&](int64_t i, T* work, int lwork, int* iwork, int* info) {
      const int64_t j = std::max<int64_t>(i, 0);
      T du{}, dv{};
      T* ui = compute_uv ? pu + j * m * ucols : &du;
      T* vi = compute_uv ? pv + j * vrows * n : &dv;
      if constexpr (is_complex_v<T>) {
        std::vector<R> rwork(static_cast<size_t>(std::max<int64_t>(lrwork, 1)));
        Lapack<T>::gesdd(jobz, im, in, a + j * m * n, im, ps + j * k, ui, ldu, vi, ldvt, work, lwork, rwork.data(),
                         iwork, info);
      } else {
        Lapack<T>::gesdd(jobz, im, in, a + j * m * n, im, ps + j * k, ui, ldu, vi, ldvt, work, lwork, iwork, info);
      }
    };
    std::vector<int> qiwork(static_cast<size_t>(8 * k));
    T query{};
    int qinfo = 0;
    gesdd(-1, &query, -1, qiwork.data(), &qinfo);
    int lwork = work_size(query);
    for_each_matrix(nb, 4 * m * n * k, [&](int64_t i) {
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<int> iwork(static_cast<size_t>(8 * k));
      gesdd(i, work.data(), lwork, iwork.data(), f + i);
    });
  });
  linalg::check_errors(inf, api, A.dim() == 2);
  copy_(S, s);
  if (compute_uv) {
    copy_(U, from_colmajor(u));
    copy_(Vh, from_colmajor(vt));
  }
}

// ------------------------------------------------------------------ triangular solve, least squares
void kernels::linalg_solve_triangular_out_any(const Tensor& A, const Tensor& B, bool upper, bool left,
                                              bool unitriangular, const Tensor& out) {
  const char* api = "linalg.solve_triangular";
  int64_t n = A.size(-1), r = B.size(-2), c = B.size(-1);
  DimVector batch = broadcast_batch(batch_sizes(A), batch_sizes(B));
  Tensor a = host_copy(A, with_matrix(batch, n, n), A.scalar_type());  // row-major: BLAS takes it as it is
  Tensor b = host_copy(B, with_matrix(batch, r, c), A.scalar_type());
  int ir = as_int(r, api), ic = as_int(c, api), in = as_int(n, api);
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    T* pb = b.data<T>();
    for_each_matrix(r == 0 || c == 0 ? 0 : product(batch), n * r * c, [&](int64_t i) {
      Lapack<T>::trsm(left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
                      unitriangular ? CblasUnit : CblasNonUnit, ir, ic, pa + i * n * n, std::max(1, in),
                      pb + i * r * c, std::max(1, ic));
    });
  });
  copy_(out, b);
}

void kernels::linalg_lstsq_out_any(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                   std::optional<std::string_view> driver, const Tensor& solution,
                                   const Tensor& residuals, const Tensor& rank, const Tensor& singular_values) {
  const char* api = "torch.linalg.lstsq";
  std::string_view d = driver.value_or("gelsy");
  bool vector = B.dim() == A.dim() - 1;
  Tensor Bm = vector ? unsqueeze(B, -1) : B;
  int64_t m = A.size(-2), n = A.size(-1), k = Bm.size(-1), mn = std::min(m, n);
  int64_t ldb = std::max<int64_t>({m, n, 1});
  DimVector batch = broadcast_batch(batch_sizes(A), batch_sizes(Bm));
  int64_t nb = product(batch);
  Tensor a = colmajor(A, batch);
  Tensor b = zeros(with_matrix(batch, k, ldb), A.scalar_type(), Device());
  copy_(narrow(b, -1, 0, m), transpose(expand(Bm, with_matrix(batch, m, k)), -2, -1));
  Tensor ranks = host_empty(batch, ScalarType::Int32);
  const ScalarType real = to_real_type(A.scalar_type());
  Tensor sv = host_empty(with_vector(batch, std::max<int64_t>(mn, 1)), real);
  Tensor inf = host_empty(batch, ScalarType::Int32);
  bool with_residuals = m > n && d != "gelsy";
  Tensor res = host_empty(with_vector(batch, k), real);
  int im = as_int(m, api), in = as_int(n, api), ik = as_int(k, api), ildb = as_int(ldb, api);
  dispatch_float_or_complex(api, A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    using R = real_t<T>;
    constexpr bool cplx = is_complex_v<T>;
    T* pa = a.data<T>();
    T* pb = b.data<T>();
    int* pr = ranks.data<int>();
    R* ps = sv.data<R>();
    int* f = inf.data<int>();
    R* pres = res.data<R>();
    int64_t svs = std::max<int64_t>(mn, 1);
    R tol = rcond.has_value() ? static_cast<R>(*rcond)
                              : std::numeric_limits<R>::epsilon() * static_cast<R>(std::max(m, n));
    for_each_matrix(nb, m * n * std::max(mn, k), [&](int64_t i) {
      f[i] = 0;
      pr[i] = 0;
      T* ai = pa + i * m * n;
      T* bi = pb + i * k * ldb;
      if (m > 0 && n > 0 && k > 0) {
        T query{};
        int qinfo = 0;
        if (d == "gels") {
          Lapack<T>::gels(im, in, ik, ai, im, bi, ildb, &query, -1, &qinfo);
          std::vector<T> work(static_cast<size_t>(work_size(query)));
          Lapack<T>::gels(im, in, ik, ai, im, bi, ildb, work.data(), work_size(query), f + i);
          pr[i] = static_cast<int>(mn);
        } else if (d == "gelsy") {
          std::vector<int> jpvt(static_cast<size_t>(n), 0);
          if constexpr (cplx) {
            std::vector<R> rwork(static_cast<size_t>(2 * n));
            Lapack<T>::gelsy(im, in, ik, ai, im, bi, ildb, jpvt.data(), tol, pr + i, &query, -1, rwork.data(), &qinfo);
            std::vector<T> work(static_cast<size_t>(work_size(query)));
            Lapack<T>::gelsy(im, in, ik, ai, im, bi, ildb, jpvt.data(), tol, pr + i, work.data(), work_size(query),
                             rwork.data(), f + i);
          } else {
            Lapack<T>::gelsy(im, in, ik, ai, im, bi, ildb, jpvt.data(), tol, pr + i, &query, -1, &qinfo);
            std::vector<T> work(static_cast<size_t>(work_size(query)));
            Lapack<T>::gelsy(im, in, ik, ai, im, bi, ildb, jpvt.data(), tol, pr + i, work.data(), work_size(query),
                             f + i);
          }
        } else if (d == "gelsd") {
          int iq = 0;
          if constexpr (cplx) {
            R rq{};
            Lapack<T>::gelsd(im, in, ik, ai, im, bi, ildb, ps + i * svs, tol, pr + i, &query, -1, &rq, &iq, &qinfo);
            std::vector<T> work(static_cast<size_t>(work_size(query)));
            std::vector<R> rwork(static_cast<size_t>(work_size(rq)));
            std::vector<int> iwork(static_cast<size_t>(std::max(1, iq)));
            Lapack<T>::gelsd(im, in, ik, ai, im, bi, ildb, ps + i * svs, tol, pr + i, work.data(), work_size(query),
                             rwork.data(), iwork.data(), f + i);
          } else {
            Lapack<T>::gelsd(im, in, ik, ai, im, bi, ildb, ps + i * svs, tol, pr + i, &query, -1, &iq, &qinfo);
            std::vector<T> work(static_cast<size_t>(work_size(query)));
            std::vector<int> iwork(static_cast<size_t>(std::max(1, iq)));
            Lapack<T>::gelsd(im, in, ik, ai, im, bi, ildb, ps + i * svs, tol, pr + i, work.data(), work_size(query),
                             iwork.data(), f + i);
          }
        } else if constexpr (cplx) {
          std::vector<R> rwork(static_cast<size_t>(5 * mn));
          Lapack<T>::gelss(im, in, ik, ai, im, bi, ildb, ps + i * svs, tol, pr + i, &query, -1, rwork.data(), &qinfo);
          std::vector<T> work(static_cast<size_t>(work_size(query)));
          Lapack<T>::gelss(im, in, ik, ai, im, bi, ildb, ps + i * svs, tol, pr + i, work.data(), work_size(query),
                           rwork.data(), f + i);
        } else {
          Lapack<T>::gelss(im, in, ik, ai, im, bi, ildb, ps + i * svs, tol, pr + i, &query, -1, &qinfo);
          std::vector<T> work(static_cast<size_t>(work_size(query)));
          Lapack<T>::gelss(im, in, ik, ai, im, bi, ildb, ps + i * svs, tol, pr + i, work.data(), work_size(query),
                           f + i);
        }
      }
      if (with_residuals) {  // the squared moduli of rows n..m-1 of the transformed right side
        for (int64_t j = 0; j < k; ++j) {
          R acc = 0;
          for (int64_t r = n; r < m; ++r) {
            const T v = bi[j * ldb + r];
            if constexpr (cplx) {
              acc += v.re * v.re + v.im * v.im;
            } else {
              acc += v * v;
            }
          }
          pres[i * k + j] = acc;
        }
      }
    });
  });
  linalg::check_errors(inf, api, A.dim() == 2 && batch.empty());
  Tensor x = from_colmajor(narrow(b, -1, 0, n));  // (..., n, k)
  copy_(solution, vector ? squeeze(x, -1) : x);
  if (with_residuals) {
    bool full_rank = true;
    if (d == "gelsd" || d == "gelss") {
      const int* pr = ranks.data<int>();
      for (int64_t i = 0; i < nb; ++i) full_rank = full_rank && pr[i] == n;
    }
    if (full_rank) {
      copy_(residuals, vector ? squeeze(res, -1) : res);
    } else {
      resize_tensor(residuals, DimVector{0});  // PyTorch gives residuals only for full-rank matrices
    }
  }
  if (d != "gels") copy_(rank, ranks);
  if (d == "gelsd" || d == "gelss") copy_(singular_values, mn == 0 ? narrow(sv, -1, 0, 0) : sv);
}

}  // namespace torchlite
