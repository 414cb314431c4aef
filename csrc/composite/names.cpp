// Composites of issue 18's "names code still calls": PyTorch's deprecated overloads, and small
// documented functions written with other torchlite ops (so autograd flows through them).
#include <limits>
#include <string>
#include <tuple>

#include "composite/Numbers.h"
#include "core/Error.h"
#include "kernels/add_deprecated.h"
#include "kernels/addcdiv_deprecated.h"
#include "kernels/addcmul_deprecated.h"
#include "kernels/addmm_deprecated.h"
#include "kernels/addmm_deprecated_beta.h"
#include "kernels/column_stack.h"
#include "kernels/diagflat.h"
#include "kernels/diff.h"
#include "kernels/dist.h"
#include "kernels/dsplit_array.h"
#include "kernels/dsplit_int.h"
#include "kernels/float_power_Scalar.h"
#include "kernels/float_power_Tensor_Scalar.h"
#include "kernels/float_power_Tensor_Tensor.h"
#include "kernels/hsplit_array.h"
#include "kernels/hsplit_int.h"
#include "kernels/inner.h"
#include "kernels/ldexp.h"
#include "kernels/logcumsumexp.h"
#include "kernels/msort.h"
#include "kernels/nanmean.h"
#include "kernels/ravel.h"
#include "kernels/row_stack.h"
#include "kernels/sub_deprecated.h"
#include "kernels/tril_indices.h"
#include "kernels/triu_indices.h"
#include "kernels/vsplit_array.h"
#include "kernels/vsplit_int.h"
#include "ops/add_Tensor.h"
#include "ops/addcdiv.h"
#include "ops/addcmul.h"
#include "ops/addmm.h"
#include "ops/arange.h"
#include "ops/cat.h"
#include "ops/clone.h"
#include "ops/contiguous.h"
#include "ops/diag.h"
#include "ops/full.h"
#include "ops/hstack.h"
#include "ops/isnan.h"
#include "ops/le_Tensor.h"
#include "ops/linalg_vector_norm.h"
#include "ops/ge_Tensor.h"
#include "ops/logaddexp.h"
#include "ops/logical_not.h"
#include "ops/logical_xor.h"
#include "ops/mul_Tensor.h"
#include "ops/nansum.h"
#include "ops/narrow.h"
#include "ops/nonzero.h"
#include "ops/norm.h"
#include "ops/pow_Scalar.h"
#include "ops/pow_Tensor_Scalar.h"
#include "ops/pow_Tensor_Tensor.h"
#include "ops/reshape.h"
#include "ops/sort.h"
#include "ops/sub_Tensor.h"
#include "ops/sum_dim_IntList.h"
#include "ops/t.h"
#include "ops/tensor_split_indices.h"
#include "ops/tensor_split_sections.h"
#include "ops/tensordot.h"
#include "ops/to_dtype.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"
#include "ops/vstack.h"

namespace torchlite {

// ------------------------------------------------------------------ deprecated overloads

Tensor composite::add_deprecated(const Tensor& self, const Scalar& alpha, const Tensor& other) {
  return torchlite::add(self, other, alpha);
}
Tensor composite::sub_deprecated(const Tensor& self, const Scalar& alpha, const Tensor& other) {
  return torchlite::sub(self, other, alpha);
}
Tensor composite::addcmul_deprecated(const Tensor& self, const Scalar& value, const Tensor& tensor1,
                                     const Tensor& tensor2) {
  return torchlite::addcmul(self, tensor1, tensor2, value);
}
Tensor composite::addcdiv_deprecated(const Tensor& self, const Scalar& value, const Tensor& tensor1,
                                     const Tensor& tensor2) {
  return torchlite::addcdiv(self, tensor1, tensor2, value);
}
Tensor composite::addmm_deprecated(const Scalar& beta, const Tensor& self, const Scalar& alpha, const Tensor& mat1,
                                   const Tensor& mat2) {
  return torchlite::addmm(self, mat1, mat2, beta, alpha);
}
Tensor composite::addmm_deprecated_beta(const Scalar& beta, const Tensor& self, const Tensor& mat1,
                                        const Tensor& mat2) {
  return torchlite::addmm(self, mat1, mat2, beta);
}

// ------------------------------------------------------------------ pointwise

// float_power computes in double precision: the result is float64 whatever the inputs (complex128 for a
// complex one, for which pow then raises NotImplementedError until it has complex kernels).
static ScalarType float_power_dtype(bool complex) { return complex ? ScalarType::ComplexDouble : ScalarType::Double; }
Tensor composite::float_power_Tensor_Tensor(const Tensor& self, const Tensor& exponent) {
  const ScalarType t =
      float_power_dtype(is_complex_type(self.scalar_type()) || is_complex_type(exponent.scalar_type()));
  return torchlite::pow(torchlite::to(self, t), torchlite::to(exponent, t));
}
Tensor composite::float_power_Tensor_Scalar(const Tensor& self, const Scalar& exponent) {
  return torchlite::pow(torchlite::to(self, float_power_dtype(is_complex_type(self.scalar_type()) ||
                                                              exponent.is_complex())),
                        exponent);
}
Tensor composite::float_power_Scalar(const Scalar& self, const Tensor& exponent) {
  return torchlite::pow(self, torchlite::to(exponent, float_power_dtype(self.is_complex() ||
                                                                        is_complex_type(exponent.scalar_type()))));
}

// self * 2^other, in the default float dtype for integer inputs (as PyTorch). The power is taken in the
// result's floating dtype, so a negative integer exponent gives a fraction.
Tensor composite::ldexp(const Tensor& self, const Tensor& other) {
  ScalarType t = promote_types(self.scalar_type(), other.scalar_type());
  if (!is_floating_type(t)) t = default_dtype();
  return torchlite::mul(self, torchlite::pow(Scalar(2.0), torchlite::to(other, t)));
}

// ------------------------------------------------------------------ shapes and joins

Tensor composite::ravel(const Tensor& self) { return torchlite::reshape(self, IntArrayRef(int64_t(-1))); }

Tensor composite::msort(const Tensor& self) {
  if (self.dim() == 0) return torchlite::clone(self);
  return std::get<0>(torchlite::sort(self, 0));
}

Tensor composite::diagflat(const Tensor& self, int64_t offset) {
  return torchlite::diag(torchlite::reshape(self, IntArrayRef(int64_t(-1))), offset);
}

Tensor composite::column_stack(ArrayRef<Tensor> tensors) {
  TL_CHECK(!tensors.empty(), "column_stack expects a non-empty TensorList");
  std::vector<Tensor> cols;
  for (const Tensor& t : tensors) {
    cols.push_back(t.dim() <= 1 ? torchlite::reshape(t, IntArrayRef({t.numel(), int64_t(1)})) : t);
  }
  return torchlite::hstack(cols);
}

Tensor composite::row_stack(ArrayRef<Tensor> tensors) { return torchlite::vstack(tensors); }

namespace {

// hsplit/vsplit/dsplit: tensor_split along `dim` after PyTorch's checks.
void check_dir_split(const char* op, const Tensor& self, int64_t min_dim) {
  TL_CHECK(self.dim() >= min_dim, "torch.", op, " requires a tensor with at least ", min_dim,
           " dimension, but got a tensor with ", self.dim(), " dimensions!");
}

std::vector<Tensor> dir_split(const char* op, const Tensor& self, int64_t min_dim, int64_t dim, int64_t sections) {
  check_dir_split(op, self, min_dim);
  TL_CHECK(sections != 0 && self.sizes()[dim] % sections == 0, "torch.", op,
           " attempted to split along dimension ", dim, ", but the size of the dimension ", self.sizes()[dim],
           " is not divisible by the split_size ", sections, "!");
  return torchlite::tensor_split(self, sections, dim);
}

}  // namespace

std::vector<Tensor> composite::hsplit_int(const Tensor& self, int64_t sections) {
  return dir_split("hsplit", self, 1, self.dim() == 1 ? 0 : 1, sections);
}
std::vector<Tensor> composite::hsplit_array(const Tensor& self, IntArrayRef indices) {
  check_dir_split("hsplit", self, 1);
  return torchlite::tensor_split(self, indices, self.dim() == 1 ? 0 : 1);
}
std::vector<Tensor> composite::vsplit_int(const Tensor& self, int64_t sections) {
  return dir_split("vsplit", self, 2, 0, sections);
}
std::vector<Tensor> composite::vsplit_array(const Tensor& self, IntArrayRef indices) {
  check_dir_split("vsplit", self, 2);
  return torchlite::tensor_split(self, indices, 0);
}
std::vector<Tensor> composite::dsplit_int(const Tensor& self, int64_t sections) {
  return dir_split("dsplit", self, 3, 2, sections);
}
std::vector<Tensor> composite::dsplit_array(const Tensor& self, IntArrayRef indices) {
  check_dir_split("dsplit", self, 3);
  return torchlite::tensor_split(self, indices, 2);
}

// ------------------------------------------------------------------ products and differences

Tensor composite::inner(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return torchlite::mul(self, other);
  TL_CHECK(self.sizes()[self.dim() - 1] == other.sizes()[other.dim() - 1],
           "inner() the last dimension must match on both input tensors but got shapes ", self.sizes(), " and ",
           other.sizes());
  return torchlite::tensordot(self, other, IntArrayRef(self.dim() - 1), IntArrayRef(other.dim() - 1));
}

Tensor composite::dist(const Tensor& self, const Tensor& other, const Scalar& p) {
  return torchlite::linalg_vector_norm(torchlite::sub(self, other), p);  // (complex: the moduli's norm)
}

Tensor composite::diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                       const std::optional<Tensor>& append) {
  TL_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  TL_CHECK(n >= 0, "order must be non-negative but got ", n);
  dim = self.wrap_dim(dim);
  Tensor x = self;
  if (prepend || append) {
    std::vector<Tensor> parts;
    if (prepend) {
      TL_CHECK(prepend->dim() == self.dim(), "diff expects prepend or append to be the same dimension as input");
      parts.push_back(*prepend);
    }
    parts.push_back(self);
    if (append) {
      TL_CHECK(append->dim() == self.dim(), "diff expects prepend or append to be the same dimension as input");
      parts.push_back(*append);
    }
    x = torchlite::cat(parts, dim);
  }
  for (int64_t k = 0; k < n && x.sizes()[dim] > 0; ++k) {
    int64_t len = x.sizes()[dim] - 1;
    Tensor hi = torchlite::narrow(x, dim, 1, len), lo = torchlite::narrow(x, dim, 0, len);
    x = x.scalar_type() == ScalarType::Bool ? torchlite::logical_xor(hi, lo) : torchlite::sub(hi, lo);
  }
  return x.is_same(self) ? torchlite::clone(self) : x;
}

// An inclusive scan with logaddexp (log2(n) steps: each element meets the one `step` places back, the first
// `step` elements stay), exact for any range of values, where exp then cumsum would overflow or underflow. No
// padding with -inf, whose second derivative through logaddexp would be NaN. (On complex inputs PyTorch's
// sequential scan may land on another branch of the imaginary part, 2 pi apart; and it starts from -inf + 0j, so
// a first element with real part -inf comes out with imaginary part 0 there; here it keeps its own.)
Tensor composite::logcumsumexp(const Tensor& self, int64_t dim) {
  TL_CHECK_KIND(ErrorKind::NotImplemented, is_floating_type(self.scalar_type()) || is_complex_type(self.scalar_type()),
                "\"logcumsumexp_out_cpu\" not implemented for '", scalar_type_name(self.scalar_type()), "'");
  if (self.dim() == 0) return torchlite::clone(self);
  dim = self.wrap_dim(dim);
  int64_t n = self.sizes()[dim];
  Tensor y = self;
  for (int64_t step = 1; step < n; step *= 2) {
    Tensor head = torchlite::narrow(y, dim, 0, step);
    Tensor tail = torchlite::logaddexp(torchlite::narrow(y, dim, step, n - step),
                                       torchlite::narrow(y, dim, 0, n - step));
    y = torchlite::cat(std::vector<Tensor>{head, tail}, dim);
  }
  return y.is_same(self) ? torchlite::clone(self) : y;
}

// ------------------------------------------------------------------ factories

namespace {

Tensor tri_indices(const char* op, int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                   std::optional<Device> device, bool lower) {
  TL_CHECK(row >= 0, "row must be non-negative, got", row);
  TL_CHECK(col >= 0, "col must be non-negative, got", col);
  ScalarType t = dtype.value_or(ScalarType::Int64);
  TL_CHECK_KIND(ErrorKind::NotImplemented, is_integral_type(t, false), "\"", op, "\" not implemented for '",
                scalar_type_name(t), "'");
  Tensor r = torchlite::unsqueeze(torchlite::arange(int64_t(0), row, int64_t(1), ScalarType::Int64, device), 1);
  Tensor c = torchlite::unsqueeze(torchlite::arange(int64_t(0), col, int64_t(1), ScalarType::Int64, device), 0);
  Tensor diag = torchlite::sub(c, r);  // column - row: 0 on the main diagonal
  Tensor mask = lower ? torchlite::le(diag, number(offset)) : torchlite::ge(diag, number(offset));
  return torchlite::to(torchlite::contiguous(torchlite::t(torchlite::nonzero(mask))), t);
}

}  // namespace

Tensor composite::tril_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                               std::optional<Device> device) {
  return tri_indices("tril_indices", row, col, offset, dtype, device, true);
}
Tensor composite::triu_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                               std::optional<Device> device) {
  return tri_indices("triu_indices", row, col, offset, dtype, device, false);
}

// ------------------------------------------------------------------ reductions

Tensor composite::nanmean(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  TL_CHECK(is_floating_type(self.scalar_type()),
           "nanmean(): expected input to have floating point or complex dtype but got ",
           scalar_type_name(self.scalar_type()));
  Tensor count = torchlite::sum(torchlite::logical_not(torchlite::isnan(self)), dim, keepdim);
  return torchlite::div(torchlite::nansum(self, dim, keepdim, dtype), count);
}

}  // namespace torchlite
