// The CPU matrix-product engine (see Gemm.h).
#include "kernels/cpu/Gemm.h"

#include <cblas.h>

#include <algorithm>
#include <climits>

#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/Convert.h"
#include "kernels/ElementwiseIter.h"

namespace torchlite::cpu {
namespace {

// Products this small (m * n * k) run in the plain loop with OpenMP over the
// batch instead of one BLAS call per matrix.
constexpr int64_t kSmallGemm = 4096;
constexpr int64_t kParallelGemm = int64_t(1) << 18;  // multiply-adds from which the threads share a product
constexpr int64_t kColumnBlock = 64;  // the narrowest share of C's rows or columns

// One operand as BLAS reads it: its matrices row-major (NoTrans) or column-major
// (Trans) with leading dimension ld, batch i starting at base + i * batch_stride.
struct BlasOperand {
  Tensor keep;  // the tensor read: the input itself, or a contiguous copy
  const char* base;
  int64_t batch_stride;  // in elements
  CBLAS_TRANSPOSE trans;
  blasint ld;
};

// Whether matrices of rows x cols with strides (sr, sc) are a BLAS layout; a dim
// of size 1 takes any stride.
bool blas_layout(int64_t rows, int64_t cols, int64_t sr, int64_t sc, CBLAS_TRANSPOSE& trans, int64_t& ld) {
  if ((cols <= 1 || sc == 1) && (rows <= 1 || sr >= std::max<int64_t>(cols, 1))) {
    trans = CblasNoTrans;
    ld = rows <= 1 ? std::max<int64_t>(cols, 1) : sr;
    return ld < INT_MAX;
  }
  if ((rows <= 1 || sr == 1) && (cols <= 1 || sc >= std::max<int64_t>(rows, 1))) {
    trans = CblasTrans;
    ld = cols <= 1 ? std::max<int64_t>(rows, 1) : sc;
    return ld < INT_MAX;
  }
  return false;
}

BlasOperand blas_operand(const Tensor& t) {
  int64_t rows = t.size(1), cols = t.size(2);
  CBLAS_TRANSPOSE trans;
  int64_t ld;
  if (blas_layout(rows, cols, t.stride(1), t.stride(2), trans, ld)) {
    return {t, static_cast<const char*>(t.data_ptr()), t.stride(0), trans, static_cast<blasint>(ld)};
  }
  Tensor c = contiguous_as(t, t.scalar_type());
  return {c, static_cast<const char*>(c.data_ptr()), rows * cols, CblasNoTrans,
          static_cast<blasint>(std::max<int64_t>(cols, 1))};
}

template <typename T>
void blas_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta) {
  int64_t batch = c.size(0), M = c.size(1), N = c.size(2), K = a.size(2);
  BlasOperand A = blas_operand(a), B = blas_operand(b);
  blasint m = static_cast<blasint>(M), k = static_cast<blasint>(K);
  blasint ldc = static_cast<blasint>(std::max<int64_t>(N, 1));
  T al = alpha.to<T>(), be = beta.to<T>();
  T* C = c.data<T>();
  const T* pa = reinterpret_cast<const T*>(A.base);
  const T* pb = reinterpret_cast<const T*>(B.base);
  WithoutGil nogil(batch * M * N * K > kGrainSize);  // BLAS touches no Python object
  // BLAS runs single-threaded (set_num_threads); the threads of parallel_for share the products: whole
  // matrices when there are enough of them, else blocks of C. Each block's BLAS call packs all of the operand
  // the blocks share, so the blocks split the larger one: C's rows (C[i0:i1] = A[i0:i1] @ B) when A is larger
  // than B (M > N), else its columns (C[:, j0:j1] = A @ B[:, j0:j1]). (1024 x 2048 @ 2048 x 256 on 2 threads:
  // 8.3 ms by columns, each thread packing all of A; 5.6 ms by rows.)
  const int64_t threads = get_num_threads();
  const int64_t work = batch * M * N * std::max<int64_t>(K, 1);
  const bool by_rows = M > N;
  const int64_t split = by_rows ? M : N;
  int64_t blocks = 1;
  if (threads > 1 && batch < threads && work >= kParallelGemm) {
    blocks = std::min<int64_t>(threads, std::max<int64_t>(1, split / kColumnBlock));
  }
  const int64_t width = (split + blocks - 1) / blocks;
  const int64_t grain = work >= kParallelGemm ? 1 : batch * blocks;
  parallel_for(batch * blocks, grain, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t i = task / blocks, p0 = task % blocks * width, p1 = std::min(split, p0 + width);
      if (p0 >= p1) continue;
      // The block: rows [p0, p1) of C and A, or columns [p0, p1) of C and B.
      const int64_t i0 = by_rows ? p0 : 0, j0 = by_rows ? 0 : p0;
      const T* ai = pa + i * A.batch_stride + i0 * (A.trans == CblasNoTrans ? A.ld : 1);
      const T* bi = pb + i * B.batch_stride + j0 * (B.trans == CblasNoTrans ? 1 : B.ld);
      T* ci = C + i * M * N + i0 * N + j0;
      const blasint mi = by_rows ? static_cast<blasint>(p1 - p0) : m;
      const blasint nj = by_rows ? static_cast<blasint>(N) : static_cast<blasint>(p1 - p0);
      if constexpr (std::is_same_v<T, float>) {
        scipy_cblas_sgemm(CblasRowMajor, A.trans, B.trans, mi, nj, k, al, ai, A.ld, bi, B.ld, be, ci, ldc);
      } else if constexpr (std::is_same_v<T, double>) {
        scipy_cblas_dgemm(CblasRowMajor, A.trans, B.trans, mi, nj, k, al, ai, A.ld, bi, B.ld, be, ci, ldc);
      } else if constexpr (std::is_same_v<T, Complex<float>>) {  // alpha, beta and the matrices by address
        scipy_cblas_cgemm(CblasRowMajor, A.trans, B.trans, mi, nj, k, &al, ai, A.ld, bi, B.ld, &be, ci, ldc);
      } else {
        scipy_cblas_zgemm(CblasRowMajor, A.trans, B.trans, mi, nj, k, &al, ai, A.ld, bi, B.ld, &be, ci, ldc);
      }
    }
  });
}

// The plain loop: each output element is one thread's sum over k in order, so the
// result does not depend on the thread count.
template <typename T, typename acc_t>
void plain_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta) {
  int64_t batch = c.size(0), M = c.size(1), N = c.size(2), K = a.size(2);
  const T* A = a.data<T>();
  const T* B = b.data<T>();
  T* C = c.data<T>();
  int64_t sa0 = a.stride(0), sa1 = a.stride(1), sa2 = a.stride(2);
  int64_t sb0 = b.stride(0), sb1 = b.stride(1), sb2 = b.stride(2);
  acc_t al = alpha.to<acc_t>(), be = beta.to<acc_t>();
  bool use_c = be != acc_t(0);
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * std::max<int64_t>(K, 1)));
  parallel_for(batch * M, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t bi = row / M, i = row % M;
      const T* ar = A + bi * sa0 + i * sa1;
      const T* bb = B + bi * sb0;
      T* cr = C + row * N;
      for (int64_t j = 0; j < N; ++j) {
        acc_t acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += static_cast<acc_t>(ar[k * sa2]) * static_cast<acc_t>(bb[k * sb1 + j * sb2]);
        acc_t r = al * acc;
        if (use_c) r += be * static_cast<acc_t>(cr[j]);
        cr[j] = convert<T>(r);
      }
    }
  });
}

}  // namespace

void gemm_batched(const char* op, const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha,
                  const Scalar& beta) {
  const ScalarType t = c.scalar_type();
  int64_t batch = c.size(0), M = c.size(1), N = c.size(2), K = a.size(2);
  if (t == ScalarType::Bool) throw_dtype_not_implemented(op, t);
  if (batch == 0 || M == 0 || N == 0) return;
  bool blas = (t == ScalarType::Float || t == ScalarType::Double || is_complex_type(t)) &&
              (batch == 1 || M * N * K > kSmallGemm);
  if (blas) {
    TL_CHECK(M < INT_MAX && N < INT_MAX && K < INT_MAX, op, ": matrices too large for 32-bit BLAS");
    switch (t) {
      case ScalarType::Float: blas_gemm<float>(a, b, c, alpha, beta); break;
      case ScalarType::Double: blas_gemm<double>(a, b, c, alpha, beta); break;
      case ScalarType::ComplexFloat: blas_gemm<Complex<float>>(a, b, c, alpha, beta); break;
      default: blas_gemm<Complex<double>>(a, b, c, alpha, beta); break;
    }
    return;
  }
  switch (t) {
    case ScalarType::UInt8: plain_gemm<uint8_t, int64_t>(a, b, c, alpha, beta); break;
    case ScalarType::Int8: plain_gemm<int8_t, int64_t>(a, b, c, alpha, beta); break;
    case ScalarType::Int16: plain_gemm<int16_t, int64_t>(a, b, c, alpha, beta); break;
    case ScalarType::Int32: plain_gemm<int32_t, int64_t>(a, b, c, alpha, beta); break;
    case ScalarType::Int64: plain_gemm<int64_t, int64_t>(a, b, c, alpha, beta); break;
    case ScalarType::Half: plain_gemm<Half, float>(a, b, c, alpha, beta); break;
    case ScalarType::BFloat16: plain_gemm<BFloat16, float>(a, b, c, alpha, beta); break;
    case ScalarType::Float: plain_gemm<float, float>(a, b, c, alpha, beta); break;
    case ScalarType::Double: plain_gemm<double, double>(a, b, c, alpha, beta); break;
    case ScalarType::ComplexFloat: plain_gemm<Complex<float>, Complex<float>>(a, b, c, alpha, beta); break;
    case ScalarType::ComplexDouble: plain_gemm<Complex<double>, Complex<double>>(a, b, c, alpha, beta); break;
    default: throw_dtype_not_implemented(op, t);
  }
}

static Tensor as_batch(const Tensor& t) {
  int64_t sizes[3] = {1, t.size(0), t.size(1)};
  int64_t strides[3] = {0, t.stride(0), t.stride(1)};
  return make_alias(t, IntArrayRef(sizes, 3), IntArrayRef(strides, 3), t.storage_offset());
}

void gemm(const char* op, const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta) {
  gemm_batched(op, as_batch(a), as_batch(b), as_batch(c), alpha, beta);
}

}  // namespace torchlite::cpu
