// Formula helpers of the indexing ops (index_select, gather, scatter*, index_*,
// masked_*, take, x[idx]), written with torchlite ops: each gathers grad from, or
// accumulates it into, the positions the forward op read or wrote.
#include <string>

#include "autograd/FormulaHelpers.h"
#include "autograd/helpers_common.h"
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "ops/_index.h"
#include "ops/cat.h"
#include "ops/div_Tensor.h"
#include "ops/eq_Tensor.h"
#include "ops/gather.h"
#include "ops/index_add.h"
#include "ops/index_fill_int_Scalar.h"
#include "ops/index_put.h"
#include "ops/index_select.h"
#include "ops/logical_and.h"
#include "ops/masked_fill_Scalar.h"
#include "ops/masked_scatter.h"
#include "ops/masked_select.h"
#include "ops/mul_Tensor.h"
#include "ops/narrow.h"
#include "ops/new_ones.h"
#include "ops/new_zeros.h"
#include "ops/pow_Scalar.h"
#include "ops/reshape.h"
#include "ops/scatter_add.h"
#include "ops/scatter_reduce_two.h"
#include "ops/scatter_value.h"
#include "ops/squeeze_dim.h"
#include "ops/sum.h"
#include "ops/to_dtype.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"
#include "ops/where_self.h"
#include "ops/zeros.h"

namespace torchlite::autograd {

using helper_detail::number;

namespace {

// t reshaped to sizes when its shape differs (a 0-dim source read back as one element).
Tensor shaped_like(const Tensor& t, IntArrayRef sizes) { return t.sizes().equals(sizes) ? t : reshape(t, sizes); }

// A bool tensor of sizes, true at the positions scatter(dim, index) writes.
Tensor written_by(IntArrayRef sizes, int64_t dim, const Tensor& index) {
  return scatter(zeros(sizes, ScalarType::Bool, index.device()), dim, index, Scalar(true));
}

// The leading block of t with the sizes of `index`: the part of scatter's src it reads.
Tensor read_part(const Tensor& t, const Tensor& index) {
  Tensor part = t;
  for (int64_t d = 0; d < index.dim(); ++d)
    if (index.size(d) != t.size(d)) part = narrow(part, d, 0, index.size(d));
  return part;
}

// g (shaped like index) as the gradient of all of src: zeros where src was not read.
Tensor pad_to_src(const Tensor& g, IntArrayRef src_sizes) {
  Tensor out = g;
  for (int64_t d = 0; d < static_cast<int64_t>(src_sizes.size()); ++d) {
    if (out.size(d) == src_sizes[d]) continue;
    DimVector rest(out.sizes());
    rest[d] = src_sizes[d] - out.size(d);
    out = cat({out, new_zeros(out, rest)}, d);
  }
  return out;
}

Tensor as_count(const Tensor& mask) { return to(mask, ScalarType::Int64); }

}  // namespace

// ------------------------------------------------------------------ index_select, gather, take, x[indices]

Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index) {
  return index_add(new_zeros(grad, sizes), dim, index, grad);
}

Tensor gather_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  return scatter_add(new_zeros(grad, self.sizes()), dim, index, grad);
}

Tensor take_backward(const Tensor& grad, const Tensor& self, const Tensor& index) {
  // Advanced indexing of the flat tensor wraps negative positions as take does.
  std::vector<std::optional<Tensor>> at{std::optional<Tensor>(index)};
  Tensor flat = index_put(new_zeros(grad, {self.numel()}), at, grad, /*accumulate=*/true);
  return view(flat, self.sizes());
}

Tensor index_backward(const Tensor& grad, IntArrayRef sizes, ArrayRef<std::optional<Tensor>> indices) {
  return index_put(new_zeros(grad, sizes), indices, grad, /*accumulate=*/true);
}

// ------------------------------------------------------------------ index_put, index_add, index_copy, index_fill

Tensor index_put_self_backward(const Tensor& grad, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                               bool accumulate) {
  if (accumulate) return grad;
  return index_put(grad, indices, new_zeros(grad, {}), /*accumulate=*/false);
}

Tensor index_put_values_backward(const Tensor& grad, ArrayRef<std::optional<Tensor>> indices, const Tensor& values) {
  // values was broadcast to the indexed shape.
  return sum_to_size(_index(grad, indices), values.sizes());
}

Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Tensor& source,
                                 const Scalar& alpha) {
  Tensor read = shaped_like(index_select(grad, dim, index), source.sizes());
  return helper_detail::is_one(alpha) ? read : mul(read, number(alpha));
}

Tensor index_copy_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Tensor& source) {
  return shaped_like(index_select(grad, dim, index), source.sizes());
}

Tensor index_fill_value_backward(const Tensor& grad, int64_t dim, const Tensor& index) {
  Tensor filled = index_fill(zeros(grad.sizes(), ScalarType::Bool, grad.device()), dim, index, Scalar(true));
  return sum(where(filled, grad, number(0)), std::optional<ScalarType>());
}

// ------------------------------------------------------------------ masked_select, masked_scatter

Tensor masked_select_backward(const Tensor& grad, const Tensor& self, const Tensor& mask) {
  DimVector shape = broadcast_sizes(self.sizes(), mask.sizes());
  return masked_scatter(new_zeros(grad, shape), mask, grad);
}

Tensor masked_scatter_backward(const Tensor& grad, const Tensor& mask, IntArrayRef sizes) {
  Tensor read = masked_select(grad, mask);
  int64_t total = compute_numel(sizes);
  if (read.numel() < total) read = cat({read, new_zeros(grad, {total - read.numel()})}, 0);
  return view(read, sizes);
}

// ------------------------------------------------------------------ scatter, scatter_reduce

Tensor scatter_value_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index,
                                     const Scalar& value, std::string_view reduce, const Tensor& result) {
  if (reduce == "add") return grad;
  TL_CHECK(reduce == "multiply", "scatter_value_reduce_backward: reduce argument must be either add or multiply, got ",
           reduce);
  // Each index entry multiplied its output by value once: d result / d self = value^count.
  Tensor count = scatter_add(new_zeros(grad, self.sizes()), dim, index, new_ones(grad, index.sizes()));
  return mul(grad, pow(value, count));
}

std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, IntArrayRef src_sizes,
                                                   std::string_view reduce, bool include_self, const Tensor& result,
                                                   std::array<bool, 2> grad_input_mask) {
  std::string r(reduce == "add" ? "sum" : reduce == "multiply" ? "prod" : reduce);
  TL_CHECK(r == "sum" || r == "prod" || r == "mean" || r == "amax" || r == "amin",
           "scatter_reduce_backward: reduce argument must be one of sum, prod, mean, amax, amin, got ", reduce);
  bool need_self = grad_input_mask[0], need_src = grad_input_mask[1];
  Tensor grad_self, grad_src;
  // Without include_self, an output that src writes to no longer depends on self;
  // the others are self, unchanged.
  // grad has self's shape; self, src and result are only defined (saved) for prod, amax and amin.
  if (need_self && !include_self) grad_self = masked_fill(grad, written_by(grad.sizes(), dim, index), Scalar(0));

  if (r == "sum") {
    if (need_self && include_self) grad_self = grad;
    if (need_src) grad_src = gather(grad, dim, index);
  } else if (r == "mean") {
    // Each output is the mean of its inputs (self among them when include_self).
    Tensor base = include_self ? new_ones(grad, grad.sizes()) : new_zeros(grad, grad.sizes());
    Tensor count = scatter_add(base, dim, index, new_ones(grad, index.sizes()));
    Tensor shared = div(grad, masked_fill(count, eq(count, number(0)), Scalar(1)));
    if (need_self && include_self) grad_self = shared;
    if (need_src) grad_src = gather(shared, dim, index);
  } else if (r == "prod") {
    Tensor used_src = read_part(src, index);  // src may be larger than index
    // The product of an output's other inputs: result / x for x != 0; for a zero x,
    // the product of the nonzero inputs if x is the only zero, else 0.
    Tensor self_zero = eq(self, number(0)), src_zero = eq(used_src, number(0));
    Tensor zero_base = include_self ? as_count(self_zero) : zeros(self.sizes(), ScalarType::Int64, self.device());
    Tensor one_zero = eq(scatter_add(zero_base, dim, index, as_count(src_zero)), number(1));
    Tensor nonzero_prod = scatter_reduce(masked_fill(self, self_zero, Scalar(1)), dim, index,
                                         masked_fill(used_src, src_zero, Scalar(1)), "prod", include_self);
    auto others = [](const Tensor& x, const Tensor& x_zero, const Tensor& out, const Tensor& only_zero,
                     const Tensor& prod) {
      Tensor zero_case = where(only_zero, prod, number(0));
      return where(x_zero, zero_case, div(out, masked_fill(x, x_zero, Scalar(1))));
    };
    if (need_self && include_self) grad_self = mul(grad, others(self, self_zero, result, one_zero, nonzero_prod));
    if (need_src) {
      grad_src = mul(gather(grad, dim, index),
                     others(used_src, src_zero, gather(result, dim, index), gather(one_zero, dim, index),
                            gather(nonzero_prod, dim, index)));
    }
  } else {  // amax, amin
    // grad shared evenly among an output's inputs equal to it.
    Tensor used_src = read_part(src, index);
    Tensor self_ties = include_self ? eq(self, result) : zeros(self.sizes(), ScalarType::Bool, self.device());
    Tensor src_ties = eq(used_src, gather(result, dim, index));
    Tensor count = scatter_add(to(self_ties, grad.scalar_type()), dim, index, to(src_ties, grad.scalar_type()));
    // (count is 0 only at outputs src does not write, without include_self: unused there)
    Tensor shared = div(grad, masked_fill(count, eq(count, number(0)), Scalar(1)));
    if (need_self && include_self) grad_self = mul(self_ties, shared);
    if (need_src) grad_src = mul(src_ties, gather(shared, dim, index));
  }
  if (grad_src.defined()) grad_src = pad_to_src(grad_src, src_sizes);
  return {grad_self, grad_src};
}

// ------------------------------------------------------------------ forward mode (jvp)

Tensor scatter_reduce_jvp(const Tensor& self_t, const Tensor& src_t, const Tensor& self, int64_t dim,
                          const Tensor& index, const Tensor& src, std::string_view reduce, bool include_self,
                          const Tensor& result) {
  std::string r(reduce == "add" ? "sum" : reduce == "multiply" ? "prod" : reduce);
  // A sum or a mean is linear in self and src.
  if (r == "sum" || r == "mean") return scatter_reduce(self_t, dim, index, src_t, r, include_self);
  // Otherwise each output's tangent is the sum of its inputs' tangents times d output / d input, which
  // the backward gives for a gradient of ones: self's entry feeds only its own output, src's entry the
  // output index sends it to. (So ties share evenly, zeros of a product are exact, as the backward.)
  auto [d_self, d_src] = scatter_reduce_backward(new_ones(result, result.sizes()), self, dim, index, src, src.sizes(), reduce,
                                                 include_self, result, {true, true});
  Tensor from_src = mul(read_part(src_t, index), read_part(d_src, index));
  return scatter_add(mul(self_t, d_self), dim, index, from_src);
}

Tensor gather_with_keepdimed_indices(const Tensor& self_t, int64_t dim, const Tensor& indices, bool keepdim) {
  if (self_t.dim() == 0) return self_t;  // the one value was selected
  int64_t d = self_t.wrap_dim(dim);
  if (keepdim) return gather(self_t, d, indices);
  return squeeze(gather(self_t, d, unsqueeze(indices, d)), d);
}

}  // namespace torchlite::autograd
