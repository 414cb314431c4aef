// searchsorted, bincount and histc: walks over a host copy of the data (the sequence's binary search,
// the counting of bins). A CUDA input is copied to the host and the result copied back, as unique does:
// bincount's size depends on the data, so the host reads it anyway.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/Error.h"
#include "core/Promotion.h"
#include "core/TensorFactory.h"
#include "kernels/Dispatch.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/bincount.h"
#include "kernels/histc.h"
#include "kernels/searchsorted_Tensor.h"

namespace torchlite {

namespace {

const Device kHost{DeviceType::CPU};

// A contiguous host copy of t in dtype.
Tensor host_copy(const Tensor& t, ScalarType dtype) {
  if (t.device().is_cpu()) return contiguous_as(t, dtype);
  Tensor h = empty_tensor(t.sizes(), dtype, kHost);
  copy_cast(h, t);
  return h;
}

// The host result on `device`.
Tensor to_device(const Tensor& t, Device device) {
  if (device.is_cpu()) return t;
  Tensor d = empty_tensor(t.sizes(), t.scalar_type(), device);
  copy_cast(d, t);
  return d;
}

// PyTorch's binary searches: the first position whose element is >= v (> v when kRight). A NaN in the sequence
// compares as smaller than every value when searching, and a NaN value goes past every element (both follow
// from testing !(mid >= v) and !(mid > v)).
template <bool kRight, typename T>
int64_t bound(const T* seq, const int64_t* order, int64_t n, T v) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    T m = seq[order ? order[mid] : mid];
    if (kRight ? !(m > v) : !(m >= v)) lo = mid + 1; else hi = mid;
  }
  return lo;
}

}  // namespace

Tensor kernels::searchsorted_any(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                                 std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  const char* op = "torch.searchsorted(): ";
  if (side) {
    TL_CHECK(*side == "left" || *side == "right", op, "side can only be 'left' or 'right' but got ", *side);
    TL_CHECK(!(right && *side == "left"), op, "side and right can't be set to opposites, got side of left while "
             "right was True");
    right = *side == "right";
  }
  TL_CHECK(sorted_sequence.dim() >= 1, op, "boundaries tensor should have positive dimension, but got 0 dimension");
  TL_CHECK(sorted_sequence.device() == self.device(), op, "boundaries and input value tensors should be on the same "
           "device, but got boundaries on ", to_string(sorted_sequence.device()), " and input value on ",
           to_string(self.device()));
  int64_t d = sorted_sequence.dim();
  bool one_dim = d == 1;
  if (!one_dim) {
    bool match = self.dim() == d;
    for (int64_t k = 0; match && k < d - 1; ++k) match = self.sizes()[k] == sorted_sequence.sizes()[k];
    TL_CHECK(match, op, "boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor "
             "and input value tensor must match, but we got boundaries tensor ", sorted_sequence.sizes(),
             " and input value tensor ", self.sizes());
  }
  if (sorter) {
    TL_CHECK(sorter->sizes().equals(sorted_sequence.sizes()), op, "boundary and sorter must have the same size, "
             "but got boundary tensor ", sorted_sequence.sizes(), "and got sorter tensor ", sorter->sizes());
    TL_CHECK(sorter->scalar_type() == ScalarType::Int64, op, "sorter must be a tensor of long dtype but got dtype ",
             scalar_type_name(sorter->scalar_type()));
  }
  int64_t n = sorted_sequence.sizes()[d - 1];
  int64_t per_row = one_dim ? self.numel() : (self.dim() > 0 ? self.sizes()[d - 1] : 1);
  // PyTorch's result_type: a 0-dim value (a number) takes the sequence's dtype within its category, so
  // searchsorted(uint8 sequence, -1) searches for 255 there too.
  ResultTypeState state;
  update_result_type(state, sorted_sequence);
  update_result_type(state, self);
  ScalarType common = result_type(state);
  Tensor out = empty_tensor(self.sizes(), out_int32 ? ScalarType::Int32 : ScalarType::Int64, kHost);
  Tensor order;
  if (sorter) {
    order = host_copy(*sorter, ScalarType::Int64);
    const int64_t* o = order.data<int64_t>();
    for (int64_t i = 0; i < order.numel(); ++i) {
      TL_CHECK(o[i] >= 0 && o[i] < n, op, "sorter index out of range");
    }
  }
  auto run = [&](auto tag) {
    using T = decltype(tag);
    ScalarType as = std::is_same_v<T, int64_t> ? ScalarType::Int64 : ScalarType::Double;
    Tensor seq = host_copy(host_copy(sorted_sequence, common), as), val = host_copy(host_copy(self, common), as);
    const T* s = seq.data<T>();
    const T* v = val.data<T>();
    const int64_t* o = order.defined() ? order.data<int64_t>() : nullptr;
    int64_t total = self.numel();
    for (int64_t i = 0; i < total; ++i) {
      int64_t row = one_dim ? 0 : i / std::max<int64_t>(per_row, 1);
      const T* srow = s + row * n;
      const int64_t* orow = o ? o + row * n : nullptr;
      int64_t pos = right ? bound<true>(srow, orow, n, v[i]) : bound<false>(srow, orow, n, v[i]);
      if (out_int32)
        out.data<int32_t>()[i] = static_cast<int32_t>(pos);
      else
        out.data<int64_t>()[i] = pos;
    }
  };
  if (common == ScalarType::Int64) {
    run(int64_t{});
  } else {
    TL_CHECK_KIND(ErrorKind::NotImplemented, common != ScalarType::Bool && !is_complex_type(common),
                  "\"searchsorted_out_cpu\" not implemented for '", scalar_type_name(common), "'");
    run(double{});
  }
  return to_device(out, self.device());
}

Tensor kernels::bincount_any(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  TL_CHECK_KIND(ErrorKind::NotImplemented, is_integral_type(self.scalar_type(), false),
                "\"bincount_cpu\" not implemented for '", scalar_type_name(self.scalar_type()), "'");
  TL_CHECK(self.dim() == 1, "bincount only supports 1-d non-negative integral inputs.");
  TL_CHECK(minlength >= 0, "minlength should be >= 0");
  if (weights) {
    TL_CHECK(weights->dim() == 1 && weights->numel() == self.numel(),
             "weights should be 1-d and have the same length as input");
  }
  Tensor x = host_copy(self, ScalarType::Int64);
  const int64_t* v = x.data<int64_t>();
  int64_t n = self.numel(), bins = minlength;
  for (int64_t i = 0; i < n; ++i) {
    TL_CHECK(v[i] >= 0, "bincount only supports 1-d non-negative integral inputs.");
    bins = std::max(bins, v[i] + 1);
  }
  if (!weights) {
    Tensor out = empty_tensor(IntArrayRef(bins), ScalarType::Int64, kHost);
    int64_t* o = out.data<int64_t>();
    std::fill(o, o + bins, int64_t(0));
    for (int64_t i = 0; i < n; ++i) ++o[v[i]];
    return to_device(out, self.device());
  }
  ScalarType wt = weights->scalar_type() == ScalarType::Float ? ScalarType::Float : ScalarType::Double;
  Tensor w = host_copy(*weights, ScalarType::Double);
  const double* wv = w.data<double>();
  // The sums in a tensor, not a std::vector: a huge bin count (minlength) fails in the allocator with a
  // RuntimeError rather than in operator new (which AddressSanitizer cannot refuse without aborting).
  Tensor acc = empty_tensor(IntArrayRef(bins), ScalarType::Double, kHost);
  double* a = acc.data<double>();
  std::fill(a, a + bins, 0.0);
  for (int64_t i = 0; i < n; ++i) a[v[i]] += wv[i];
  if (wt == ScalarType::Double) return to_device(acc, self.device());
  Tensor out = empty_tensor(IntArrayRef(bins), wt, kHost);
  copy_cast(out, acc);
  return to_device(out, self.device());
}

Tensor kernels::histc_any(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  TL_CHECK_KIND(ErrorKind::NotImplemented, is_floating_type(self.scalar_type()),
                "\"histogram_cpu\" not implemented for '", scalar_type_name(self.scalar_type()), "'");
  TL_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  double lo = min.to<double>(), hi = max.to<double>();
  TL_CHECK(!(lo > hi), "torch.histc: max must be larger than min");
  Tensor x = host_copy(self, ScalarType::Double);
  const double* v = x.data<double>();
  int64_t n = self.numel();
  if (lo == hi && n > 0) {  // the data's own range
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    for (int64_t i = 0; i < n; ++i) {
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
      if (std::isnan(v[i])) lo = hi = v[i];
    }
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TL_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  Tensor out = empty_tensor(IntArrayRef(bins), ScalarType::Double, kHost);  // (as bincount's sums)
  double* counts = out.data<double>();
  std::fill(counts, counts + bins, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double e = v[i];
    if (!(e >= lo && e <= hi)) continue;  // outside the range, or NaN
    int64_t b = static_cast<int64_t>((e - lo) * static_cast<double>(bins) / (hi - lo));
    if (b >= bins) b = bins - 1;  // max itself falls in the last bin
    counts[b] += 1;
  }
  Tensor cast = empty_tensor(IntArrayRef(bins), self.scalar_type(), kHost);
  copy_cast(cast, out);
  return to_device(cast, self.device());
}

}  // namespace torchlite
