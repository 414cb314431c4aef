// sum on the CPU: the reduced dims are moved innermost and made contiguous,
// then each output element is a cascade (pairwise) sum in the accumulation
// type (float for half/bfloat16/float, double, int64 for integers).
#include <algorithm>
#include <utility>
#include <vector>

#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/sum.h"
#include "kernels/sum_dim_IntList.h"

namespace torchlite {

namespace {

template <typename acc_t, typename T>
acc_t cascade_sum(const T* x, int64_t n) {
  if (n <= 256) {
    acc_t a[8] = {};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) a[k] += static_cast<acc_t>(x[i + k]);
    for (; i < n; ++i) a[0] += static_cast<acc_t>(x[i]);
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
  }
  int64_t half = (n / 2 + 7) & ~int64_t(7);
  return cascade_sum<acc_t>(x, half) + cascade_sum<acc_t>(x + half, n - half);
}

// cascade_sum's split point for a range of n > 256 elements.
inline int64_t cascade_half(int64_t n) { return (n / 2 + 7) & ~int64_t(7); }

// The top of cascade_sum's tree over n elements, cut at subtrees of at most
// `leaf` elements: appends each leaf's (start, length), left to right.
void cascade_leaves(int64_t start, int64_t n, int64_t leaf, std::vector<std::pair<int64_t, int64_t>>& leaves) {
  if (n <= leaf || n <= 256) {
    leaves.emplace_back(start, n);
    return;
  }
  int64_t half = cascade_half(n);
  cascade_leaves(start, half, leaf, leaves);
  cascade_leaves(start + half, n - half, leaf, leaves);
}

// Adds the leaf sums up the same tree, so the total is cascade_sum's, bit for bit.
template <typename acc_t>
acc_t cascade_combine(int64_t n, int64_t leaf, const acc_t*& next) {
  if (n <= leaf || n <= 256) return *next++;
  int64_t half = cascade_half(n);
  acc_t left = cascade_combine<acc_t>(half, leaf, next);
  acc_t right = cascade_combine<acc_t>(n - half, leaf, next);
  return left + right;
}

template <typename T, typename acc_t, typename In = T>
void sum_rows(const In* in, T* out, int64_t nout, int64_t row) {
  if (nout == 1) {
    // One output: the leaves of the cascade tree (at most kGrainSize elements
    // each) are summed in parallel, then combined up the tree. The tree does
    // not depend on the thread count, so neither does the result.
    std::vector<std::pair<int64_t, int64_t>> leaves;
    cascade_leaves(0, row, kGrainSize, leaves);
    std::vector<acc_t> partial(leaves.size(), acc_t(0));
    parallel_for(static_cast<int64_t>(leaves.size()), 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const auto& leaf = leaves[static_cast<size_t>(i)];
        partial[static_cast<size_t>(i)] = cascade_sum<acc_t>(in + leaf.first, leaf.second);
      }
    });
    const acc_t* next = partial.data();
    out[0] = static_cast<T>(cascade_combine<acc_t>(row, kGrainSize, next));
    return;
  }
  int64_t grain = row > 0 ? kGrainSize / row + 1 : kGrainSize;
  parallel_for(nout, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) out[o] = static_cast<T>(cascade_sum<acc_t>(in + o * row, row));
  });
}

// Sum over the leading dims of a contiguous input: out[j] = sum over i < outer of in[i * inner + j]
// (a bias gradient: x.sum(0)). Rows are added into accumulators that span a chunk of columns, so the
// loops run along memory and vectorize, instead of transposing the input first. Within a chunk, blocks
// of 8 rows are summed in order and the block sums are combined pairwise (a binary counter), so the
// error grows with log(outer), as the cascade's does. Chunks run in parallel; the result does not
// depend on the thread count.
template <typename T, typename acc_t>
void sum_outer(const T* in, T* out, int64_t outer, int64_t inner) {
  constexpr int64_t kCols = 256;
  // The binary counter needs one level per bit of the number of 8-row blocks (plus the carry's).
  int levels_needed = 1;
  while ((int64_t(1) << (levels_needed - 1)) <= (outer + 7) / 8) ++levels_needed;
  const int64_t nchunks = (inner + kCols - 1) / kCols;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (kCols * std::max<int64_t>(outer, 1)));
  parallel_for(nchunks, grain, [&](int64_t b, int64_t e) {
    std::vector<acc_t> levels(static_cast<size_t>(levels_needed) * kCols);
    std::vector<char> used(static_cast<size_t>(levels_needed));
    acc_t block[kCols];
    for (int64_t c = b; c < e; ++c) {
      const int64_t j0 = c * kCols, w = std::min(kCols, inner - j0);
      std::fill(used.begin(), used.end(), 0);
      int top = 0;
      for (int64_t i0 = 0; i0 < outer; i0 += 8) {
        const T* row = in + i0 * inner + j0;
        for (int64_t j = 0; j < w; ++j) block[j] = static_cast<acc_t>(row[j]);
        const int64_t rows = std::min<int64_t>(8, outer - i0);
        for (int64_t r = 1; r < rows; ++r) {
          row += inner;
          for (int64_t j = 0; j < w; ++j) block[j] += static_cast<acc_t>(row[j]);
        }
        int level = 0;
        for (; used[level]; ++level) {  // carry: an equal-sized earlier sum is added first, in order
          acc_t* l = &levels[static_cast<size_t>(level) * kCols];
          for (int64_t j = 0; j < w; ++j) block[j] = l[j] + block[j];
          used[level] = false;
        }
        std::copy(block, block + w, &levels[static_cast<size_t>(level) * kCols]);
        used[level] = true;
        top = std::max(top, level);
      }
      // The remaining partial sums, the largest (earliest rows) first.
      bool any = false;
      for (int level = top; level >= 0; --level) {
        if (!used[level]) continue;
        const acc_t* l = &levels[static_cast<size_t>(level) * kCols];
        for (int64_t j = 0; j < w; ++j) block[j] = any ? block[j] + l[j] : l[j];
        any = true;
      }
      for (int64_t j = 0; j < w; ++j) out[j0 + j] = static_cast<T>(any ? block[j] : acc_t(0));
    }
  });
}

// Calls f(T{}, acc_t{}) for dtype t with sum's accumulation type: int64 for bool and the integers,
// float for half, bfloat16 and float, double for double, the complex type itself for a complex one.
template <typename F>
void dispatch_sum(ScalarType t, const F& f) {
  switch (t) {
    case ScalarType::Bool: return f(bool{}, int64_t{});
    case ScalarType::UInt8: return f(uint8_t{}, int64_t{});
    case ScalarType::Int8: return f(int8_t{}, int64_t{});
    case ScalarType::Int16: return f(int16_t{}, int64_t{});
    case ScalarType::Int32: return f(int32_t{}, int64_t{});
    case ScalarType::Int64: return f(int64_t{}, int64_t{});
    case ScalarType::Half: return f(Half{}, float{});
    case ScalarType::BFloat16: return f(BFloat16{}, float{});
    case ScalarType::Float: return f(float{}, float{});
    case ScalarType::Double: return f(double{}, double{});
    case ScalarType::ComplexFloat: return f(Complex<float>{}, Complex<float>{});
    case ScalarType::ComplexDouble: return f(Complex<double>{}, Complex<double>{});
    default: throw_dtype_not_implemented("sum", t);
  }
}

// Calls f(In{}) for bool and the integer dtypes narrower than int64: summed to int64 (their default
// result dtype), they are read as they are, not first copied to an int64 tensor (8x a bool mask).
template <typename F>
bool dispatch_narrow_integral(ScalarType t, const F& f) {
  switch (t) {
    case ScalarType::Bool: f(bool{}); return true;
    case ScalarType::UInt8: f(uint8_t{}); return true;
    case ScalarType::Int8: f(int8_t{}); return true;
    case ScalarType::Int16: f(int16_t{}); return true;
    case ScalarType::Int32: f(int32_t{}); return true;
    default: return false;
  }
}

}  // namespace

void kernels::sum_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype, const Tensor& out) {
  // PyTorch sums in out's dtype: the result's, dtype= (out must then match it) or an out= target's.
  const ScalarType t = out.scalar_type();
  (void)dtype;
  int64_t ndim = self.dim();
  uint64_t mask = 0;
  if (!dim.has_value() || dim->empty()) {
    mask = ~uint64_t(0);
  } else {
    for (int64_t d : *dim) mask |= uint64_t(1) << wrap_dim(d, ndim);
  }
  // Leading dims of a contiguous input (and not all of them): summed down the columns.
  int64_t lead = 0;
  while (lead < ndim && (mask >> lead & 1)) ++lead;
  bool prefix = lead > 0 && lead < ndim;
  for (int64_t d = lead; d < ndim && prefix; ++d) prefix = !(mask >> d & 1);
  if (prefix && self.is_contiguous() && self.scalar_type() == t && out.is_contiguous() && self.numel() > 0) {
    int64_t outer = 1;
    for (int64_t d = 0; d < lead; ++d) outer *= self.size(d);
    const int64_t inner = self.numel() / outer;
    dispatch_sum(t, [&](auto tag, auto acc_tag) {
      using T = decltype(tag);
      sum_outer<T, decltype(acc_tag)>(self.data<T>(), out.data<T>(), outer, inner);
    });
    return;
  }
  // Kept dims first, reduced dims last.
  DimVector sizes, strides;
  int64_t nout = 1, row = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t d = 0; d < ndim; ++d) {
      bool reduced = mask >> d & 1;
      if (reduced != (pass == 1)) continue;
      sizes.push_back(self.size(d));
      strides.push_back(self.stride(d));
      (pass ? row : nout) *= self.size(d);
    }
  }
  Tensor permuted = make_alias(self, sizes.ref(), strides.ref(), self.storage_offset());
  bool direct = out.is_contiguous() && out.scalar_type() == t;
  Tensor result = direct ? out : empty_tensor(out.sizes(), t);
  if (t == ScalarType::Int64 && self.scalar_type() != t) {
    const bool narrow = dispatch_narrow_integral(self.scalar_type(), [&](auto tag) {
      using In = decltype(tag);
      Tensor in = contiguous_as(permuted, self.scalar_type());
      sum_rows<int64_t, int64_t>(in.data<In>(), result.data<int64_t>(), nout, row);
    });
    if (narrow) {
      if (!direct) copy_cast_cpu(out, result);
      return;
    }
  }
  Tensor in = contiguous_as(permuted, t);
  dispatch_sum(t, [&](auto tag, auto acc_tag) {
    using T = decltype(tag);
    sum_rows<T, decltype(acc_tag)>(in.data<T>(), result.data<T>(), nout, row);
  });
  if (!direct) copy_cast_cpu(out, result);
}

void kernels::sum_out_cpu(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  kernels::sum_out_cpu(self, std::nullopt, /*keepdim=*/false, dtype, out);
}

}  // namespace torchlite
