#pragma once
// The CUDA kernels of gpu::reduce_layout (kernels/gpu/RowReduce.h, which includes this under nvcc only; the
// CUDA-only headers of kernels/gpu, *.cuh, are included by the .inc files only under __CUDACC__):
//  - warp_rows_kernel: one warp per row of contiguous elements, 16-byte loads where the row is aligned;
//  - block_rows_kernel: few long contiguous rows: blocks of 512 threads, each reducing one share of a
//    row; the shares are then reduced as rows of their own (a second, small pass);
//  - column_kernel: rows whose starts are neighbours (s_inner == 1: a reduction over an outer dim, as
//    sum(dim=0) of a matrix): blocks of 32 rows x 16 lanes; the 32 threads of a warp read 32 neighbouring
//    elements, the 16 lanes share the row's elements, and the blocks along y split the rows into shares
//    when there are too few rows to fill the GPU; for 4-byte dtypes each thread takes 16 bytes of
//    neighbouring rows at once (column_vec_kernel) where the layout keeps those vectors aligned.
// Every thread keeps whether it has seen an element, so ops without an identity (max, argmax) never meet
// a made-up one.
#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

#include "core/Error.h"
#include "core/TensorFactory.h"
#include "kernels/gpu/Device.cuh"

namespace torchlite::gpu::cuda_detail {

// v from lane (lane + delta) of the warp, for any trivially copyable type (moved as 32-bit words).
template <typename T>
__device__ inline T shfl_down(const T& v, int delta) {
  constexpr int kWords = (sizeof(T) + 3) / 4;
  unsigned words[kWords] = {};
  memcpy(words, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < kWords; ++i) words[i] = __shfl_down_sync(0xffffffffu, words[i], delta);
  T out;
  memcpy(&out, words, sizeof(T));
  return out;
}

// An accumulator that may not have seen an element yet.
template <typename acc_t>
struct Partial {
  acc_t a;
  bool have;
};

template <class Op, typename acc_t>
__device__ inline void add(const Op& op, Partial<acc_t>& p, const acc_t& v) {
  p.a = p.have ? op.combine(p.a, v) : v;
  p.have = true;
}

template <class Op, typename acc_t>
__device__ inline void merge(const Op& op, Partial<acc_t>& p, const Partial<acc_t>& q) {
  if (!q.have) return;
  p.a = p.have ? op.combine(p.a, q.a) : q.a;
  p.have = true;
}

// Lane 0 ends with the warp's partial.
template <class Op, typename acc_t>
__device__ inline Partial<acc_t> warp_reduce(const Op& op, Partial<acc_t> p) {
#pragma unroll
  for (int delta = 16; delta > 0; delta /= 2) {
    Partial<acc_t> q{shfl_down(p.a, delta), __shfl_down_sync(0xffffffffu, p.have, delta) != 0};
    merge(op, p, q);
  }
  return p;
}

// Elements [begin, end) of a contiguous row r into p: 16-byte loads from the first aligned element on,
// when the dtype allows, lanes `lane` of `nlanes` interleaved.
template <typename src_t, class Op, class Load, typename acc_t>
__device__ inline void accumulate_contiguous(const src_t* r, int64_t begin, int64_t end, int lane, int nlanes,
                                             const Op& op, const Load& load, Partial<acc_t>& p) {
  constexpr int V = sizeof(src_t) <= 8 && 16 % sizeof(src_t) == 0 ? static_cast<int>(16 / sizeof(src_t)) : 1;
  if constexpr (V > 1) {
    // The first element of [begin, end) that is 16-byte aligned (rows of a dtype start at its alignment).
    const uintptr_t addr = reinterpret_cast<uintptr_t>(r + begin);
    int64_t head = static_cast<int64_t>(((16 - addr % 16) % 16) / sizeof(src_t));
    if (addr % sizeof(src_t) != 0) head = end - begin;  // never aligned: all scalar
    if (head > end - begin) head = end - begin;
    for (int64_t k = begin + lane; k < begin + head; k += nlanes) add(op, p, load(r[k], k));
    const int64_t vbegin = begin + head;
    const int64_t nvec = (end - vbegin) / V;
    const Pack<src_t, V>* vr = reinterpret_cast<const Pack<src_t, V>*>(r + vbegin);
    for (int64_t v = lane; v < nvec; v += nlanes) {
      const Pack<src_t, V> pk = vr[v];
#pragma unroll
      for (int j = 0; j < V; ++j) add(op, p, load(pk.v[j], vbegin + v * V + j));
    }
    for (int64_t k = vbegin + nvec * V + lane; k < end; k += nlanes) add(op, p, load(r[k], k));
  } else {
    for (int64_t k = begin + lane; k < end; k += nlanes) add(op, p, load(r[k], k));
  }
}

template <typename src_t, class Op, class Load>
__global__ void warp_rows_kernel(const src_t* x, RowLayout l, Op op, Load load) {
  using acc_t = typename Op::acc_t;
  const int lane = threadIdx.x % 32;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; o < l.nout; o += warps) {
    Partial<acc_t> p{acc_t{}, false};
    accumulate_contiguous(x + l.start(o), 0, l.row, lane, 32, op, load, p);
    p = warp_reduce(op, p);
    if (lane == 0) op.store(p.a, o);  // row >= 1: lane 0 read element 0
  }
}

// Block (blockIdx.x, blockIdx.y) reduces share blockIdx.x of row row0 + blockIdx.y.
template <int kThreads, typename src_t, class Op, class Load>
__global__ void block_rows_kernel(const src_t* x, RowLayout l, Op op, Load load, int64_t row0, int64_t share,
                                  typename Op::acc_t* part) {
  using acc_t = typename Op::acc_t;
  __shared__ alignas(16) unsigned char raw[(kThreads / 32) * sizeof(Partial<acc_t>)];
  Partial<acc_t>* warp_part = reinterpret_cast<Partial<acc_t>*>(raw);
  const int64_t o = row0 + blockIdx.y;
  const int64_t s = blockIdx.x, nshares = gridDim.x;
  const int64_t begin = s * share, end = begin + share < l.row ? begin + share : l.row;
  Partial<acc_t> p{acc_t{}, false};
  accumulate_contiguous(x + l.start(o), begin, end, threadIdx.x, kThreads, op, load, p);
  p = warp_reduce(op, p);
  if (threadIdx.x % 32 == 0) warp_part[threadIdx.x / 32] = p;
  __syncthreads();
  if (threadIdx.x < 32) {
    Partial<acc_t> q = threadIdx.x < kThreads / 32 ? warp_part[threadIdx.x] : Partial<acc_t>{acc_t{}, false};
    q = warp_reduce(op, q);
    if (threadIdx.x == 0) {
      if (nshares == 1) op.store(q.a, o);
      else part[o * nshares + s] = q.a;  // every share is non-empty
    }
  }
}

template <int BX, int BY, typename src_t, class Op, class Load>
__global__ void column_kernel(const src_t* x, RowLayout l, Op op, Load load, int64_t share,
                              typename Op::acc_t* part) {
  using acc_t = typename Op::acc_t;
  __shared__ alignas(16) unsigned char raw[BX * BY * sizeof(Partial<acc_t>)];
  Partial<acc_t>* sh = reinterpret_cast<Partial<acc_t>*>(raw);
  const int64_t o = blockIdx.x * static_cast<int64_t>(BX) + threadIdx.x;
  const int64_t s = blockIdx.y, nshares = gridDim.y;
  Partial<acc_t> p{acc_t{}, false};
  if (o < l.nout) {
    const src_t* r = x + l.start(o);
    const int64_t begin = s * share, end = begin + share < l.row ? begin + share : l.row;
    for (int64_t k = begin + threadIdx.y; k < end; k += BY) add(op, p, load(r[k * l.s_elem], k));
  }
  sh[threadIdx.y * BX + threadIdx.x] = p;
  __syncthreads();
  if (threadIdx.y == 0 && o < l.nout) {
    for (int y = 1; y < BY; ++y) merge(op, p, sh[y * BX + threadIdx.x]);
    if (nshares == 1) op.store(p.a, o);
    else part[o * nshares + s] = p.a;  // every share is non-empty
  }
}

// column_kernel with V neighbouring outputs per thread, read as one 16-byte vector per element k (a warp
// reads 512 contiguous bytes per k). The caller checks that every vector is aligned and that no vector
// straddles two outer runs.
template <int BX, int BY, int V, typename src_t, class Op, class Load>
__global__ void column_vec_kernel(const src_t* x, RowLayout l, Op op, Load load, int64_t share,
                                  typename Op::acc_t* part) {
  using acc_t = typename Op::acc_t;
  __shared__ alignas(16) unsigned char raw[BX * BY * V * sizeof(Partial<acc_t>)];
  Partial<acc_t>* sh = reinterpret_cast<Partial<acc_t>*>(raw);
  const int64_t o0 = (blockIdx.x * static_cast<int64_t>(BX) + threadIdx.x) * V;
  const int64_t s = blockIdx.y, nshares = gridDim.y;
  Partial<acc_t> p[V];
#pragma unroll
  for (int j = 0; j < V; ++j) p[j] = Partial<acc_t>{acc_t{}, false};
  if (o0 < l.nout) {
    const src_t* r = x + l.start(o0);
    const int64_t begin = s * share, end = begin + share < l.row ? begin + share : l.row;
    for (int64_t k = begin + threadIdx.y; k < end; k += BY) {
      const Pack<src_t, V> pk = *reinterpret_cast<const Pack<src_t, V>*>(r + k * l.s_elem);
#pragma unroll
      for (int j = 0; j < V; ++j) add(op, p[j], load(pk.v[j], k));
    }
  }
#pragma unroll
  for (int j = 0; j < V; ++j) sh[(threadIdx.y * BX + threadIdx.x) * V + j] = p[j];
  __syncthreads();
  if (threadIdx.y == 0 && o0 < l.nout) {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      for (int y = 1; y < BY; ++y) merge(op, p[j], sh[(y * BX + threadIdx.x) * V + j]);
      if (nshares == 1) op.store(p[j].a, o0 + j);
      else part[(o0 + j) * nshares + s] = p[j].a;  // every share is non-empty
    }
  }
}

inline void check_launch() {
  cudaError_t err = cudaGetLastError();
  TL_CHECK(err == cudaSuccess, "CUDA kernel launch failed: ", cudaGetErrorString(err));
}

// Rows of `share` elements or more for each share; the number of shares so that `nout * shares` blocks
// fill the GPU about `waves` times, each share at least `min_share` elements.
inline int64_t shares_for(int64_t nout, int64_t row, int64_t blocks_wanted, int64_t min_share, int64_t& share) {
  int64_t n = (blocks_wanted + nout - 1) / nout;
  const int64_t most = (row + min_share - 1) / min_share;
  if (n > most) n = most;
  if (n < 1) n = 1;
  share = (row + n - 1) / n;
  share = (share + 15) / 16 * 16;          // whole 16-byte vectors for every dtype
  return (row + share - 1) / share;        // no share is empty
}

template <typename acc_t, class Op>
void reduce_partials(const acc_t* part, int64_t nout, int64_t shares, const Op& op, Device device);

// Reduces the rows of l on the device, or returns false for layouts these kernels do not cover (the caller
// then runs the generic levels).
template <typename src_t, class Op, class Load>
bool reduce_on_cuda(const src_t* x, const RowLayout& l, const Op& op, const Load& load, Device device) {
  using acc_t = typename Op::acc_t;
  const int64_t sms = sm_count();
  if (l.s_elem == 1) {
    if (l.row < 32 && l.nout >= 1024) return false;  // short rows: one thread each reads as well
    constexpr int kThreads = 512;
    // Enough rows to give every warp slot of the GPU one (or rows short enough for a warp): a warp a row.
    if (l.row <= 4096 || l.nout >= sms * 64) {
      int64_t blocks = (l.nout + kThreads / 32 - 1) / (kThreads / 32);
      if (blocks > sms * 32) blocks = sms * 32;
      warp_rows_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(x, l, op, load);
      check_launch();
      return true;
    }
    int64_t share = 0;
    const int64_t shares = shares_for(l.nout, l.row, sms * 4, kThreads * 16, share);
    Tensor buf;
    acc_t* part = nullptr;
    if (shares > 1) {
      buf = empty_tensor({l.nout * shares * static_cast<int64_t>(sizeof(acc_t))}, ScalarType::UInt8, device);
      part = reinterpret_cast<acc_t*>(buf.data_ptr());
    }
    for (int64_t row0 = 0; row0 < l.nout; row0 += 65535) {
      const int64_t rows = l.nout - row0 < 65535 ? l.nout - row0 : 65535;
      block_rows_kernel<kThreads><<<dim3(static_cast<unsigned>(shares), static_cast<unsigned>(rows)), kThreads>>>(
          x, l, op, load, row0, share, part);
      check_launch();
    }
    if (shares > 1) reduce_partials(part, l.nout, shares, op, device);
    return true;
  }
  if (l.s_inner == 1 && l.inner_n >= 8) {
    constexpr int BX = 32, BY = 16;
    // 16-byte vectors of V = 4 outputs (4-byte dtypes: float32, int32) where every one is aligned and lies
    // within one outer run.
    constexpr int V = sizeof(src_t) == 4 ? 4 : 1;
    constexpr bool kCanVec = V > 1 && BX * BY * V * sizeof(Partial<acc_t>) <= 32768;
    const bool vec = kCanVec && reinterpret_cast<uintptr_t>(x) % 16 == 0 && l.inner_n % V == 0 &&
                     l.s_elem % V == 0 && l.s_outer % V == 0 && l.inner_n / V >= 8;
    const int64_t gx = ((vec ? l.nout / V : l.nout) + BX - 1) / BX;
    TL_CHECK(gx <= 0x7fffffff, "reduction: too many outputs for one launch: ", l.nout);
    int64_t share = 0;
    int64_t shares = shares_for(gx, l.row, sms * 8, BY * 16, share);
    if (shares > 65535) {
      share = (l.row + 65534) / 65535;
      shares = (l.row + share - 1) / share;
    }
    Tensor buf;
    acc_t* part = nullptr;
    if (shares > 1) {
      buf = empty_tensor({l.nout * shares * static_cast<int64_t>(sizeof(acc_t))}, ScalarType::UInt8, device);
      part = reinterpret_cast<acc_t*>(buf.data_ptr());
    }
    const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(shares));
    if constexpr (kCanVec) {
      if (vec) column_vec_kernel<BX, BY, V><<<grid, dim3(BX, BY)>>>(x, l, op, load, share, part);
    }
    if (!vec) column_kernel<BX, BY><<<grid, dim3(BX, BY)>>>(x, l, op, load, share, part);
    check_launch();
    if (shares > 1) reduce_partials(part, l.nout, shares, op, device);
    return true;
  }
  return false;
}

template <typename acc_t, class Op>
__global__ void partials_kernel(const acc_t* part, int64_t nout, int64_t shares, Op op) {
  const int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (o >= nout) return;
  const acc_t* r = part + o * shares;
  acc_t a = r[0];
  for (int64_t k = 1; k < shares; ++k) a = op.combine(a, r[k]);
  op.store(a, o);
}

// The shares' partials (nout rows of `shares` contiguous accumulators) reduced into the results.
template <typename acc_t, class Op>
void reduce_partials(const acc_t* part, int64_t nout, int64_t shares, const Op& op, Device device) {
  RowLayout pl;
  pl.nout = nout;
  pl.row = shares;
  pl.inner_n = nout;
  pl.s_inner = shares;
  const LoadPartial<acc_t> load{};
  if (!reduce_on_cuda(part, pl, op, load, device)) {
    // Short share rows of many outputs: one thread per output.
    constexpr int kThreads = 256;
    const int64_t blocks = (nout + kThreads - 1) / kThreads;
    TL_CHECK(blocks <= 0x7fffffff, "reduction: too many outputs for one launch: ", nout);
    partials_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(part, nout, shares, op);
    check_launch();
  }
}

}  // namespace torchlite::gpu::cuda_detail
