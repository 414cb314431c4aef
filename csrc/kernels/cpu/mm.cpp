// mm on the CPU: scipy-openblas32's gemm for float32/float64, a plain loop
// (accumulating in float for half/bfloat16, int64 for integers) otherwise.
#include <cblas.h>

#include <climits>

#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/Convert.h"
#include "kernels/mm.h"

namespace torchlite {

TensorMeta meta::mm_meta(const Tensor& self, const Tensor& mat2) {
  TL_CHECK(self.dim() == 2, "self must be a matrix");
  TL_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TL_CHECK(self.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", self.size(0), "x",
           self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  TL_CHECK(self.scalar_type() == mat2.scalar_type(), "expected m1 and m2 to have the same dtype, but got: ",
           scalar_type_python_name(self.scalar_type()), " != ", scalar_type_python_name(mat2.scalar_type()));
  TL_CHECK(self.device() == mat2.device(), "Expected all tensors to be on the same device, but found at least two "
           "devices, ", to_string(self.device()), " and ", to_string(mat2.device()), "!");
  TensorMeta m;
  m.sizes = {self.size(0), mat2.size(1)};
  m.dtype = self.scalar_type();
  m.device = self.device();
  return m;
}

namespace {

// A BLAS view of a matrix: row-major with unit column stride, or its transpose.
struct BlasMatrix {
  Tensor keep;
  const void* data;
  CBLAS_TRANSPOSE trans;
  blasint ld;
};

BlasMatrix blas_operand(const Tensor& t) {
  int64_t rows = t.size(0), cols = t.size(1);
  if (t.stride(1) == 1 && t.stride(0) >= (cols > 1 ? cols : 1) && t.stride(0) < INT_MAX)
    return {t, t.data_ptr(), CblasNoTrans, static_cast<blasint>(t.stride(0) > 0 ? t.stride(0) : 1)};
  if (t.stride(0) == 1 && t.stride(1) >= (rows > 1 ? rows : 1) && t.stride(1) < INT_MAX)
    return {t, t.data_ptr(), CblasTrans, static_cast<blasint>(t.stride(1) > 0 ? t.stride(1) : 1)};
  Tensor c = contiguous_as(t, t.scalar_type());
  return {c, c.data_ptr(), CblasNoTrans, static_cast<blasint>(cols > 1 ? cols : 1)};
}

template <typename T, typename acc_t>
void naive_mm(const Tensor& a, const Tensor& b, const Tensor& c) {
  int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  const T* A = a.data<T>();
  const T* B = b.data<T>();
  T* C = c.data<T>();
  int64_t sa0 = a.stride(0), sa1 = a.stride(1), sb0 = b.stride(0), sb1 = b.stride(1);
  parallel_for(M, 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        acc_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += static_cast<acc_t>(A[i * sa0 + k * sa1]) * static_cast<acc_t>(B[k * sb0 + j * sb1]);
        C[i * N + j] = convert<T>(acc);
      }
    }
  });
}

}  // namespace

void kernels::mm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  const ScalarType t = self.scalar_type();
  int64_t M = self.size(0), K = self.size(1), N = mat2.size(1);
  bool direct = out.is_contiguous() && out.scalar_type() == t && !out.is_same(self) && !out.is_same(mat2);
  Tensor c = direct ? out : empty_tensor({M, N}, t);
  if (M == 0 || N == 0) return;
  if (t == ScalarType::Float || t == ScalarType::Double) {
    TL_CHECK(M < INT_MAX && N < INT_MAX && K < INT_MAX, "mm: matrices too large for 32-bit BLAS");
    BlasMatrix a = blas_operand(self), b = blas_operand(mat2);
    blasint m = static_cast<blasint>(M), n = static_cast<blasint>(N), k = static_cast<blasint>(K);
    blasint ldc = static_cast<blasint>(N > 1 ? N : 1);
    if (t == ScalarType::Float) {
      scipy_cblas_sgemm(CblasRowMajor, a.trans, b.trans, m, n, k, 1.0f, static_cast<const float*>(a.data), a.ld,
                        static_cast<const float*>(b.data), b.ld, 0.0f, c.data<float>(), ldc);
    } else {
      scipy_cblas_dgemm(CblasRowMajor, a.trans, b.trans, m, n, k, 1.0, static_cast<const double*>(a.data), a.ld,
                        static_cast<const double*>(b.data), b.ld, 0.0, c.data<double>(), ldc);
    }
  } else {
    switch (t) {
      case ScalarType::UInt8: naive_mm<uint8_t, int64_t>(self, mat2, c); break;
      case ScalarType::Int8: naive_mm<int8_t, int64_t>(self, mat2, c); break;
      case ScalarType::Int16: naive_mm<int16_t, int64_t>(self, mat2, c); break;
      case ScalarType::Int32: naive_mm<int32_t, int64_t>(self, mat2, c); break;
      case ScalarType::Int64: naive_mm<int64_t, int64_t>(self, mat2, c); break;
      case ScalarType::Half: naive_mm<Half, float>(self, mat2, c); break;
      case ScalarType::BFloat16: naive_mm<BFloat16, float>(self, mat2, c); break;
      default: throw_dtype_not_implemented("mm", t);
    }
  }
  if (!direct) copy_cast_cpu(out, c);
}

}  // namespace torchlite
