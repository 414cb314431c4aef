#pragma once
// The row reduction under the CUDA reductions (kernels/gpu/reductions.inc; the range check of random.inc and
// the counts of indexing.inc): `nout` rows
// of `row` contiguous elements (reduce::rows() lays any input out so), each reduced by an Op:
//   acc_t                            the accumulator;
//   acc_t load(in_t v, int64_t k)    element k of a row as an accumulator;
//   acc_t combine(acc_t a, acc_t b)  commutative and associative up to rounding (ties between equal
//                                    values are broken by index inside combine, never by order);
//   acc_t empty()                    the result of an empty row (ops without an identity refuse those);
//   void store(acc_t a, int64_t o)   writes row o's result.
// Many rows: one thread per row. Few long rows: each row is split into P interleaved partials (thread c
// reads elements c, c + P, c + 2P..., so neighbouring threads read neighbouring elements), and the
// partials are combined the same way until one thread per row finishes.
#include "core/TensorFactory.h"
#include "kernels/gpu/Backend.h"

namespace torchlite::gpu {

constexpr int64_t kSerialPerThread = 256;  // elements one thread combines in a pass over long rows
constexpr int64_t kManyRows = 16384;       // enough rows for one thread per row

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
void reduce_level(const src_t* x, int64_t nout, int64_t row, const Op& op, const Load& load, Device device) {
  using acc_t = typename Op::acc_t;
  const int64_t P = (row + kSerialPerThread - 1) / kSerialPerThread;
  if (P <= 1 || nout >= kManyRows) {
    B::for_each(nout, [=] TL_HOST_DEVICE(int64_t o) {
      const src_t* r = x + o * row;
      acc_t a = load(r[0], 0);
      for (int64_t k = 1; k < row; ++k) a = op.combine(a, load(r[k], k));
      op.store(a, o);
    });
    return;
  }
  Tensor buf = empty_tensor({nout * P * static_cast<int64_t>(sizeof(acc_t))}, ScalarType::UInt8, device);
  acc_t* part = reinterpret_cast<acc_t*>(buf.data_ptr());
  B::for_each(nout * P, [=] TL_HOST_DEVICE(int64_t i) {
    const int64_t o = i / P, c = i % P;
    const src_t* r = x + o * row;
    acc_t a = load(r[c], c);
    for (int64_t k = c + P; k < row; k += P) a = op.combine(a, load(r[k], k));
    part[i] = a;
  });
  reduce_level<B>(part, nout, P, op, LoadPartial<acc_t>{}, device);
}

template <class B, typename in_t, class Op>
void reduce_rows(const in_t* in, int64_t nout, int64_t row, const Op& op, Device device) {
  if (nout == 0) return;
  if (row == 0) {
    B::for_each(nout, [=] TL_HOST_DEVICE(int64_t o) { op.store(op.empty(), o); });
    return;
  }
  reduce_level<B>(in, nout, row, op, LoadElement<Op, in_t>{op}, device);
}

}  // namespace torchlite::gpu
