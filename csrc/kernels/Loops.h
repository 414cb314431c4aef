#pragma once
// The CPU elementwise loop every generated pointwise kernel runs:
//   cpu_kernel<scalar_t, out_t>(iter, [](opmath a, opmath b) { return a + b; });
// Inputs are loaded as the op-math type (float for half/bfloat16), the result is
// stored as out_t. A dense 1-d case gets a loop the compiler vectorizes; other
// layouts walk the coalesced strides. Large ranges split across OpenMP threads.
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/Parallel.h"
#include "kernels/Convert.h"
#include "kernels/ElementwiseIter.h"

namespace torchlite {

template <typename F>
struct lambda_traits : lambda_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... Args>
struct lambda_traits<R (C::*)(Args...) const> {
  static constexpr size_t arity = sizeof...(Args);
};

namespace detail {

template <typename in_t, typename out_t, typename F, size_t... I>
TL_ALWAYS_INLINE void dense_loop(char* const* ptrs, int64_t n, const F& f, std::index_sequence<I...>) {
  using op_t = opmath_t<in_t>;
  out_t* __restrict__ out = reinterpret_cast<out_t*>(ptrs[0]);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = convert<out_t>(f(static_cast<op_t>(reinterpret_cast<const in_t*>(ptrs[1 + I])[i])...));
  }
}

template <typename in_t, typename out_t, typename F, size_t... I>
TL_ALWAYS_INLINE void strided_loop(char* const* ptrs, const int64_t* strides, int64_t n, const F& f,
                                   std::index_sequence<I...>) {
  using op_t = opmath_t<in_t>;
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<out_t*>(ptrs[0] + i * strides[0]) = convert<out_t>(
        f(static_cast<op_t>(*reinterpret_cast<const in_t*>(ptrs[1 + I] + i * strides[1 + I]))...));
  }
}

// Dense except for inputs with stride 0 (a broadcast scalar, a wrapped number like the 2 of `x * 2`):
// each such input is copied once into a small buffer, and the loop runs dense over chunks of it, so it
// still vectorizes (a stride-0 operand keeps the plain strided loop scalar).
template <typename in_t, typename out_t, typename F, size_t... I>
TL_ALWAYS_INLINE void dense_scalar_loop(char* const* ptrs, const int64_t* strides, int64_t n, const F& f,
                                        std::index_sequence<I...> idx) {
  constexpr int64_t kChunk = 256;
  constexpr size_t N = sizeof...(I);
  in_t buf[N > 0 ? N : 1][kChunk];
  const int64_t fill = n < kChunk ? n : kChunk;
  for (size_t k = 0; k < N; ++k) {
    if (strides[1 + k] != 0) continue;
    const in_t v = *reinterpret_cast<const in_t*>(ptrs[1 + k]);
    for (int64_t i = 0; i < fill; ++i) buf[k][i] = v;
  }
  char* p[1 + N];
  for (int64_t c = 0; c < n; c += kChunk) {
    const int64_t m = n - c < kChunk ? n - c : kChunk;
    p[0] = ptrs[0] + c * static_cast<int64_t>(sizeof(out_t));
    for (size_t k = 0; k < N; ++k)
      p[1 + k] = strides[1 + k] == 0 ? reinterpret_cast<char*>(buf[k]) : ptrs[1 + k] + c * static_cast<int64_t>(sizeof(in_t));
    dense_loop<in_t, out_t>(p, m, f, idx);
  }
}

// Calls inner(ptrs, inner_strides, n) over the linear index range [begin, end).
template <typename F>
void for_each_inner(const ElementwiseIter& it, int64_t begin, int64_t end, const F& inner) {
  constexpr int M = ElementwiseIter::kMaxOperands;
  const int nop = it.noperands;
  char* ptrs[M];
  int64_t inner_strides[M];
  if (it.ndim == 0) {
    for (int op = 0; op < nop; ++op) {
      ptrs[op] = it.data[op];
      inner_strides[op] = 0;
    }
    inner(ptrs, inner_strides, int64_t(1));
    return;
  }
  int64_t coord[ElementwiseIter::kMaxDims];
  int64_t rem = begin;
  for (int d = 0; d < it.ndim; ++d) {
    coord[d] = rem % it.shape[d];
    rem /= it.shape[d];
  }
  for (int op = 0; op < nop; ++op) {
    int64_t off = 0;
    for (int d = 0; d < it.ndim; ++d) off += coord[d] * it.strides[op][d];
    ptrs[op] = it.data[op] + off;
    inner_strides[op] = it.strides[op][0];
  }
  while (begin < end) {
    int64_t n = it.shape[0] - coord[0];
    if (n > end - begin) n = end - begin;
    inner(ptrs, inner_strides, n);
    begin += n;
    if (begin >= end) break;
    // Advance to the start of the next row.
    for (int op = 0; op < nop; ++op) ptrs[op] += (n - 1) * it.strides[op][0];
    coord[0] += n - 1;
    for (int d = 0; d < it.ndim; ++d) {
      if (++coord[d] < it.shape[d]) {
        for (int op = 0; op < nop; ++op) ptrs[op] += it.strides[op][d];
        break;
      }
      for (int op = 0; op < nop; ++op) ptrs[op] -= it.strides[op][d] * (it.shape[d] - 1);
      coord[d] = 0;
    }
  }
}

}  // namespace detail

template <typename in_t, typename out_t = in_t, typename F>
void cpu_kernel(ElementwiseIter& it, const F& f) {
  constexpr size_t N = lambda_traits<F>::arity;
  using Idx = std::make_index_sequence<N>;
  if (it.numel == 0) return;
  const int nop = it.noperands;
  parallel_for(it.numel, kGrainSize, [&](int64_t begin, int64_t end) {
    detail::for_each_inner(it, begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
      bool dense = strides[0] == static_cast<int64_t>(sizeof(out_t));
      bool dense_or_scalar = dense;
      for (int op = 1; op < nop && dense_or_scalar; ++op) {
        dense = dense && strides[op] == static_cast<int64_t>(sizeof(in_t));
        dense_or_scalar = strides[op] == static_cast<int64_t>(sizeof(in_t)) || strides[op] == 0;
      }
      if (dense) {
        detail::dense_loop<in_t, out_t>(ptrs, n, f, Idx{});
      } else if (dense_or_scalar && n >= 16) {
        detail::dense_scalar_loop<in_t, out_t>(ptrs, strides, n, f, Idx{});
      } else {
        detail::strided_loop<in_t, out_t>(ptrs, strides, n, f, Idx{});
      }
    });
  });
  it.finish();
}

}  // namespace torchlite
