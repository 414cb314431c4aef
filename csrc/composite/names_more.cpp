// More composites of issue 18's names: copies and scatters into slices, sums to a size, statistics
// (cov, corrcoef, quantile), integration (trapezoid), renorm, frexp, put, index_reduce and multinomial.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "composite/Numbers.h"
#include "core/Error.h"
#include "core/Promotion.h"
#include "core/TensorFactory.h"
#include "kernels/addr.h"
#include "kernels/bartlett_window.h"
#include "kernels/bartlett_window_periodic.h"
#include "kernels/blackman_window.h"
#include "kernels/blackman_window_periodic.h"
#include "kernels/hamming_window.h"
#include "kernels/hamming_window_periodic.h"
#include "kernels/hamming_window_periodic_alpha.h"
#include "kernels/hamming_window_periodic_alpha_beta.h"
#include "kernels/hann_window.h"
#include "kernels/hann_window_periodic.h"
#include "kernels/kaiser_window.h"
#include "kernels/kaiser_window_beta.h"
#include "kernels/kaiser_window_periodic.h"
#include "kernels/corrcoef.h"
#include "kernels/cov.h"
#include "kernels/cumulative_trapezoid_dx.h"
#include "kernels/cumulative_trapezoid_x.h"
#include "kernels/diagonal_scatter.h"
#include "kernels/frexp_Tensor.h"
#include "kernels/index_reduce.h"
#include "kernels/isreal.h"
#include "kernels/multinomial.h"
#include "kernels/nanquantile.h"
#include "kernels/nanquantile_scalar.h"
#include "kernels/narrow_copy.h"
#include "kernels/put.h"
#include "kernels/quantile.h"
#include "kernels/quantile_scalar.h"
#include "kernels/renorm.h"
#include "kernels/select_scatter.h"
#include "kernels/slice_scatter.h"
#include "kernels/sum_to_size.h"
#include "kernels/trapezoid_dx.h"
#include "kernels/trapezoid_x.h"
#include "kernels/trapz_dx.h"
#include "kernels/trapz_x.h"
#include "ops/_slice.h"
#include "ops/abs.h"
#include "ops/contiguous.h"
#include "ops/cat.h"
#include "ops/complex.h"
#include "ops/conj.h"
#include "ops/imag.h"
#include "ops/real.h"
#include "ops/kthvalue.h"
#include "ops/add_Tensor.h"
#include "ops/all.h"
#include "ops/any.h"
#include "ops/ceil.h"
#include "ops/cos.h"
#include "ops/empty.h"
#include "ops/arange.h"
#include "ops/ones_like.h"
#include "ops/clamp.h"
#include "ops/clone.h"
#include "ops/copy.h"
#include "ops/cumsum.h"
#include "ops/diag.h"
#include "ops/diagonal.h"
#include "ops/div_Tensor.h"
#include "ops/eq_Tensor.h"
#include "ops/expand.h"
#include "ops/floor.h"
#include "ops/full.h"
#include "ops/gather.h"
#include "ops/ge_Tensor.h"
#include "ops/gt_Tensor.h"
#include "ops/index_select.h"
#include "ops/index_put.h"
#include "ops/isfinite.h"
#include "ops/isnan.h"
#include "ops/lerp_Tensor.h"
#include "ops/linalg_vector_norm.h"
#include "ops/log.h"
#include "ops/log2.h"
#include "ops/logical_not.h"
#include "ops/logical_or.h"
#include "ops/lt_Tensor.h"
#include "ops/le_Tensor.h"
#include "ops/logical_and.h"
#include "ops/mean_dim.h"
#include "ops/movedim_int.h"
#include "ops/ne_Tensor.h"
#include "ops/round.h"
#include "ops/matmul.h"
#include "ops/mul_Tensor.h"
#include "ops/narrow.h"
#include "ops/norm.h"
#include "ops/ones_like.h"
#include "ops/outer.h"
#include "ops/permute.h"
#include "ops/pow_Scalar.h"
#include "ops/rand.h"
#include "ops/reshape.h"
#include "ops/scatter_reduce_two.h"
#include "ops/searchsorted_Tensor.h"
#include "ops/select_int.h"
#include "ops/sort.h"
#include "ops/sqrt.h"
#include "ops/squeeze_dim.h"
#include "ops/sub_Tensor.h"
#include "ops/sum.h"
#include "ops/sum_dim_IntList.h"
#include "ops/t.h"
#include "ops/to_device.h"
#include "ops/to_dtype.h"
#include "ops/topk.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"
#include "ops/where_self.h"
#include "ops/zeros_like.h"

namespace torchlite {

namespace {

Tensor flat(const Tensor& t) { return torchlite::reshape(t, IntArrayRef(int64_t(-1))); }

void check_scatter_src(const Tensor& slice, const Tensor& src) {
  TL_CHECK(slice.sizes().equals(src.sizes()), "expected src to have a size equal to the slice of self. src size = ",
           src.sizes(), ", slice size = ", slice.sizes());
}

}  // namespace

Tensor composite::narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return torchlite::clone(torchlite::narrow(self, dim, start, length));
}

Tensor composite::addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                       const Scalar& alpha) {
  TL_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  TL_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  // PyTorch's check_addr_scalar, then the checked conversion of beta and alpha to the result's dtype
  ResultTypeState state;
  update_result_type(state, self);
  update_result_type(state, vec1);
  update_result_type(state, vec2);
  ScalarType result = result_type(state);
  for (const auto& [scalar, name] : {std::pair<const Scalar*, const char*>{&beta, "beta"}, {&alpha, "alpha"}}) {
    TL_CHECK(is_floating_type(result) || is_complex_type(result) || scalar->is_integral(true),
             "For integral input tensors, argument ", name,
             " must not be a floating point number.");
    check_scalar_fits("addr", *scalar, result);
  }
  if (result == ScalarType::Bool) {  // PyTorch's bool kernel: (beta && self) || (alpha && vec1 && vec2)
    Tensor o = torchlite::logical_and(torchlite::unsqueeze(vec1, 1), torchlite::unsqueeze(vec2, 0));
    if (!alpha.to<bool>()) o = torchlite::zeros_like(o);
    Tensor s = beta.to<bool>() ? self : torchlite::zeros_like(self);
    return torchlite::logical_or(s, o);
  }
  Tensor prod = torchlite::mul(torchlite::outer(vec1, vec2), number(alpha));
  if (beta.to_complex() == Complex<double>(0)) {  // self ignored, NaN included; its shape and dtype still count
    return torchlite::add(prod, torchlite::mul(torchlite::zeros_like(self), number(int64_t(0))));
  }
  return torchlite::add(torchlite::mul(self, number(beta)), prod);
}

// The scatters: self with src written into a slice of it (the view taken only for its checks), built as
// where(mask, src spread out to self's shape by index_select, self): no in-place write, so every derivative
// order comes from where and index_select.
namespace {

// A host int64 tensor of `values` on `device`.
Tensor index_tensor(const std::vector<int64_t>& values, Device device) {
  Tensor t = empty_tensor(IntArrayRef(static_cast<int64_t>(values.size())), ScalarType::Int64, Device{DeviceType::CPU});
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return device.is_cpu() ? t : torchlite::to(t, device, std::nullopt);
}

// sizes of `ndim` ones with `n` at `dim`: a 1-dim tensor laid along dim of a tensor of ndim dims.
DimVector along(int64_t ndim, int64_t dim, int64_t n) {
  DimVector shape(static_cast<size_t>(ndim), 1);
  shape[static_cast<size_t>(dim)] = n;
  return shape;
}

// self's positions p along dim where p = first + j * step (j < count) take src's slice j.
Tensor scatter_along(const Tensor& self, const Tensor& src, int64_t dim, int64_t first, int64_t step, int64_t count) {
  if (count == 0) return torchlite::clone(self);
  int64_t n = self.sizes()[dim];
  std::vector<int64_t> take(static_cast<size_t>(n), 0), hit(static_cast<size_t>(n), 0);
  for (int64_t j = 0; j < count; ++j) {
    take[static_cast<size_t>(first + j * step)] = j;
    hit[static_cast<size_t>(first + j * step)] = 1;
  }
  Tensor spread = torchlite::index_select(torchlite::to(src, self.scalar_type()), dim, index_tensor(take, self.device()));
  Tensor mask = torchlite::reshape(torchlite::ne(index_tensor(hit, self.device()), number(int64_t(0))),
                                   along(self.dim(), dim, n).ref());
  return torchlite::where(mask, spread, self);
}

}  // namespace

Tensor composite::select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  check_scatter_src(torchlite::select(self, dim, index), src);  // select's checks of dim and index, then the shape
  int64_t d = self.wrap_dim(dim);
  int64_t i = index < 0 ? index + self.sizes()[d] : index;
  return scatter_along(self, torchlite::unsqueeze(src, d), d, i, 1, 1);
}

Tensor composite::slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                                std::optional<int64_t> end, int64_t step) {
  Tensor view = torchlite::_slice(self, dim, start, end, step);  // its checks (step > 0, dim)
  check_scatter_src(view, src);
  int64_t d = self.wrap_dim(dim), n = self.sizes()[d];
  int64_t first = start.value_or(0);
  if (first < 0) first += n;
  first = std::min(std::max<int64_t>(first, 0), n);
  return scatter_along(self, src, d, first, step, view.sizes()[d]);
}

Tensor composite::diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1,
                                   int64_t dim2) {
  check_scatter_src(torchlite::diagonal(self, offset, dim1, dim2), src);  // diagonal's checks, then the shape
  int64_t d1 = self.wrap_dim(dim1), d2 = self.wrap_dim(dim2), nd = self.dim();
  int64_t n1 = self.sizes()[d1], n2 = self.sizes()[d2], length = src.sizes()[src.dim() - 1];
  if (length == 0) return torchlite::clone(self);
  int64_t r0 = std::max<int64_t>(-offset, 0);
  // src (others..., L) -> (others..., n1, n2): row i of the plane takes diagonal element i - r0.
  std::vector<int64_t> rows(static_cast<size_t>(n1));
  for (int64_t i = 0; i < n1; ++i) rows[static_cast<size_t>(i)] = std::min(std::max<int64_t>(i - r0, 0), length - 1);
  Tensor spread = torchlite::unsqueeze(torchlite::index_select(torchlite::to(src, self.scalar_type()), -1,
                                                               index_tensor(rows, self.device())), -1);
  DimVector plane(src.sizes());
  plane[plane.size() - 1] = n1;
  plane.push_back(n2);
  spread = torchlite::expand(spread, plane.ref());
  // back to self's dim order: the others in order, d1 and d2 at their places
  DimVector perm;
  int64_t other = 0;
  for (int64_t t = 0; t < nd; ++t) perm.push_back(t == d1 ? nd - 2 : t == d2 ? nd - 1 : other++);
  spread = torchlite::permute(spread, perm.ref());
  std::vector<int64_t> hit(static_cast<size_t>(n1 * n2), 0);
  for (int64_t i = 0; i < n1; ++i)
    for (int64_t j = 0; j < n2; ++j) hit[static_cast<size_t>(i * n2 + j)] = j - i == offset;
  DimVector mshape(static_cast<size_t>(nd), 1);
  mshape[static_cast<size_t>(d1)] = n1;
  mshape[static_cast<size_t>(d2)] = n2;
  Tensor mask = torchlite::ne(index_tensor(hit, self.device()), number(int64_t(0)));
  mask = torchlite::reshape(d1 < d2 ? mask : torchlite::t(torchlite::reshape(mask, IntArrayRef({n1, n2}))),
                            mshape.ref());
  return torchlite::where(mask, spread, self);
}

Tensor composite::sum_to_size(const Tensor& self, IntArrayRef size) {
  int64_t lead = self.dim() - static_cast<int64_t>(size.size());
  bool ok = lead >= 0;
  DimVector dims;
  for (int64_t d = 0; ok && d < self.dim(); ++d) {
    if (d < lead) {
      dims.push_back(d);
      continue;
    }
    int64_t want = size[static_cast<size_t>(d - lead)], have = self.sizes()[d];
    if (want == 1 && have != 1) dims.push_back(d);
    else ok = want == have;
  }
  TL_CHECK(ok, "size {", size, "} is not expandable to size {", self.sizes(), "}.");
  if (dims.size() == 0) return self;
  Tensor s = torchlite::sum(self, dims.ref(), /*keepdim=*/true);
  return torchlite::reshape(s, size);
}

Tensor composite::isreal(const Tensor& self) {
  // A complex element is real when its imaginary part is 0; any other dtype is real throughout.
  if (is_complex_type(self.scalar_type())) return torchlite::eq(torchlite::imag(self), number(Scalar(0.0)));
  return torchlite::eq(torchlite::zeros_like(self, ScalarType::Bool), torchlite::zeros_like(self, ScalarType::Bool));
}

Tensor composite::renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  TL_CHECK(maxnorm.to<double>() >= 0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm.to<double>());
  TL_CHECK(p.to<double>() > 0, "renorm: non-positive-norm not supported");
  TL_CHECK(self.dim() > 1, "renorm: input needs at least 2 dimensions, got ", self.dim(), " dimensions");
  dim = self.wrap_dim(dim);
  DimVector others;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != dim) others.push_back(d);
  Tensor norms = torchlite::linalg_vector_norm(self, p, others.ref(), /*keepdim=*/true);  // real for complex self
  // PyTorch's factor: maxnorm / (norm + 1e-7) where the norm exceeds maxnorm, else 1.
  Tensor factor = torchlite::where(torchlite::gt(norms, number(maxnorm)),
                                   torchlite::div(number(maxnorm), torchlite::add(norms, number(1e-7))),
                                   number(1.0));
  return torchlite::mul(self, factor);
}

// From log2: exponent = floor(log2|x|) + 1, in float64 (the subnormal and largest float32 values included).
// log2 of a float32, float16 or bfloat16 value is exact enough in float64 for the floor; a float64 value just
// below a power of two rounds up there, so for float64 the mantissa then corrects the exponent by one.
// One temporary at a time (each statement replaces the last), so the peak stays a few times the input.
std::tuple<Tensor, Tensor> composite::frexp_Tensor(const Tensor& self) {
  TL_CHECK(is_floating_type(self.scalar_type()), "torch.frexp() only supports floating-point dtypes");
  Tensor x = torchlite::to(self, ScalarType::Double);
  Tensor finite = torchlite::logical_and(torchlite::isfinite(x), torchlite::ne(x, number(0.0)));
  Tensor e = torchlite::abs(x);
  e = torchlite::where(finite, e, number(1.0));
  e = torchlite::log2(e);
  e = torchlite::floor(e);
  e = torchlite::add(e, number(1.0));
  Tensor m = torchlite::pow(Scalar(2.0), e);
  m = torchlite::div(x, m);
  if (self.scalar_type() == ScalarType::Double) {
    Tensor a = torchlite::abs(m);
    e = torchlite::add(e, torchlite::to(torchlite::ge(a, number(1.0)), ScalarType::Double));
    e = torchlite::sub(e, torchlite::to(torchlite::lt(a, number(0.5)), ScalarType::Double));
    a = Tensor();
    m = torchlite::pow(Scalar(2.0), e);
    m = torchlite::div(x, m);
  }
  m = torchlite::where(finite, m, x);
  m = torchlite::to(m, self.scalar_type());
  x = Tensor();
  e = torchlite::where(finite, e, number(0.0));
  return {m, torchlite::to(e, ScalarType::Int32)};
}

// ------------------------------------------------------------------ statistics

Tensor composite::cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
                      const std::optional<Tensor>& aweights) {
  TL_CHECK(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ",
           self.dim(), " dimensions");
  Tensor x = self.dim() < 2 ? torchlite::reshape(self, IntArrayRef({int64_t(1), int64_t(-1)})) : self;
  const bool complex = is_complex_type(x.scalar_type());
  if (!complex && !is_floating_type(x.scalar_type())) x = torchlite::to(x, default_dtype());
  int64_t n = x.sizes()[1];
  std::optional<Tensor> w;
  if (fweights) {
    TL_CHECK(fweights->dim() <= 1, "cov(): expected fweights to have one or fewer dimensions but got fweights "
             "with ", fweights->dim(), " dimensions");
    TL_CHECK(is_integral_type(fweights->scalar_type(), false), "cov(): expected fweights to have integral dtype "
             "but got fweights with ", scalar_type_name(fweights->scalar_type()), " dtype");
    TL_CHECK(fweights->numel() == n, "cov(): expected fweights to have the same numel as there are observations "
             "in the input but got ", fweights->numel(), " != ", n);
    TL_CHECK(!item(torchlite::any(torchlite::lt(*fweights, number(int64_t(0))))).to<bool>(),
             "cov(): fweights cannot be negative");
    w = *fweights;
  }
  if (aweights) {
    TL_CHECK(aweights->dim() <= 1, "cov(): expected aweights to have one or fewer dimensions but got aweights "
             "with ", aweights->dim(), " dimensions");
    TL_CHECK(is_floating_type(aweights->scalar_type()), "cov(): expected aweights to have floating point dtype "
             "but got aweights with ", scalar_type_name(aweights->scalar_type()), " dtype");
    TL_CHECK(aweights->numel() == n, "cov(): expected aweights to have the same numel as there are observations "
             "in the input but got ", aweights->numel(), " != ", n);
    TL_CHECK(!item(torchlite::any(torchlite::lt(*aweights, number(0.0)))).to<bool>(),
             "cov(): aweights cannot be negative");
    w = w ? torchlite::mul(*w, *aweights) : *aweights;
  }
  Tensor avg, w_sum, norm_factor;
  if (w) {
    w_sum = torchlite::sum(*w);
    avg = torchlite::div(torchlite::sum(torchlite::mul(x, *w), IntArrayRef(int64_t(1))), w_sum);
    if (correction == 0) {
      norm_factor = w_sum;
    } else if (!aweights) {
      norm_factor = torchlite::sub(w_sum, number(correction));
    } else {
      Tensor wa = torchlite::sum(torchlite::mul(*w, *aweights));
      norm_factor = torchlite::sub(w_sum, torchlite::div(torchlite::mul(wa, number(correction)), w_sum));
    }
  } else {
    avg = torchlite::mean(x, IntArrayRef(int64_t(1)));
    norm_factor = torchlite::full(IntArrayRef(), static_cast<double>(n - correction), to_real_type(x.scalar_type()),
                                  x.device());
  }
  // A non-positive factor makes the result inf or NaN, as PyTorch (which also warns).
  norm_factor = torchlite::clamp(norm_factor, Scalar(0.0), std::nullopt);
  Tensor xm = torchlite::sub(x, torchlite::unsqueeze(avg, 1));
  Tensor xw = w ? torchlite::mul(xm, *w) : xm;
  Tensor xt = torchlite::t(xm);  // complex observations: X X^H
  Tensor c = torchlite::div(torchlite::matmul(xw, complex ? torchlite::conj(xt) : xt), norm_factor);
  return self.dim() < 2 || x.sizes()[0] == 1 ? torchlite::reshape(c, IntArrayRef()) : c;
}

Tensor composite::corrcoef(const Tensor& self) {
  TL_CHECK(self.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
           self.dim(), " dimensions");
  Tensor c = composite::cov(self, 1, std::nullopt, std::nullopt);
  if (c.dim() == 0) return torchlite::div(c, c);
  const bool complex = is_complex_type(c.scalar_type());
  Tensor d = torchlite::diag(c);
  d = torchlite::sqrt(complex ? torchlite::real(d) : d);  // a complex covariance's diagonal is real
  c = torchlite::div(torchlite::div(c, torchlite::unsqueeze(d, 1)), torchlite::unsqueeze(d, 0));
  auto clip = [](const Tensor& t) { return torchlite::clamp(t, Scalar(-1.0), Scalar(1.0)); };
  return complex ? torchlite::complex(clip(torchlite::real(c)), clip(torchlite::imag(c))) : clip(c);
}

// ------------------------------------------------------------------ integration

namespace {

// PyTorch's formulas, step for step (so integer y adds in its own dtype before a float factor makes the
// result floating, as PyTorch's does): with sample points, ((dx * (y[:-1] + y[1:])) / 2).sum(dim) and its
// cumsum / 2; with a spacing, (y.sum(dim) - (y[0] + y[-1]) * 0.5) * dx and (dx / 2 * (y[:-1] + y[1:])).cumsum(dim).
Tensor pair_sums(const Tensor& y, int64_t dim) {
  return torchlite::add(torchlite::_slice(y, dim, int64_t(0), int64_t(-1), 1),
                        torchlite::_slice(y, dim, int64_t(1), std::nullopt, 1));
}

// x[1:] - x[:-1] along dim, x laid along dim when 1-dim, or with leading dims of size 1 added up to y's.
Tensor x_spacing(const char* op, const Tensor& y, const Tensor& x, int64_t dim) {
  Tensor xv = x;
  if (x.dim() == 1) {
    TL_CHECK(x.sizes()[0] == y.sizes()[dim], op, ": There must be one `x` value for each sample point");
    DimVector shape(static_cast<size_t>(y.dim()), 1);
    shape[static_cast<size_t>(dim)] = x.sizes()[0];
    xv = torchlite::reshape(x, shape.ref());
  } else if (x.dim() < y.dim()) {
    DimVector shape(static_cast<size_t>(y.dim() - x.dim()), 1);
    for (int64_t d = 0; d < x.dim(); ++d) shape.push_back(x.sizes()[d]);
    xv = torchlite::reshape(x, shape.ref());
  }
  TL_CHECK(dim < xv.dim(), op, ": x has ", xv.dim(), " dimensions, fewer than dim ", dim, " needs");
  return torchlite::sub(torchlite::_slice(xv, dim, int64_t(1), std::nullopt, 1),
                        torchlite::_slice(xv, dim, int64_t(0), int64_t(-1), 1));
}

// zeros of y's dtype and shape without dim: the integral over no samples
Tensor no_samples(const Tensor& y, int64_t dim) {
  DimVector shape(y.sizes());
  shape.erase(static_cast<size_t>(dim));
  return torchlite::full(shape.ref(), 0.0, y.scalar_type(), y.device());
}

Tensor integrate(const char* op, const Tensor& y, const std::optional<Tensor>& x, const Scalar& dx, int64_t dim,
                 bool cumulative) {
  TL_CHECK(y.dim() > 0, op, ": Trapezoid requires y to have at least one dimension");
  dim = y.wrap_dim(dim);
  if (!cumulative && y.sizes()[dim] == 0) return no_samples(y, dim);
  if (x) {
    TL_CHECK(y.scalar_type() != ScalarType::Bool && x->scalar_type() != ScalarType::Bool, op,
             ": received a bool input for `x` or `y`, but bool is not supported");
    Tensor terms = torchlite::mul(x_spacing(op, y, *x, dim), pair_sums(y, dim));
    if (cumulative) return torchlite::div(torchlite::cumsum(terms, dim), number(2.0));
    return torchlite::sum(torchlite::div(terms, number(2.0)), IntArrayRef(dim));
  }
  TL_CHECK(y.scalar_type() != ScalarType::Bool, op, ": received a bool input for `y`, but bool is not supported");
  TL_CHECK(!dx.is_bool(), op, ": Currently, we only support dx as a real number.");
  double d = dx.to<double>();
  if (cumulative) return torchlite::cumsum(torchlite::mul(number(d / 2.), pair_sums(y, dim)), dim);
  Tensor ends = torchlite::add(torchlite::select(y, dim, 0), torchlite::select(y, dim, -1));
  return torchlite::mul(torchlite::sub(torchlite::sum(y, IntArrayRef(dim)), torchlite::mul(ends, number(0.5))),
                        number(d));
}

}  // namespace

Tensor composite::trapezoid_x(const Tensor& y, const Tensor& x, int64_t dim) {
  return integrate("trapezoid", y, x, Scalar(1.0), dim, false);
}
Tensor composite::trapezoid_dx(const Tensor& y, const Scalar& dx, int64_t dim) {
  return integrate("trapezoid", y, std::nullopt, dx, dim, false);
}
Tensor composite::trapz_x(const Tensor& y, const Tensor& x, int64_t dim) {
  return integrate("trapz", y, x, Scalar(1.0), dim, false);
}
Tensor composite::trapz_dx(const Tensor& y, double dx, int64_t dim) {
  return integrate("trapz", y, std::nullopt, Scalar(dx), dim, false);
}
Tensor composite::cumulative_trapezoid_x(const Tensor& y, const Tensor& x, int64_t dim) {
  return integrate("cumulative_trapezoid", y, x, Scalar(1.0), dim, true);
}
Tensor composite::cumulative_trapezoid_dx(const Tensor& y, const Scalar& dx, int64_t dim) {
  return integrate("cumulative_trapezoid", y, std::nullopt, dx, dim, true);
}

// ------------------------------------------------------------------ writes at indices

Tensor composite::put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  TL_CHECK(index.scalar_type() == ScalarType::Int64, "put_(): Expected a long tensor for index, but got ",
           scalar_type_name(index.scalar_type()));
  TL_CHECK(self.scalar_type() == source.scalar_type(), "put_(): self and source expected to have the same dtype, "
           "but got self.dtype = ", scalar_type_name(self.scalar_type()), " and source.dtype = ",
           scalar_type_name(source.scalar_type()));
  TL_CHECK(index.numel() == source.numel(), "put_(): Expected source and index to have the same number of "
           "elements, but got source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
  Tensor out = torchlite::clone(self);
  Tensor f = flat(out);
  std::vector<std::optional<Tensor>> idx{flat(index)};
  Tensor written = torchlite::index_put(f, idx, torchlite::to(flat(source), self.scalar_type()), accumulate);
  return torchlite::reshape(written, self.sizes());
}

Tensor composite::index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                               std::string_view reduce, bool include_self) {
  TL_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
           "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  TL_CHECK(index.dim() <= 1, "index_reduce_(): Index is supposed to be a vector");
  TL_CHECK(index.scalar_type() == ScalarType::Int64 || index.scalar_type() == ScalarType::Int32,
           "index_reduce_(): Expected dtype int32/int64 for index");
  TL_CHECK(self.scalar_type() == source.scalar_type(), "index_reduce_(): self (", scalar_type_name(self.scalar_type()),
           ") and source (", scalar_type_name(source.scalar_type()), ") must have the same scalar type");
  int64_t d = self.dim() == 0 ? 0 : self.wrap_dim(dim);
  int64_t sd = source.dim() == 0 ? 0 : source.wrap_dim(dim);
  TL_CHECK(index.numel() == (source.dim() == 0 ? 1 : source.sizes()[sd]),
           "index_reduce_(): Number of indices (", index.numel(), ") should be equal to source.size(dim) (",
           source.dim() == 0 ? 1 : source.sizes()[sd], ")");
  // PyTorch's check, an IndexError: every index within self's dim
  if (index.numel() > 0) {
    int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
    Tensor bad = torchlite::logical_or(torchlite::lt(index, number(int64_t(0))), torchlite::ge(index, number(size)));
    TL_CHECK_INDEX(!item(torchlite::any(bad)).to<bool>(), "index out of range in self");
  }
  // index along dim, broadcast over source's other dims: scatter_reduce's index.
  DimVector shape(static_cast<size_t>(std::max<int64_t>(source.dim(), 1)), 1);
  shape[static_cast<size_t>(sd)] = index.numel();
  Tensor idx = torchlite::reshape(torchlite::to(index, ScalarType::Int64), shape.ref());
  idx = torchlite::expand(idx, source.dim() == 0 ? IntArrayRef(int64_t(1)) : source.sizes());
  return torchlite::scatter_reduce(self, dim, idx, source, reduce, include_self);
}

// ------------------------------------------------------------------ multinomial

// With replacement: each draw is the first category whose cumulative probability exceeds a uniform number.
// Without: the num_samples largest keys log(u) / p (exponential races), in order; categories of probability
// 0 come last (in index order), as PyTorch also draws them once the others are taken.
Tensor composite::multinomial(const Tensor& self, int64_t num_samples, bool replacement,
                              const std::optional<Generator>& generator) {
  TL_CHECK(self.dim() == 1 || self.dim() == 2, "prob_dist must be 1 or 2 dim");
  TL_CHECK(is_floating_type(self.scalar_type()), "multinomial only supports floating-point dtypes for input, got: ",
           scalar_type_name(self.scalar_type()));
  TL_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  int64_t n = self.sizes()[self.dim() - 1];
  TL_CHECK(replacement || num_samples <= n, "cannot sample n_sample > prob_dist.size(-1) samples without "
           "replacement");
  // In self's dtype (float32 for float16 and bfloat16), as PyTorch draws: one temporary at a time.
  ScalarType dt = self.scalar_type() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  Tensor p = torchlite::to(self.dim() == 1 ? torchlite::unsqueeze(self, 0) : self, dt);
  TL_CHECK(item(torchlite::all(torchlite::logical_and(torchlite::isfinite(p), torchlite::ge(p, number(0.0))))
               ).to<bool>(),
           "probability tensor contains either `inf`, `nan` or element < 0");
  Tensor sums = torchlite::sum(p, IntArrayRef(int64_t(1)), /*keepdim=*/true);
  TL_CHECK(!item(torchlite::any(torchlite::le(sums, number(0.0)))).to<bool>(),
           "invalid multinomial distribution (sum of probabilities <= 0)");
  int64_t rows = p.sizes()[0];
  Tensor result;
  if (replacement) {
    Tensor cdf = torchlite::cumsum(p, 1);
    cdf = torchlite::div(cdf, sums);
    Tensor u = torchlite::rand(IntArrayRef({rows, num_samples}), generator, dt, self.device());
    Tensor idx = torchlite::searchsorted(cdf, u, false, true, std::nullopt, std::nullopt);
    result = torchlite::clamp(idx, std::nullopt, Scalar(n - 1));
  } else {
    // u in [0, 1): log(1 - u) is finite and not positive; categories of probability 0 get -inf.
    Tensor keys = torchlite::rand(IntArrayRef({rows, n}), generator, dt, self.device());
    keys = torchlite::sub(number(1.0), keys);
    keys = torchlite::log(keys);
    keys = torchlite::div(keys, p);
    keys = torchlite::where(torchlite::gt(p, number(0.0)), keys, number(-std::numeric_limits<double>::infinity()));
    result = std::get<1>(torchlite::topk(keys, num_samples, 1, true, true));
  }
  return self.dim() == 1 ? torchlite::squeeze(result, 0) : result;
}

// ------------------------------------------------------------------ quantiles

namespace {

Tensor quantile_by_sort(const Tensor& x, const Tensor& q, const Tensor& nan_count, std::string_view interpolation,
                        bool ignore_nan);
Tensor quantile_finish(const Tensor& self, const Tensor& q, Tensor result, std::optional<int64_t> dim, bool keepdim);

// Without sorting (the sort's values and int64 indices are 3x the input): kthvalue picks the two values
// around each rank, which is the same for every row holding the same number of valid values. Rows are
// grouped by that count (one group for quantile, whose rows with a NaN become NaN); with many groups
// (nanquantile over rows of many different NaN counts) this returns an undefined tensor and the caller sorts.
// The ranks are computed in the input's dtype, as PyTorch computes them.
template <typename T>
Tensor quantile_select_as(const Tensor& x, const Tensor& qf, const std::vector<double>& qs,
                          const std::vector<int64_t>& counts, const Tensor& count_t, std::string_view interpolation) {
  std::vector<Tensor> columns;
  for (size_t j = 0; j < qs.size(); ++j) {
    T qv = static_cast<T>(qs[j]);
    Tensor column;
    for (int64_t c : counts) {
      Tensor v;
      if (c == 0) {
        v = torchlite::full(IntArrayRef(), std::numeric_limits<double>::quiet_NaN(), x.scalar_type(), x.device());
      } else {
        T rank = qv * static_cast<T>(c - 1);
        if (interpolation == "lower") rank = std::floor(rank);
        if (interpolation == "higher") rank = std::ceil(rank);
        if (interpolation == "nearest") rank = std::nearbyint(rank);
        int64_t lo = static_cast<int64_t>(rank), hi = static_cast<int64_t>(std::ceil(rank));
        // linear: the weight q * (c - 1) - lo as a tensor, so that q gets its gradient, as in PyTorch
        Tensor w = interpolation == "linear"
                       ? torchlite::sub(torchlite::mul(torchlite::select(qf, 0, static_cast<int64_t>(j)),
                                                       number(c - 1)),
                                        number(lo))
                       : torchlite::full(IntArrayRef(), interpolation == "midpoint" ? 0.5 : 0.0, x.scalar_type(),
                                         x.device());
        Tensor below = std::get<0>(torchlite::kthvalue(x, lo + 1, -1));
        Tensor above = hi == lo ? below : std::get<0>(torchlite::kthvalue(x, hi + 1, -1));
        // the weight only on this group's rows: elsewhere the values may be NaN, and 0 * NaN would reach q's
        // gradient (PyTorch masks those ranks too)
        v = torchlite::lerp(below, above, torchlite::where(torchlite::eq(count_t, number(c)), w, number(0.0)));
      }
      column = !column.defined() ? torchlite::expand(v, IntArrayRef(x.sizes().data(), x.dim() - 1))
                                 : torchlite::where(torchlite::eq(count_t, number(c)), v, column);
    }
    columns.push_back(torchlite::unsqueeze(column, -1));
  }
  return columns.size() == 1 ? columns[0] : torchlite::cat(columns, -1);
}

Tensor quantile_by_selection(const Tensor& x, const Tensor& q, const Tensor& nan_count, std::string_view interpolation,
                             bool ignore_nan) {
  constexpr size_t kMaxSelections = 16;
  int64_t n = x.sizes()[x.dim() - 1];
  Tensor qf = torchlite::reshape(q, IntArrayRef(int64_t(-1)));
  Tensor qh = torchlite::to(qf, Device{DeviceType::CPU}, ScalarType::Double);
  qh = torchlite::contiguous(qh);
  std::vector<double> qs(qh.data<double>(), qh.data<double>() + qh.numel());
  std::vector<int64_t> counts{n};
  Tensor count_t = torchlite::squeeze(torchlite::sub(number(n), nan_count), -1);
  if (ignore_nan) {
    Tensor ch = torchlite::contiguous(torchlite::to(count_t, Device{DeviceType::CPU}, ScalarType::Int64));
    std::set<int64_t> seen;
    const int64_t* c = ch.data<int64_t>();
    for (int64_t i = 0; i < ch.numel() && seen.size() * qs.size() <= kMaxSelections; ++i) seen.insert(c[i]);
    if (seen.size() * qs.size() > kMaxSelections) return Tensor();
    counts.assign(seen.begin(), seen.end());
  }
  if (counts.size() * qs.size() > kMaxSelections) return Tensor();
  Tensor result = x.scalar_type() == ScalarType::Double
                      ? quantile_select_as<double>(x, qf, qs, counts, count_t, interpolation)
                      : quantile_select_as<float>(x, qf, qs, counts, count_t, interpolation);
  if (!ignore_nan) {
    result = torchlite::where(torchlite::gt(nan_count, number(int64_t(0))),
                              number(std::numeric_limits<double>::quiet_NaN()), result);
  }
  return result;
}

Tensor quantile_impl(const char* op, const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation, bool ignore_nan) {
  TL_CHECK(self.numel() > 0, op, "() input tensor must be non-empty");
  TL_CHECK(q.dim() <= 1, op, "() q must be a scalar or 1D tensor");
  TL_CHECK(self.scalar_type() == ScalarType::Float || self.scalar_type() == ScalarType::Double, op,
           "() input tensor must be either float or double dtype");
  TL_CHECK(self.scalar_type() == q.scalar_type(), op, "() q tensor must be same dtype as the input tensor");
  TL_CHECK(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
               interpolation == "midpoint" || interpolation == "nearest",
           op, "() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ", interpolation);
  TL_CHECK(item(torchlite::all(torchlite::logical_and(torchlite::ge(q, number(0.0)), torchlite::le(q, number(1.0))))
               ).to<bool>(),
           op, "() q values must be in the range [0, 1]");
  // Rows: the values along dim moved last (all values, flattened, when dim is None).
  Tensor x = dim ? torchlite::movedim(self, self.dim() == 0 ? 0 : self.wrap_dim(*dim), -1) : flat(self);
  if (x.dim() == 0) x = torchlite::reshape(x, IntArrayRef(int64_t(1)));
  Tensor nan_count = torchlite::sum(torchlite::isnan(x), IntArrayRef(int64_t(-1)), /*keepdim=*/true);
  Tensor result = quantile_by_selection(x, q, nan_count, interpolation, ignore_nan);
  if (!result.defined()) result = quantile_by_sort(x, q, nan_count, interpolation, ignore_nan);
  return quantile_finish(self, q, result, dim, keepdim);
}

// The sorted rows, each q's rank among a row's valid values (per row, for nanquantile), and the values at
// the ranks below and above it gathered and interpolated, as PyTorch does: (..., k).
Tensor quantile_by_sort(const Tensor& x, const Tensor& q, const Tensor& nan_count, std::string_view interpolation,
                        bool ignore_nan) {
  const Tensor& self = x;
  Tensor sorted = std::get<0>(torchlite::sort(x, -1));  // NaN last
  int64_t n = sorted.sizes()[sorted.dim() - 1];
  // The last valid position of each row: n - 1, or (for nanquantile) the count of non-NaN values - 1.
  Tensor last = ignore_nan ? torchlite::sub(torchlite::sub(number(n), nan_count), number(int64_t(1)))
                           : torchlite::full(IntArrayRef(), static_cast<double>(n - 1), ScalarType::Int64, self.device());
  Tensor qf = torchlite::reshape(q, IntArrayRef(int64_t(-1)));  // (k)
  // rank = q * last, per row and q: shape (..., k)
  Tensor rank = torchlite::mul(torchlite::to(torchlite::clamp(last, Scalar(int64_t(0)), std::nullopt),
                                             self.scalar_type()),
                               qf);
  // quantile: NaN where a row holds a NaN; nanquantile: where a row holds nothing else. Their ranks are 0
  // (masked, as PyTorch does, so that no NaN reaches q's gradient through them).
  Tensor nan_rows = ignore_nan ? torchlite::eq(nan_count, number(n)) : torchlite::gt(nan_count, number(int64_t(0)));
  rank = torchlite::where(nan_rows, number(0.0), rank);
  if (interpolation == "lower") rank = torchlite::floor(rank);
  if (interpolation == "higher") rank = torchlite::ceil(rank);
  if (interpolation == "nearest") rank = torchlite::round(rank);
  Tensor lo = torchlite::to(torchlite::floor(rank), ScalarType::Int64);
  Tensor hi = torchlite::to(torchlite::ceil(rank), ScalarType::Int64);
  DimVector bshape(sorted.sizes());
  bshape[bshape.size() - 1] = qf.numel();
  lo = torchlite::expand(lo, bshape.ref());
  hi = torchlite::expand(hi, bshape.ref());
  Tensor vlo = torchlite::gather(sorted, -1, lo), vhi = torchlite::gather(sorted, -1, hi);
  Tensor weight = interpolation == "midpoint" ? torchlite::full(IntArrayRef(), 0.5, self.scalar_type(), self.device())
                                              : torchlite::sub(rank, torchlite::floor(rank));
  Tensor result = torchlite::lerp(vlo, vhi, torchlite::expand(weight, bshape.ref()));
  return torchlite::where(nan_rows, number(std::numeric_limits<double>::quiet_NaN()), result);
}

// (..., k) -> (k, ...) with the reduced dim kept or dropped
Tensor quantile_finish(const Tensor& self, const Tensor& q, Tensor result, std::optional<int64_t> dim, bool keepdim) {
  Tensor qf = torchlite::reshape(q, IntArrayRef(int64_t(-1)));
  result = torchlite::movedim(result, -1, 0);
  if (keepdim) {
    if (dim) {
      if (self.dim() > 0) result = torchlite::unsqueeze(result, self.wrap_dim(*dim) + 1);  // 0-dim: nothing to keep
    } else {
      DimVector ks(static_cast<size_t>(self.dim()), 1);
      ks.insert(0, qf.numel());
      result = torchlite::reshape(result, ks.ref());
    }
  }
  return q.dim() == 0 ? torchlite::squeeze(result, 0) : result;
}

Tensor scalar_q(const Tensor& self, double q, const char* op) {
  TL_CHECK(q >= 0 && q <= 1, op, "() q must be in the range [0, 1] but got ", q);
  return torchlite::full(IntArrayRef(), q, self.scalar_type(), self.device());
}

}  // namespace

Tensor composite::quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) {
  return quantile_impl("quantile", self, q, dim, keepdim, interpolation, false);
}
Tensor composite::quantile_scalar(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                                  std::string_view interpolation) {
  return quantile_impl("quantile", self, scalar_q(self, q, "quantile"), dim, keepdim, interpolation, false);
}
Tensor composite::nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                              std::string_view interpolation) {
  return quantile_impl("nanquantile", self, q, dim, keepdim, interpolation, true);
}
Tensor composite::nanquantile_scalar(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                                     std::string_view interpolation) {
  return quantile_impl("nanquantile", self, scalar_q(self, q, "nanquantile"), dim, keepdim, interpolation, true);
}

}  // namespace torchlite

// ------------------------------------------------------------------ window functions

namespace torchlite {

namespace {

// n = 0 .. length - 1 in float64 and the denominator M (length when periodic, length - 1 otherwise), after
// PyTorch's checks; length 0 and 1 are answered directly.
struct Window {
  Tensor n;
  double m = 0;
  std::optional<Tensor> early;
};

Window window_start(const char* op, int64_t length, bool periodic, std::optional<ScalarType> dtype,
                    std::optional<Device> device) {
  ScalarType t = dtype.value_or(default_dtype());
  TL_CHECK(is_floating_type(t), op, " expects floating point dtypes, got: ", scalar_type_name(t));
  TL_CHECK(length >= 0, op, " requires non-negative window_length, got window_length=", length);
  Window w;
  if (length == 0) w.early = torchlite::empty(IntArrayRef(int64_t(0)), t, device);
  if (length == 1) w.early = torchlite::full(IntArrayRef(int64_t(1)), 1.0, t, device);
  if (w.early) return w;
  w.n = torchlite::arange(int64_t(0), length, int64_t(1), ScalarType::Double, device);
  w.m = static_cast<double>(periodic ? length : length - 1);
  return w;
}

Tensor cosine_window(const char* op, int64_t length, bool periodic, std::optional<ScalarType> dtype,
                     std::optional<Device> device, double a0, double a1, double a2) {
  Window w = window_start(op, length, periodic, dtype, device);
  if (w.early) return *w.early;
  constexpr double kPi = 3.14159265358979323846;
  Tensor phase = torchlite::mul(w.n, number(2 * kPi / w.m));
  Tensor v = torchlite::sub(number(a0), torchlite::mul(torchlite::cos(phase), number(a1)));
  if (a2 != 0) v = torchlite::add(v, torchlite::mul(torchlite::cos(torchlite::mul(phase, number(2.0))), number(a2)));
  return torchlite::to(v, dtype.value_or(default_dtype()));
}

// I0(x) = sum over k of ((x / 2)^k / k!)^2, summed until the terms stop mattering in float64.
Tensor bessel_i0(const Tensor& x) {
  Tensor half = torchlite::div(x, number(2.0));
  Tensor term = torchlite::ones_like(x), total = torchlite::ones_like(x);
  for (int k = 1; k < 200; ++k) {
    term = torchlite::mul(term, torchlite::div(half, number(static_cast<double>(k))));
    Tensor sq = torchlite::mul(term, term);
    total = torchlite::add(total, sq);
    if (item(torchlite::all(torchlite::le(sq, torchlite::mul(total, number(1e-17))))).to<bool>()) break;
  }
  return total;
}

}  // namespace

Tensor composite::hann_window(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return composite::hann_window_periodic(window_length, true, dtype, device);
}
Tensor composite::hann_window_periodic(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                       std::optional<Device> device) {
  return cosine_window("hann_window", window_length, periodic, dtype, device, 0.5, 0.5, 0);
}
Tensor composite::hamming_window(int64_t window_length, std::optional<ScalarType> dtype,
                                 std::optional<Device> device) {
  return composite::hamming_window_periodic_alpha_beta(window_length, true, 0.54, 0.46, dtype, device);
}
Tensor composite::hamming_window_periodic(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                          std::optional<Device> device) {
  return composite::hamming_window_periodic_alpha_beta(window_length, periodic, 0.54, 0.46, dtype, device);
}
Tensor composite::hamming_window_periodic_alpha(int64_t window_length, bool periodic, double alpha,
                                                std::optional<ScalarType> dtype, std::optional<Device> device) {
  return composite::hamming_window_periodic_alpha_beta(window_length, periodic, alpha, 0.46, dtype, device);
}
Tensor composite::hamming_window_periodic_alpha_beta(int64_t window_length, bool periodic, double alpha, double beta,
                                                     std::optional<ScalarType> dtype, std::optional<Device> device) {
  return cosine_window("hamming_window", window_length, periodic, dtype, device, alpha, beta, 0);
}
Tensor composite::blackman_window(int64_t window_length, std::optional<ScalarType> dtype,
                                  std::optional<Device> device) {
  return composite::blackman_window_periodic(window_length, true, dtype, device);
}
Tensor composite::blackman_window_periodic(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                           std::optional<Device> device) {
  return cosine_window("blackman_window", window_length, periodic, dtype, device, 0.42, 0.5, 0.08);
}
Tensor composite::bartlett_window(int64_t window_length, std::optional<ScalarType> dtype,
                                  std::optional<Device> device) {
  return composite::bartlett_window_periodic(window_length, true, dtype, device);
}
Tensor composite::bartlett_window_periodic(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                           std::optional<Device> device) {
  Window w = window_start("bartlett_window", window_length, periodic, dtype, device);
  if (w.early) return *w.early;
  Tensor v = torchlite::sub(number(1.0), torchlite::abs(torchlite::sub(torchlite::mul(w.n, number(2.0 / w.m)),
                                                                       number(1.0))));
  return torchlite::to(v, dtype.value_or(default_dtype()));
}
Tensor composite::kaiser_window(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return composite::kaiser_window_beta(window_length, true, 12.0, dtype, device);
}
Tensor composite::kaiser_window_periodic(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                         std::optional<Device> device) {
  return composite::kaiser_window_beta(window_length, periodic, 12.0, dtype, device);
}
Tensor composite::kaiser_window_beta(int64_t window_length, bool periodic, double beta,
                                     std::optional<ScalarType> dtype, std::optional<Device> device) {
  Window w = window_start("kaiser_window", window_length, periodic, dtype, device);
  if (w.early) return *w.early;
  Tensor r = torchlite::sub(torchlite::mul(w.n, number(2.0 / w.m)), number(1.0));
  Tensor arg = torchlite::mul(torchlite::sqrt(torchlite::clamp(torchlite::sub(number(1.0), torchlite::mul(r, r)),
                                                               Scalar(0.0), std::nullopt)),
                              number(beta));
  Tensor beta_t = torchlite::full(IntArrayRef(), beta, ScalarType::Double, device);
  Tensor v = torchlite::div(bessel_i0(arg), bessel_i0(beta_t));
  return torchlite::to(v, dtype.value_or(default_dtype()));
}

}  // namespace torchlite
