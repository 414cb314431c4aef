#pragma once
// Shared machinery of the indexing kernels (csrc/kernels/cpu/indexing.cpp, and the CUDA ones in
// csrc/kernels/gpu/indexing.inc): a walker over a shape with several strided operands, a dtype switch,
// and the index-tensor checks with PyTorch's messages.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <limits>
#include <string_view>
#include <type_traits>

#include "core/Half.h"
#include "core/Parallel.h"
#include "core/Tensor.h"
#include "core/TensorFactory.h"
#include "kernels/Convert.h"
#include "kernels/ElementwiseIter.h"
#include "dispatch/Meta.h"
#include "kernels/Dispatch.h"

namespace torchlite::index_walk {

constexpr int kMaxOps = 4;
constexpr int kMaxDims = 25;

// A row-major walk over `sizes`, with each operand's element strides over the same dims.
struct Walk {
  int nd = 0;
  int nops = 0;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxOps][kMaxDims];
  int64_t numel = 1;
};

// sizes and per-operand strides; a 0-dim walk is one element.
inline Walk make_walk(IntArrayRef sizes, std::initializer_list<IntArrayRef> strides) {
  Walk w;
  w.nd = static_cast<int>(sizes.size());
  w.nops = static_cast<int>(strides.size());
  TL_CHECK(w.nd <= kMaxDims && w.nops <= kMaxOps, "indexing: too many dims (", w.nd, ")");
  for (int d = 0; d < w.nd; ++d) {
    w.sizes[d] = sizes[d];
    w.numel *= sizes[d];
  }
  int op = 0;
  for (IntArrayRef s : strides) {
    for (int d = 0; d < w.nd; ++d) w.strides[op][d] = s[d];
    ++op;
  }
  return w;
}

// Calls f(off, n, step) for runs of n elements along the last dim, off[op] the
// element offset of the run's first element in operand op, step[op] the stride
// between consecutive elements of the run. Covers linear positions [begin, end).
template <typename F>
void walk_range(const Walk& w, int64_t begin, int64_t end, const F& f) {
  int64_t off[kMaxOps] = {};
  int64_t step[kMaxOps] = {};
  if (begin >= end) return;
  if (w.nd == 0) {
    f(off, int64_t(1), step);
    return;
  }
  int64_t coord[kMaxDims];
  int64_t rem = begin;
  for (int d = w.nd - 1; d >= 0; --d) {
    coord[d] = rem % w.sizes[d];
    rem /= w.sizes[d];
  }
  for (int op = 0; op < w.nops; ++op) {
    for (int d = 0; d < w.nd; ++d) off[op] += coord[d] * w.strides[op][d];
    step[op] = w.strides[op][w.nd - 1];
  }
  const int last = w.nd - 1;
  while (begin < end) {
    int64_t n = w.sizes[last] - coord[last];
    if (n > end - begin) n = end - begin;
    f(off, n, step);
    begin += n;
    if (begin >= end) break;
    // Move to the start of the next run.
    for (int op = 0; op < w.nops; ++op) off[op] += (n - 1) * w.strides[op][last];
    coord[last] += n - 1;
    for (int d = last; d >= 0; --d) {
      if (++coord[d] < w.sizes[d]) {
        for (int op = 0; op < w.nops; ++op) off[op] += w.strides[op][d];
        break;
      }
      for (int op = 0; op < w.nops; ++op) off[op] -= w.strides[op][d] * (w.sizes[d] - 1);
      coord[d] = 0;
    }
  }
}

// The whole walk: in parallel chunks when `parallel`, else in order on the calling thread.
template <typename F>
void walk(const Walk& w, bool parallel, const F& f) {
  if (w.numel == 0) return;
  if (!parallel) {
    walk_range(w, 0, w.numel, f);
    return;
  }
  parallel_for(w.numel, kGrainSize, [&](int64_t b, int64_t e) { walk_range(w, b, e, f); });
}

// A walk whose writes may collide only between elements that differ in dim `dim` alone (scatters): chunks
// split the outermost dim when it is not `dim`, so each output element is written by one thread, in order.
template <typename F>
void walk_scatter(const Walk& w, int64_t dim, const F& f) {
  if (w.numel == 0) return;
  if (w.nd < 2 || dim == 0 || w.sizes[0] < 2) {
    walk_range(w, 0, w.numel, f);
    return;
  }
  int64_t inner = w.numel / w.sizes[0];
  parallel_for(w.sizes[0], kGrainSize / inner + 1,
               [&](int64_t b, int64_t e) { walk_range(w, b * inner, e * inner, f); });
}

// The sizes / strides of t, with a 0-dim tensor seen as 1-dim of size 1 (what indexing along dim 0 of
// a scalar means in PyTorch).
inline DimVector sizes_1d(const Tensor& t) { return t.dim() == 0 ? DimVector{1} : DimVector(t.sizes()); }
inline DimVector strides_1d(const Tensor& t) { return t.dim() == 0 ? DimVector{1} : DimVector(t.strides()); }

// ---------------------------------------------------------------- shared with the CUDA kernels (gpu/indexing.inc)

inline int64_t ndim_1d(const Tensor& t) { return t.dim() == 0 ? 1 : t.dim(); }

inline bool is_int_index(const Tensor& t) {
  return t.scalar_type() == ScalarType::Int64 || t.scalar_type() == ScalarType::Int32;
}

template <typename T>
T scalar_as(const Scalar& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return s.to_bool();
  } else if constexpr (is_complex_v<T>) {
    return s.to<T>();
  } else if constexpr (std::is_integral_v<T>) {
    return s.is_floating_point() ? convert<T>(s.to_double()) : convert<T>(s.to_long());
  } else {
    return convert<T>(s.to_double());
  }
}

template <typename T>
bool nonzero_value(T v) {
  return static_cast<opmath_t<T>>(v) != static_cast<opmath_t<T>>(0);
}

// A contiguous int64 copy of an int32/int64 index tensor, each value checked
// against [0, n) after adding n to a negative one when `wrap`; fail(v) raises
// the op's error for the first bad value in row-major order.
template <typename Fail>
Tensor checked_index(const Tensor& index, int64_t n, bool wrap, const Fail& fail) {
  Tensor idx = empty_tensor(index.sizes(), ScalarType::Int64);
  if (idx.numel() == 0) return idx;
  copy_cast_cpu(idx, index);
  int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0, e = idx.numel(); i < e; ++i) {
    int64_t v = p[i];
    if (wrap && v < 0) v += n;
    if (v < 0 || v >= n) fail(p[i]);
    p[i] = v;
  }
  return idx;
}

[[noreturn]] inline void out_of_bounds(ErrorKind kind, const char* prefix, int64_t v, int64_t dim, int64_t n) {
  throw_error(kind, str(prefix, "index ", v, " is out of bounds for dimension ", dim, " with size ", n));
}

// Runs body(target) on `out` when it has dtype t (and is contiguous, if asked), else on a fresh tensor
// that is then cast into out (an out= tensor of another dtype).
template <typename F>
void into(const Tensor& out, ScalarType t, bool need_contiguous, const F& body) {
  if (out.scalar_type() == t && (!need_contiguous || out.is_contiguous())) {
    body(out);
    return;
  }
  Tensor tmp = empty_tensor(out.sizes(), t, out.device());
  body(tmp);
  copy_cast(out, tmp);
}

// Strides of t broadcast to `shape` (0 in the broadcast dims).
inline DimVector expanded_strides(const Tensor& t, IntArrayRef shape) {
  DimVector s(shape.size(), 0);
  int64_t off = static_cast<int64_t>(shape.size()) - t.dim();
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1) s[off + d] = t.strides()[d];
  return s;
}

// Strides of a 1-D index laid out along `dim` of an n-dim walk (0 elsewhere).
inline DimVector along_dim(size_t n, int64_t dim) {
  DimVector s(n, 0);
  s[dim] = 1;
  return s;
}

inline DimVector zeros_dims(size_t n) { return DimVector(n, 0); }

enum class Reduce { None, Sum, Prod, Mean, Max, Min };

inline Reduce legacy_reduce(std::string_view r) {
  if (r == "add") return Reduce::Sum;
  if (r == "multiply") return Reduce::Prod;
  TL_ERROR("reduce argument must be either add or multiply.");
}

inline Reduce two_reduce(std::string_view r) {
  if (r == "sum") return Reduce::Sum;
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax" || r == "max") return Reduce::Max;
  if (r == "amin" || r == "min") return Reduce::Min;
  TL_ERROR("reduce argument must be either sum, prod, mean, amax or amin, got ", r);
}

// self[indices] as a walk: the result's shape, self's strides laid out in it (0 in the dims the index
// tensors broadcast to), and `lin`, the element offset into self each index position selects (over the
// broadcast shape, laid out in the result by lin_strides).
struct AdvancedIndex {
  Tensor base;  // self, or a view of it with dims added for 0-dim bool indices
  int64_t first_broadcast = 0;  // where the index dims sit in `result`, and how many there are
  int64_t num_broadcast = 0;
  DimVector result;
  DimVector src_strides;
  DimVector lin_strides;
  Tensor lin;
};

// The checks and the result's shape, and with build also `lin` (on self's device; index tensors on a CUDA
// device are read through a host copy). Without build, integer index tensors are not read (no copy); bool
// masks are, for their counts. Defined in kernels/cpu/indexing.cpp.
AdvancedIndex plan_index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, bool build);

// A contiguous host copy of t (index values the host must read).
inline Tensor contiguous_on_host(const Tensor& t) {
  Tensor h = empty_tensor(t.sizes(), t.scalar_type(), Device(DeviceType::CPU));
  copy_cast(h, t);
  return h;
}

}  // namespace torchlite::index_walk
