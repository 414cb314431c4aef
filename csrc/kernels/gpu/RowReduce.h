#pragma once
// The row reduction under the CUDA reductions (kernels/gpu/reductions.inc; the range check of random.inc,
// the counts of indexing.inc, loss.inc's sums): `nout` rows of `row` elements, each reduced by an Op:
//   acc_t                            the accumulator (trivially copyable);
//   acc_t load(in_t v, int64_t k)    element k of a row as an accumulator;
//   acc_t combine(acc_t a, acc_t b)  commutative and associative up to rounding (ties between equal
//                                    values are broken by index inside combine, never by order);
//   acc_t empty()                    the result of an empty row (ops without an identity refuse those);
//   void store(acc_t a, int64_t o)   writes row o's result.
// Rows are read in place through a RowLayout (strided_rows() finds one for a tensor and a set of reduced
// dims: sum(dim=0) of a matrix reads its columns where they lie, with no transposed copy), or from a
// contiguous buffer.
//
// On the host (and on CUDA for layouts the kernels below do not cover): many rows, one thread per row;
// few long rows, each split into P interleaved partials (thread c reads elements c, c + P, c + 2P...),
// combined the same way until one thread per row finishes.
// On CUDA (kernels/gpu/RowReduce.cuh): rows whose elements are contiguous are reduced by a warp each
// (16-byte loads) or, when there are few of them, by blocks that each reduce one share of a row and a
// second pass over the shares; rows whose starts are contiguous (reductions over an outer dim) by blocks
// of 32 neighbouring rows that read coalesced.
#include "core/TensorFactory.h"
#include "kernels/Reduce.h"
#include "kernels/gpu/Backend.h"

namespace torchlite::gpu {

constexpr int64_t kSerialPerThread = 256;  // elements one thread combines in a pass over long rows
constexpr int64_t kManyRows = 16384;       // enough rows for one thread per row

// Where row o's element k lies: start(o) + k * s_elem, with o = outer * inner_n + inner and
// start(o) = outer * s_outer + inner * s_inner (the kept dims folded into at most two).
struct RowLayout {
  int64_t nout = 1;
  int64_t row = 1;
  int64_t inner_n = 1;
  int64_t s_inner = 0;
  int64_t s_outer = 0;
  int64_t s_elem = 1;
  TL_HOST_DEVICE int64_t start(int64_t o) const { return (o / inner_n) * s_outer + (o % inner_n) * s_inner; }
};

inline RowLayout contiguous_layout(int64_t nout, int64_t row) {
  RowLayout l;
  l.nout = nout;
  l.row = row;
  l.inner_n = nout > 0 ? nout : 1;
  l.s_inner = row;
  return l;
}

// The rows to reduce: `in` (whose data pointer is element 0 of the layout) and the layout.
struct StridedRows {
  Tensor in;
  RowLayout layout;
};

// self's dims in mask reduced, the others kept (in order: results are row-major over the kept dims),
// read in place when self already has dtype t and its kept dims fold into two strided dims and its
// reduced dims into one; otherwise laid out as contiguous rows (reduce::rows, a copy).
inline StridedRows strided_rows(const Tensor& self, uint64_t mask, ScalarType t) {
  if (self.scalar_type() == t && self.numel() > 0) {
    // Fold runs of dims (innermost first) whose strides chain: stride[outer] == stride[inner] * size[inner].
    int64_t kept_size[2] = {1, 1}, kept_stride[2] = {0, 0};
    int nkept = 0;
    int64_t red_size = 1, red_stride = 1;
    bool red_open = false, ok = true;
    bool kept_open = false;
    for (int64_t d = self.dim() - 1; d >= 0 && ok; --d) {
      const int64_t size = self.size(d), stride = self.stride(d);
      if (size == 1) continue;
      if (mask >> d & 1) {
        if (!red_open) {
          red_open = true;
          red_size = size;
          red_stride = stride;
        } else if (stride == red_stride * red_size) {
          red_size *= size;
        } else {
          ok = false;
        }
        kept_open = false;  // a later kept dim can't fold into an earlier kept run across a reduced dim
      } else {
        if (kept_open && stride == kept_stride[nkept - 1] * kept_size[nkept - 1]) {
          kept_size[nkept - 1] *= size;
        } else if (nkept < 2) {
          kept_size[nkept] = size;
          kept_stride[nkept] = stride;
          ++nkept;
          kept_open = true;
        } else {
          ok = false;
        }
      }
    }
    if (ok) {
      StridedRows r;
      r.in = self;
      RowLayout& l = r.layout;
      l.row = red_open ? red_size : 1;
      l.s_elem = red_open ? red_stride : 1;
      // kept_*[0] is the innermost kept run, kept_*[1] the outer one.
      l.inner_n = kept_size[0];
      l.s_inner = nkept >= 1 ? kept_stride[0] : 0;
      l.s_outer = nkept >= 2 ? kept_stride[1] : 0;
      l.nout = kept_size[0] * kept_size[1];
      return r;
    }
  }
  reduce::Rows c = reduce::rows(self, mask, t);
  return StridedRows{c.in, contiguous_layout(c.nout, c.row)};
}

// Element k of a row as an accumulator (the first level), or a partial as it is (the next ones).
template <class Op, typename in_t>
struct LoadElement {
  Op op;
  TL_HOST_DEVICE typename Op::acc_t operator()(in_t v, int64_t k) const { return op.load(v, k); }
};
template <typename acc_t>
struct LoadPartial {
  TL_HOST_DEVICE acc_t operator()(acc_t v, int64_t) const { return v; }
};

// One level: rows of x, each reduced by one thread, or split into P interleaved partials whose rows
// the next level reduces.
template <class B, typename src_t, class Op, class Load>
void reduce_level(const src_t* x, const RowLayout& l, const Op& op, const Load& load, Device device) {
  using acc_t = typename Op::acc_t;
  const int64_t nout = l.nout, row = l.row, se = l.s_elem;
  const int64_t P = (row + kSerialPerThread - 1) / kSerialPerThread;
  if (P <= 1 || nout >= kManyRows) {
    B::for_each(nout, [=] TL_HOST_DEVICE(int64_t o) {
      const src_t* r = x + l.start(o);
      acc_t a = load(r[0], 0);
      for (int64_t k = 1; k < row; ++k) a = op.combine(a, load(r[k * se], k));
      op.store(a, o);
    }, row);
    return;
  }
  Tensor buf = empty_tensor({nout * P * static_cast<int64_t>(sizeof(acc_t))}, ScalarType::UInt8, device);
  acc_t* part = reinterpret_cast<acc_t*>(buf.data_ptr());
  B::for_each(nout * P, [=] TL_HOST_DEVICE(int64_t i) {
    const int64_t o = i / P, c = i % P;
    const src_t* r = x + l.start(o);
    acc_t a = load(r[c * se], c);
    for (int64_t k = c + P; k < row; k += P) a = op.combine(a, load(r[k * se], k));
    part[i] = a;
  }, row / P);
  reduce_level<B>(part, contiguous_layout(nout, P), op, LoadPartial<acc_t>{}, device);
}

}  // namespace torchlite::gpu

#ifdef __CUDACC__
#include "kernels/gpu/RowReduce.cuh"
#endif

namespace torchlite::gpu {

// Reduces the rows of `in` laid out by l (element 0 at `in`).
template <class B, typename in_t, class Op>
void reduce_layout(const in_t* in, const RowLayout& l, const Op& op, Device device) {
  if (l.nout == 0) return;
  if (l.row == 0) {
    B::for_each(l.nout, [=] TL_HOST_DEVICE(int64_t o) { op.store(op.empty(), o); });
    return;
  }
#ifdef __CUDACC__
  if constexpr (B::is_cuda) {
    if (cuda_detail::reduce_on_cuda(in, l, op, LoadElement<Op, in_t>{op}, device)) return;
  }
#endif
  reduce_level<B>(in, l, op, LoadElement<Op, in_t>{op}, device);
}

// `nout` contiguous rows of `row` elements.
template <class B, typename in_t, class Op>
void reduce_rows(const in_t* in, int64_t nout, int64_t row, const Op& op, Device device) {
  reduce_layout<B>(in, contiguous_layout(nout, row), op, device);
}

}  // namespace torchlite::gpu
