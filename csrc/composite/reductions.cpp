// Composite reductions: written with other torchlite ops (sum, amax, the var/std kernels,
// comparisons), so their gradients flow through those ops.
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/allclose.h"
#include "kernels/count_nonzero.h"
#include "kernels/count_nonzero_dim_IntList.h"
#include "kernels/equal.h"
#include "kernels/isclose.h"
#include "kernels/logsumexp.h"
#include "kernels/mean.h"
#include "kernels/mean_dim.h"
#include "kernels/nansum.h"
#include "kernels/std.h"
#include "kernels/std_dim.h"
#include "kernels/std_mean.h"
#include "kernels/std_mean_dim.h"
#include "kernels/var.h"
#include "kernels/var_dim.h"
#include "kernels/var_mean.h"
#include "kernels/var_mean_dim.h"
#include "ops/abs.h"
#include "ops/add_Tensor.h"
#include "ops/all.h"
#include "ops/amax.h"
#include "ops/div_Tensor.h"
#include "ops/eq_Tensor.h"
#include "ops/exp.h"
#include "ops/isfinite.h"
#include "ops/isinf.h"
#include "ops/isnan.h"
#include "ops/le_Tensor.h"
#include "ops/log.h"
#include "ops/logical_and.h"
#include "ops/logical_or.h"
#include "ops/mul_Tensor.h"
#include "ops/ne_Tensor.h"
#include "ops/real.h"
#include "ops/std_correction.h"
#include "ops/std_mean_correction.h"
#include "ops/sub_Tensor.h"
#include "ops/sum_dim_IntList.h"
#include "ops/to_dtype.h"
#include "ops/var_correction.h"
#include "ops/var_mean_correction.h"
#include "ops/where_self.h"

namespace torchlite {

namespace {

Tensor number(const Scalar& s) { return scalar_to_tensor(s, /*wrapped=*/true); }

// The number of elements a reduction over dim (all when absent or empty) combines.
int64_t reduced_count(const Tensor& self, std::optional<IntArrayRef> dim) {
  uint64_t mask = reduction_mask(self, dim);
  int64_t n = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (mask >> d & 1) n *= self.size(d);
  return n;
}

std::optional<Scalar> correction_of(bool unbiased) { return Scalar(int64_t(unbiased ? 1 : 0)); }

}  // namespace

// ------------------------------------------------------------------ mean, nansum, count_nonzero

Tensor composite::mean_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                           std::optional<ScalarType> dtype) {
  // The schema's checks refuse a non-floating input or dtype= before this runs; an integral or bool dtype
  // still comes here from out= of that dtype, where PyTorch fails to cast its floating quotient into out.
  ScalarType t = dtype.value_or(self.scalar_type());
  TL_CHECK(is_floating_type(t) || is_complex_type(t), "result type ", scalar_type_name(default_dtype()),
           " can't be cast to the desired output type ", scalar_type_name(t));
  // float16/bfloat16: sum and divide in float, then round once (as PyTorch's CPU mean).
  bool low = t == ScalarType::Half || t == ScalarType::BFloat16;
  Tensor s = torchlite::sum(self, dim, keepdim, low ? ScalarType::Float : t);
  Tensor m = torchlite::div(s, number(Scalar(static_cast<double>(reduced_count(self, dim)))));
  return low ? torchlite::to(m, t) : m;
}

Tensor composite::mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return composite::mean_dim(self, std::nullopt, /*keepdim=*/false, dtype);
}

Tensor composite::nansum(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                         std::optional<ScalarType> dtype) {
  TL_CHECK(!is_complex_type(self.scalar_type()), "nansum does not support complex inputs");
  if (!is_floating_type(self.scalar_type())) return torchlite::sum(self, dim, keepdim, dtype);
  Tensor zero = number(Scalar(0.0));
  return torchlite::sum(torchlite::where(torchlite::isnan(self), zero, self), dim, keepdim, dtype);
}

Tensor composite::count_nonzero_dim_IntList(const Tensor& self, IntArrayRef dim) {
  // A bool tensor is its own mask (ne against an int 0 would compute in int64: a copy 8x its size).
  const Tensor mask = self.scalar_type() == ScalarType::Bool ? self : torchlite::ne(self, number(Scalar(int64_t(0))));
  return torchlite::sum(mask, dim, /*keepdim=*/false, std::nullopt);
}

Tensor composite::count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (dim.has_value()) return composite::count_nonzero_dim_IntList(self, IntArrayRef(*dim));
  return composite::count_nonzero_dim_IntList(self, IntArrayRef());
}

// ------------------------------------------------------------------ logsumexp

Tensor composite::logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  Tensor x = is_integral_type(self.scalar_type(), /*include_bool=*/true) ? torchlite::to(self, default_dtype()) : self;
  if (x.numel() == 0) return torchlite::log(torchlite::sum(torchlite::exp(x), dim, keepdim, std::nullopt));
  // Around the maximum (0 where it is infinite, so inf - inf never appears); of the real parts for complex
  // numbers (the principal logarithm of the sum, as PyTorch's).
  Tensor m = torchlite::amax(is_complex_type(x.scalar_type()) ? torchlite::real(x) : x, dim, /*keepdim=*/true);
  m = torchlite::where(torchlite::isinf(m), number(Scalar(0.0)), m);
  Tensor s = torchlite::sum(torchlite::exp(torchlite::sub(x, m)), dim, keepdim, std::nullopt);
  // Summing over the size-1 dims drops them when !keepdim.
  Tensor shift = keepdim ? m : torchlite::sum(m, dim, /*keepdim=*/false, std::nullopt);
  return torchlite::add(torchlite::log(s), shift);
}

// ------------------------------------------------------------------ var, std (legacy `unbiased` overloads)

Tensor composite::var(const Tensor& self, bool unbiased) {
  return torchlite::var(self, std::nullopt, correction_of(unbiased), /*keepdim=*/false);
}

Tensor composite::var_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return torchlite::var(self, dim, correction_of(unbiased), keepdim);
}

Tensor composite::std(const Tensor& self, bool unbiased) {
  return torchlite::std(self, std::nullopt, correction_of(unbiased), /*keepdim=*/false);
}

Tensor composite::std_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return torchlite::std(self, dim, correction_of(unbiased), keepdim);
}

std::tuple<Tensor, Tensor> composite::var_mean(const Tensor& self, bool unbiased) {
  return torchlite::var_mean(self, std::nullopt, correction_of(unbiased), /*keepdim=*/false);
}

std::tuple<Tensor, Tensor> composite::var_mean_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased,
                                                   bool keepdim) {
  return torchlite::var_mean(self, dim, correction_of(unbiased), keepdim);
}

std::tuple<Tensor, Tensor> composite::std_mean(const Tensor& self, bool unbiased) {
  return torchlite::std_mean(self, std::nullopt, correction_of(unbiased), /*keepdim=*/false);
}

std::tuple<Tensor, Tensor> composite::std_mean_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased,
                                                   bool keepdim) {
  return torchlite::std_mean(self, dim, correction_of(unbiased), keepdim);
}

// ------------------------------------------------------------------ isclose, allclose, equal

Tensor composite::isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  TL_CHECK(self.scalar_type() == other.scalar_type(), scalar_type_name(self.scalar_type()), " did not match ",
           scalar_type_name(other.scalar_type()));
  TL_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  TL_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = torchlite::eq(self, other);
  if (equal_nan && is_floating_type(self.scalar_type()))
    close = torchlite::logical_or(close, torchlite::logical_and(torchlite::isnan(self), torchlite::isnan(other)));
  if (rtol == 0 && atol == 0) return close;
  // As PyTorch: rtol * other is floating (the default dtype for integers), bool becomes the default dtype.
  bool is_bool = self.scalar_type() == ScalarType::Bool;
  Tensor a = is_bool ? torchlite::to(self, default_dtype()) : self;
  Tensor b = is_bool ? torchlite::to(other, default_dtype()) : other;
  Tensor allowed = torchlite::add(torchlite::abs(torchlite::mul(b, number(Scalar(rtol)))), number(Scalar(atol)));
  Tensor actual = torchlite::abs(torchlite::sub(a, b));
  return torchlite::logical_or(close, torchlite::logical_and(torchlite::isfinite(actual), torchlite::le(actual, allowed)));
}

bool composite::allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  Tensor close = torchlite::all(composite::isclose(self, other, rtol, atol, equal_nan), std::nullopt, false);
  return item(close).to_bool();
}

bool composite::equal(const Tensor& self, const Tensor& other) {
  if (!self.sizes().equals(other.sizes())) return false;
  return item(torchlite::all(torchlite::eq(self, other), std::nullopt, false)).to_bool();
}

}  // namespace torchlite
