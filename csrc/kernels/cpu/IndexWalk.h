#pragma once
// Shared machinery of the CPU indexing kernels (csrc/kernels/cpu/indexing.cpp):
// a walker over a shape with several strided operands, a dtype switch, and the
// index-tensor checks with PyTorch's messages.
#include <cstdint>
#include <initializer_list>

#include "core/Half.h"
#include "core/Parallel.h"
#include "core/Tensor.h"
#include "dispatch/Meta.h"
#include "kernels/cpu/Dispatch.h"

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

}  // namespace torchlite::index_walk
