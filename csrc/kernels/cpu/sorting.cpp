// Sorting and selection on the CPU: sort, topk, kthvalue, median, nanmedian, mode, unique. Every row
// (the elements along `dim`, laid out by Reduce.h's rows) is sorted stably by index, NaN as the largest
// value, so ties and NaNs resolve the same way on every run and thread count.
#include <algorithm>
#include <array>
#include <numeric>
#include <tuple>
#include <vector>

#include "kernels/_unique2.h"
#include "kernels/Reduce.h"
#include "kernels/RowOrder.h"
#include "kernels/kthvalue.h"
#include "kernels/median.h"
#include "kernels/median_dim.h"
#include "kernels/mode.h"
#include "kernels/nanmedian.h"
#include "kernels/nanmedian_dim.h"
#include "kernels/sort.h"
#include "kernels/topk.h"
#include "kernels/unique_dim.h"

namespace torchlite {

using reduce::Rows;
using reduce::check_not_bool;
using reduce::dim_size;

namespace {

template <typename T>
bool nan_at(const T* x, int64_t i) {
  return reduce::is_nan(static_cast<opmath_t<T>>(x[i]));
}

template <typename T>
bool same_at(const T* x, int64_t i, int64_t j) {
  return static_cast<opmath_t<T>>(x[i]) == static_cast<opmath_t<T>>(x[j]);
}

// Row order (kernels/RowOrder.h) as a comparator of positions.
template <typename T>
struct RowOrder {
  const T* x;
  bool descending;
  bool operator()(int64_t a, int64_t b) const { return row_before(x, descending, a, b); }
};

// idx[0..n) = the order that sorts x[0..n) stably, NaN last (first when descending).
template <typename T>
void sort_indices(const T* x, int64_t n, bool descending, int64_t* idx) {
  std::iota(idx, idx + n, int64_t(0));
  std::sort(idx, idx + n, RowOrder<T>{x, descending});
}

// idx[0..k) = the first k positions of that order (the rest of idx in no particular order).
template <typename T>
void partial_sort_indices(const T* x, int64_t n, int64_t k, bool descending, int64_t* idx) {
  std::iota(idx, idx + n, int64_t(0));
  std::partial_sort(idx, idx + k, idx + n, RowOrder<T>{x, descending});
}

// The position that sorts k-th (0-based) in that ascending order.
template <typename T>
int64_t select_index(const T* x, int64_t n, int64_t k, int64_t* idx) {
  std::iota(idx, idx + n, int64_t(0));
  std::nth_element(idx, idx + k, idx + n, RowOrder<T>{x, false});
  return idx[k];
}

uint64_t dim_mask(const Tensor& self, int64_t dim) { return uint64_t(1) << wrap_dim(dim, self.dim()); }

// Rows of self along dim; pick(x, n, idx_scratch, &value_index) chooses one element per row, written
// to values/indices (shaped as the reduction over dim).
template <typename Pick>
void select_rows(const char* op, const Tensor& self, int64_t dim, const Tensor& values, const Tensor& indices,
                 const Pick& pick, bool with_bool = true) {
  ScalarType t = self.scalar_type();
  Rows r = reduce::rows(self, dim_mask(self, dim), t);
  Tensor v = reduce::target_for(values, t);
  Tensor idx = reduce::target_for(indices, ScalarType::Int64);
  dispatch_dtype(
      t, op,
      [&](auto tag) {
        using T = decltype(tag);
        const T* in = r.in.data<T>();
        T* vo = v.data<T>();
        int64_t* io = idx.data<int64_t>();
        reduce::for_each_row(r.nout, r.row, [&](int64_t k) {
          const T* x = in + k * r.row;
          std::vector<int64_t> order(static_cast<size_t>(r.row));
          int64_t at = pick(x, r.row, order.data());
          vo[k] = x[at];
          io[k] = at;
        });
      },
      with_bool);
  reduce::finish(values, v);
  reduce::finish(indices, idx);
}

// The lower median of each row: NaN (its first index) when the row has one, unless ignore_nan, which
// takes the median of the other elements.
void median_impl(const char* op, const Tensor& self, int64_t dim, const Tensor& values, const Tensor& indices,
                 bool ignore_nan) {
  select_rows(
      op, self, dim, values, indices,
      [&](const auto* x, int64_t n, int64_t* order) -> int64_t {
        if (!ignore_nan) {
          for (int64_t i = 0; i < n; ++i)
            if (nan_at(x, i)) return i;
        }
        int64_t valid = n;
        if (ignore_nan)
          for (int64_t i = 0; i < n; ++i) valid -= nan_at(x, i);
        return select_index(x, n, valid > 0 ? (valid - 1) / 2 : 0, order);
      },
      /*with_bool=*/false);
}

// Sorted rows along dim, keeping the first k of each, written through the outputs' own strides.
void sorted_rows(const char* op, const Tensor& self, int64_t dim, int64_t k, bool descending, const Tensor& values,
                 const Tensor& indices) {
  uint64_t mask = dim_mask(self, dim);
  ScalarType t = self.scalar_type();
  Rows r = reduce::rows(self, mask, t);
  DimVector sizes;
  for (int64_t d = 0; d < r.in.dim() - 1; ++d) sizes.push_back(r.in.size(d));
  if (r.in.dim() > 0) sizes.push_back(k);
  Tensor v = empty_tensor(sizes.ref(), t, self.device());
  Tensor idx = empty_tensor(sizes.ref(), ScalarType::Int64, self.device());
  dispatch_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = r.in.data<T>();
    T* vo = v.data<T>();
    int64_t* io = idx.data<int64_t>();
    reduce::for_each_row(r.nout, r.row, [&](int64_t row) {
      const T* x = in + row * r.row;
      std::vector<int64_t> order(static_cast<size_t>(r.row));
      if (k == r.row)
        sort_indices(x, r.row, descending, order.data());
      else
        partial_sort_indices(x, r.row, k, descending, order.data());
      for (int64_t i = 0; i < k; ++i) {
        vo[row * k + i] = x[order[i]];
        io[row * k + i] = order[i];
      }
    });
  });
  copy_cast_cpu(reduce::rows_view(values, mask), v);
  copy_cast_cpu(reduce::rows_view(indices, mask), idx);
}

}  // namespace

// ------------------------------------------------------------------ sort, topk

void kernels::sort_out_cpu(const Tensor& self, int64_t dim, bool descending, const Tensor& values,
                           const Tensor& indices) {
  sorted_rows("sort", self, dim, dim_size(self, dim), descending, values, indices);
}

void kernels::topk_out_cpu(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
                           const Tensor& values, const Tensor& indices) {
  TL_CHECK(self.scalar_type() != ScalarType::Bool, "topk does not support bool dtypes on CPU");
  sorted_rows("topk", self, dim, k, /*descending=*/largest, values, indices);
}

// ------------------------------------------------------------------ kthvalue, median, mode

void kernels::kthvalue_out_cpu(const Tensor& self, int64_t k, int64_t dim, bool keepdim, const Tensor& values,
                               const Tensor& indices) {
  int64_t d = wrap_dim(dim, self.dim());
  reduce::check_nonempty("kthvalue():", self, dim_mask(self, dim), ErrorKind::Index, "");
  TL_CHECK(k >= 1 && k <= dim_size(self, dim), "kthvalue(): selected number k out of range for dimension ", d);
  check_not_bool(self, "kthvalue_cpu");
  select_rows("kthvalue_cpu", self, dim, values, indices, [&](const auto* x, int64_t n, int64_t* order) {
    return select_index(x, n, k - 1, order);
  });
}

void kernels::median_out_cpu(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,
                             const Tensor& indices) {
  check_not_bool(self, "median_out");
  reduce::check_nonempty("median():", self, dim_mask(self, dim), ErrorKind::Index, "");
  median_impl("median_out", self, dim, values, indices, /*ignore_nan=*/false);
}

void kernels::nanmedian_out_cpu(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,
                                const Tensor& indices) {
  check_not_bool(self, "median_out");
  reduce::check_nonempty("median():", self, dim_mask(self, dim), ErrorKind::Index, "");
  median_impl("median_out", self, dim, values, indices, /*ignore_nan=*/true);
}

// The whole tensor's median: of the flattened tensor, NaN when empty.
static void whole_median(const char* op, const Tensor& self, const Tensor& out, bool ignore_nan) {
  check_not_bool(self, op);
  if (self.numel() == 0) {
    Tensor nan = scalar_to_tensor(Scalar(std::numeric_limits<double>::quiet_NaN()), false);
    copy_cast_cpu(out, nan);
    return;
  }
  Tensor flat = make_alias(contiguous_as(self, self.scalar_type()), IntArrayRef({self.numel()}),
                           IntArrayRef({int64_t(1)}), 0);
  Tensor indices = empty_tensor(IntArrayRef(), ScalarType::Int64, self.device());
  median_impl(op, flat, 0, out, indices, ignore_nan);
}

void kernels::median_out_cpu(const Tensor& self, const Tensor& out) { whole_median("median_cpu", self, out, false); }

void kernels::nanmedian_out_cpu(const Tensor& self, const Tensor& out) {
  whole_median("median_cpu", self, out, true);
}

void kernels::mode_out_cpu(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,
                           const Tensor& indices) {
  reduce::check_nonempty("mode():", self, dim_mask(self, dim), ErrorKind::Index, "");
  select_rows("mode", self, dim, values, indices, [&](const auto* x, int64_t n, int64_t* order) {
    sort_indices(x, n, /*descending=*/false, order);
    // The longest run of equal values (the first, so the smallest, among the longest); its last element.
    int64_t best_len = 0, best_last = 0;
    for (int64_t i = 0; i < n;) {
      int64_t j = i + 1;
      while (j < n && same_at(x, order[j], order[i])) ++j;
      if (j - i > best_len) {
        best_len = j - i;
        best_last = order[j - 1];
      }
      i = j;
    }
    return best_last;
  });
}

// ------------------------------------------------------------------ unique

namespace {

// Distinct slices: `rows` holds n slices of m elements (contiguous). Returns (order of distinct first
// occurrences in sorted order, inverse, counts).
template <typename T>
void unique_slices(const T* x, int64_t n, int64_t m, std::vector<int64_t>& firsts, int64_t* inverse,
                   std::vector<int64_t>& counts) {
  using op_t = opmath_t<T>;
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t(0));
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t k = 0; k < m; ++k) {
      op_t va = static_cast<op_t>(x[a * m + k]), vb = static_cast<op_t>(x[b * m + k]);
      bool na = reduce::is_nan(va), nb = reduce::is_nan(vb);
      if (na || nb) {
        if (na != nb) return nb;  // NaN is the largest
        continue;
      }
      if (va < vb) return true;
      if (vb < va) return false;
    }
    return false;
  };
  // Equal slices (NaN never equals anything, as PyTorch keeps every NaN).
  auto equal = [&](int64_t a, int64_t b) {
    for (int64_t k = 0; k < m; ++k)
      if (!(static_cast<op_t>(x[a * m + k]) == static_cast<op_t>(x[b * m + k]))) return false;
    return true;
  };
  std::stable_sort(order.begin(), order.end(), less);
  for (int64_t i = 0; i < n; ++i) {
    int64_t o = order[static_cast<size_t>(i)];
    if (i == 0 || !equal(order[static_cast<size_t>(i - 1)], o)) {
      firsts.push_back(o);
      counts.push_back(0);
    }
    counts.back() += 1;
    if (inverse) inverse[o] = static_cast<int64_t>(firsts.size()) - 1;
  }
}

// unique over slices along dim (every element when dim is absent).
std::tuple<Tensor, Tensor, Tensor> unique_impl(const Tensor& self, std::optional<int64_t> dim, bool return_inverse,
                                               bool return_counts) {
  if (!self.device().is_cpu()) {
    // CUDA: computed on a host copy (the output sizes depend on the data, so the host waits for the device
    // anyway), then moved back. A device-side unique would sort on the device first.
    Tensor host = empty_tensor(self.sizes(), self.scalar_type(), Device(DeviceType::CPU));
    copy_cast(host, self);
    auto [values, inverse, counts] = unique_impl(host, dim, return_inverse, return_counts);
    auto to_device = [&](const Tensor& t) {
      Tensor d = empty_tensor(t.sizes(), t.scalar_type(), self.device());
      copy_cast(d, t);
      return d;
    };
    return {to_device(values), to_device(inverse), to_device(counts)};
  }
  ScalarType t = self.scalar_type();
  int64_t d = dim.has_value() ? wrap_dim(*dim, self.dim()) : 0;
  // Slices of m elements: dim first, the other dims flattened behind it.
  Tensor in;
  int64_t n, m;
  if (!dim.has_value()) {
    in = contiguous_as(self, t);
    n = self.numel();
    m = 1;
  } else {
    TL_CHECK(self.dim() > 0, "unique_dim: the input must have at least one dim");
    DimVector sizes, strides;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
    for (int64_t k = 0; k < self.dim(); ++k) {
      if (k == d) continue;
      sizes.push_back(self.size(k));
      strides.push_back(self.stride(k));
    }
    in = contiguous_as(make_alias(self, sizes.ref(), strides.ref(), self.storage_offset()), t);
    n = self.size(d);
    m = n > 0 ? self.numel() / n : 0;
  }
  DimVector inverse_sizes;
  if (dim.has_value())
    inverse_sizes.push_back(n);
  else
    inverse_sizes.assign(self.sizes());
  Tensor inverse = empty_tensor(return_inverse ? inverse_sizes.ref() : IntArrayRef({int64_t(0)}), ScalarType::Int64,
                                self.device());
  std::vector<int64_t> firsts, counts;
  Tensor output;
  dispatch_dtype(t, "unique", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    if (n > 0 && m == 0) {  // slices of no elements are all equal
      firsts.push_back(0);
      counts.push_back(n);
      if (return_inverse) std::fill(inverse.data<int64_t>(), inverse.data<int64_t>() + n, int64_t(0));
    } else {
      unique_slices(x, n, m, firsts, return_inverse ? inverse.data<int64_t>() : nullptr, counts);
    }
    int64_t u = static_cast<int64_t>(firsts.size());
    DimVector out_sizes;
    if (!dim.has_value()) {
      out_sizes.push_back(u);
    } else {
      out_sizes.push_back(u);
      for (int64_t k = 0; k < self.dim(); ++k)
        if (k != d) out_sizes.push_back(self.size(k));
    }
    Tensor packed = empty_tensor(out_sizes.ref(), t, self.device());
    T* o = packed.data<T>();
    for (int64_t i = 0; i < u; ++i) std::copy(x + firsts[i] * m, x + (firsts[i] + 1) * m, o + i * m);
    output = packed;
  });
  if (dim.has_value() && d != 0) {
    // Back to self's dim order: the slice dim returns to position d.
    DimVector sizes, strides;
    for (int64_t k = 1; k <= d; ++k) {
      sizes.push_back(output.size(k));
      strides.push_back(output.stride(k));
    }
    sizes.push_back(output.size(0));
    strides.push_back(output.stride(0));
    for (int64_t k = d + 1; k < output.dim(); ++k) {
      sizes.push_back(output.size(k));
      strides.push_back(output.stride(k));
    }
    output = contiguous_as(make_alias(output, sizes.ref(), strides.ref(), 0), t);
  }
  Tensor cnt = empty_tensor(IntArrayRef({return_counts ? static_cast<int64_t>(counts.size()) : int64_t(0)}),
                            ScalarType::Int64, self.device());
  if (return_counts) std::copy(counts.begin(), counts.end(), cnt.data<int64_t>());
  return {output, inverse, cnt};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> kernels::unique_any(const Tensor& self, bool sorted, bool return_inverse,
                                                       bool return_counts) {
  return unique_impl(self, std::nullopt, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> kernels::unique_dim_any(const Tensor& self, int64_t dim, bool sorted,
                                                           bool return_inverse, bool return_counts) {
  return unique_impl(self, dim, return_inverse, return_counts);
}

}  // namespace torchlite
