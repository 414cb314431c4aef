#pragma once
// Shared pieces of the CPU reduction kernels (prod, amax, max, argmax, all, var, norm...):
//  - rows(): the input laid out as `nout` rows of `row` contiguous elements (kept dims index the
//    rows, reduced dims the elements), copied only when the layout or dtype asks for it, so
//    non-contiguous inputs and any set of reduced dims work the same way;
//  - reduce_row(): one row split into fixed blocks (kGrainSize elements) whose partial results are
//    combined pairwise; the blocks run in parallel when there is one row, so a result never depends
//    on the thread count;
//  - cascade(): a pairwise sum of f(i) (accurate floating accumulation, as sum.cpp);
//  - dtype dispatch: kernels/Dispatch.h.
#include <array>
#include <string>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Error.h"
#include "core/Parallel.h"
#include "core/Scalar.h"
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/Convert.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/Dispatch.h"

namespace torchlite::reduce {

// The accumulator of a sum or product of T (sum, prod, cumsum, cumprod, on the CPU and in the GPU kernels'
// host paths): double for floating dtypes, Complex<double> for complex ones, int64 for integers.
template <typename T>
using sum_acc_t = std::conditional_t<is_complex_v<T>, Complex<double>,
                                     std::conditional_t<is_floating_v<T>, double, int64_t>>;

struct Rows {
  Tensor in;  // contiguous, nout * row elements
  int64_t nout = 1;
  int64_t row = 1;
};

// Kept dims first, reduced dims (bits of mask) last, as one contiguous tensor of dtype t.
inline Rows rows(const Tensor& self, uint64_t mask, ScalarType t) {
  DimVector sizes, strides;
  Rows r;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t d = 0; d < self.dim(); ++d) {
      bool reduced = mask >> d & 1;
      if (reduced != (pass == 1)) continue;
      sizes.push_back(self.size(d));
      strides.push_back(self.stride(d));
      (pass ? r.row : r.nout) *= self.size(d);
    }
  }
  Tensor permuted = make_alias(self, sizes.ref(), strides.ref(), self.storage_offset());
  r.in = contiguous_as(permuted, t);
  return r;
}

// `out` seen in the layout of rows(): dims not in mask first, then those in mask (scans and sorts
// write their rows back through it).
inline Tensor rows_view(const Tensor& out, uint64_t mask) {
  DimVector sizes, strides;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t d = 0; d < out.dim(); ++d) {
      if (bool(mask >> d & 1) != (pass == 1)) continue;
      sizes.push_back(out.size(d));
      strides.push_back(out.stride(d));
    }
  }
  return make_alias(out, sizes.ref(), strides.ref(), out.storage_offset());
}

// Reductions without an identity (max, amax, argmax, aminmax, the inf norm) refuse to reduce nothing.
// `whole` is raised (as `whole_kind`) when every dim is reduced and self is empty; a reduced dim of
// size 0 raises IndexError "<op> Expected reduction dim 0 to have non-zero size."
inline void check_nonempty(const char* op, const Tensor& self, uint64_t mask, ErrorKind whole_kind,
                           const std::string& whole) {
  if (self.numel() != 0) return;
  bool all = true;
  for (int64_t d = 0; d < self.dim(); ++d) all = all && (mask >> d & 1);
  if (all && !whole.empty()) throw_error(whole_kind, whole);  // ops with a dim argument pass no `whole`
  for (int64_t d = 0; d < self.dim(); ++d)
    if ((mask >> d & 1) && self.size(d) == 0)
      throw_error(ErrorKind::Index, str(op, " Expected reduction dim ", d, " to have non-zero size."));
}

// ---------------------------------------------------------------- checks shared with the CUDA kernels

inline uint64_t mask_of(const Tensor& self, std::optional<IntArrayRef> dim) { return reduction_mask(self, dim); }
inline uint64_t mask_of(const Tensor& self, int64_t dim) { return uint64_t(1) << wrap_dim(dim, self.dim()); }
inline uint64_t mask_of(const Tensor& self, std::optional<int64_t> dim) {
  return dim.has_value() ? mask_of(self, *dim) : ~uint64_t(0);
}
// all.dims/any.dims: None reduces every dim, but () none (as PyTorch; amax and sum reduce all for ()).
inline uint64_t logical_mask(const Tensor& self, std::optional<IntArrayRef> dim) {
  return dim.has_value() && dim->empty() ? 0 : mask_of(self, dim);
}

inline std::string whole_empty(const char* op) {
  return str(op, "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
                 "with the 'dim' argument.");
}

// amax/amin (and max()/min(), which pass their dims as given): the reduced dims.
inline uint64_t check_amax(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, const Tensor& out) {
  uint64_t mask = mask_of(self, dim);
  // Only amax(x) (no dims) asks for a dim; an empty dim given explicitly is an IndexError.
  check_nonempty(str(op, "():").c_str(), self, mask, ErrorKind::Runtime,
                 dim.has_value() && !dim->empty() ? std::string() : whole_empty(op));
  if (dim.has_value())  // amax/amin (not max()/min()): out= must have self's dtype
    TL_CHECK(out.scalar_type() == self.scalar_type(), "Expected the dtype for input and out to match, but got ",
             scalar_type_name(self.scalar_type()), " for input's dtype and ", scalar_type_name(out.scalar_type()),
             " for out's dtype.");
  return mask;
}

inline uint64_t check_argmax(const char* op, const Tensor& self, std::optional<int64_t> dim) {
  TL_CHECK(self.scalar_type() != ScalarType::Bool, op, "(): does not support bool input");
  uint64_t mask = mask_of(self, dim);
  check_nonempty(str(op, "():").c_str(), self, mask, ErrorKind::Index,
                 dim.has_value() ? std::string()
                                 : str(op, "(): Expected reduction dim to be specified for input.numel() == 0."));
  return mask;
}

inline uint64_t check_max_dim(const char* op, const Tensor& self, int64_t dim) {
  uint64_t mask = mask_of(self, dim);
  check_nonempty(str(op, "():").c_str(), self, mask, ErrorKind::Index, "");
  return mask;
}

inline uint64_t check_aminmax(const Tensor& self, std::optional<int64_t> dim) {
  uint64_t mask = mask_of(self, dim);
  check_nonempty("aminmax:", self, mask, ErrorKind::Runtime,
                 dim.has_value() ? "" : "aminmax(): cannot compute aminmax over an empty dimension as the "
                                        "operation has no identity.");
  return mask;
}

inline void check_logical_out(const char* op, const Tensor& out) {
  TL_CHECK(out.scalar_type() == ScalarType::Bool || out.scalar_type() == ScalarType::UInt8, op,
           " only supports bool tensor for result, got: ", scalar_type_name(out.scalar_type()));
}

inline void check_var_dtype(const Tensor& self) {
  TL_CHECK(is_floating_type(self.scalar_type()) || is_complex_type(self.scalar_type()),
           "std and var only support floating point and complex dtypes");
}

inline std::string p_text(const Scalar& p) {
  double v = p.to_double();
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return to_string(p);
}

// vector_norm: the reduced dims; norms without an identity (p < 0, +-inf) refuse empty reductions.
inline uint64_t check_norm(const Tensor& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim) {
  double ord = p.has_value() ? p->to_double() : 2.0;
  uint64_t mask = mask_of(self, dim);
  if (self.numel() == 0 && (ord < 0 || std::isinf(ord))) {
    bool all = true;
    for (int64_t d = 0; d < self.dim(); ++d) all = all && (mask >> d & 1);
    TL_CHECK(!all, "linalg.vector_norm cannot compute the ", p_text(*p),
             " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d = 0; d < self.dim(); ++d)
      TL_CHECK(!((mask >> d & 1) && self.size(d) == 0), "linalg.vector_norm cannot compute the ", p_text(*p),
               " norm on the dimension ", d, "because this dimension is empty and the operation does not have an "
               "identity");
  }
  return mask;
}

// cumsum_(dim, dtype=...) and cumprod_: the in-place target is self, whose dtype dtype= must match.
inline void check_scan_inplace_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  if (!out.is_same(self) || !dtype.has_value() || *dtype == self.scalar_type()) return;
  TL_ERROR("Bad in-place call: input tensor dtype ", cpp_type_name(self.scalar_type()), " and output tensor dtype ",
           cpp_type_name(*dtype), " should match");
}

// Sorting and selection: the size of dim (1 for a 0-dim tensor), and the kernels that refuse bool.
inline int64_t dim_size(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  return self.dim() == 0 ? 1 : self.size(d);
}
inline void check_not_bool(const Tensor& self, const char* kernel_name) {
  if (self.scalar_type() == ScalarType::Bool) throw_dtype_not_implemented(kernel_name, ScalarType::Bool);
}

constexpr int64_t kBlock = kGrainSize;

// leaf(begin, n) -> acc_t reduces a block; combine(a, b) joins two results (a before b).
template <typename acc_t, typename Leaf, typename Combine>
acc_t reduce_row(int64_t n, const Leaf& leaf, const Combine& combine) {
  if (n <= kBlock) return leaf(int64_t(0), n);
  int64_t nblocks = (n + kBlock - 1) / kBlock;
  // One slot per block, each its own object: a std::vector<bool> (all/any) packs its elements into shared
  // words, and two threads writing neighbouring blocks' results raced (all() of 400001 trues was sometimes false).
  struct Slot {
    acc_t value;
  };
  std::vector<Slot> part(static_cast<size_t>(nblocks));
  parallel_for(nblocks, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t begin = i * kBlock;
      part[static_cast<size_t>(i)].value = leaf(begin, begin + kBlock < n ? kBlock : n - begin);
    }
  });
  // Pairwise, in order: the tree depends on n only.
  for (size_t width = 1; width < part.size(); width *= 2)
    for (size_t i = 0; i + width < part.size(); i += 2 * width)
      part[i].value = combine(part[i].value, part[i + width].value);
  return part[0].value;
}

// Calls f(o) for every output row o, in parallel over rows when there are several.
template <typename F>
void for_each_row(int64_t nout, int64_t row, const F& f) {
  int64_t grain = row > 0 ? kGrainSize / row + 1 : kGrainSize;
  parallel_for(nout, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) f(o);
  });
}

// Pairwise sum of f(begin), ..., f(begin + n - 1) in acc_t.
template <typename acc_t, typename F>
acc_t cascade(const F& f, int64_t begin, int64_t n) {
  if (n <= 256) {
    acc_t a[4] = {};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (int k = 0; k < 4; ++k) a[k] += f(begin + i + k);
    for (; i < n; ++i) a[0] += f(begin + i);
    return (a[0] + a[1]) + (a[2] + a[3]);
  }
  int64_t half = (n / 2 + 7) & ~int64_t(7);
  return cascade<acc_t>(f, begin, half) + cascade<acc_t>(f, begin + half, n - half);
}

// Sum of f(i) over a row of n elements: cascade within blocks, pairwise across them.
template <typename acc_t, typename F>
acc_t sum_row(int64_t n, const F& f) {
  return reduce_row<acc_t>(
      n, [&](int64_t b, int64_t len) { return cascade<acc_t>(f, b, len); }, [](acc_t a, acc_t b) { return a + b; });
}

template <typename T>
inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    return false;
  }
}

// The metas of a (values, indices) pair of outputs of `sizes`: values in self's dtype, indices int64,
// both exact for out=.
inline std::array<TensorMeta, 2> values_indices(const Tensor& self, DimVector sizes) {
  TensorMeta v;
  v.sizes = std::move(sizes);
  v.dtype = self.scalar_type();
  v.device = self.device();
  v.exact_dtype = true;
  TensorMeta i = v;
  i.dtype = ScalarType::Int64;
  return {v, i};
}

// Writes `result` (contiguous, computed dtype) into out, casting when out differs.
inline Tensor target_for(const Tensor& out, ScalarType t) {
  return out.is_contiguous() && out.scalar_type() == t ? out : empty_tensor(out.sizes(), t, out.device());
}
inline void finish(const Tensor& out, const Tensor& result) {
  if (!result.is_same(out)) copy_cast(out, result);
}

}  // namespace torchlite::reduce
