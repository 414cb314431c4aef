// _lstm_layer and _lstm_layer_backward: every step of one LSTM layer in one direction, for nn.LSTM over a
// batch of equal lengths (kernels/gpu/rnn.inc has the single-step cells).
//
// On the CPU (float32, float64) one OpenMP region runs all the steps. Each thread owns a share of the hidden
// units: per step it multiplies the previous h by its own rows of W_hh (the four gates of its units, packed
// together once), applies the cell to its units, and meets the others at a barrier, since the next step reads
// all of h. The backward is the mirror image: each thread computes its units' gate gradients, all meet at a
// barrier, then each multiplies all the gate gradients by its own columns of W_hh for its units' share of the
// next h gradient (no barrier needed there: a thread reads only its own columns of it). One region instead of
// several per step spares the wake-ups of sleeping worker threads, and no Python runs between steps.
// Elsewhere (CUDA, half and bfloat16), the same steps run as ops: one matrix product and one fused cell each.
#include <cblas.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#include <immintrin.h>
#endif

#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "dispatch/ExactMeta.h"
#include "kernels/Rnn.h"
#include "kernels/RnnMath.h"
#include "kernels/_lstm_layer.h"
#include "kernels/_lstm_layer_backward.h"
#include "ops/_lstm_cell_fused.h"
#include "ops/_lstm_cell_fused_backward.h"
#include "ops/add.h"
#include "ops/addmm.h"
#include "ops/contiguous.h"
#include "ops/copy.h"
#include "ops/mm.h"
#include "ops/reshape.h"
#include "ops/select.h"
#include "ops/t.h"
#include "ops/fill.h"

namespace torchlite {

namespace {

struct LayerDims {
  int64_t T = 0, B = 0, H = 0;
};

// x (T, B, W), a state (B, H) and W_hh (4H, H), all of one floating dtype on one device: x holds the gates (W =
// 4H), or, with w_ih, the layer's input (any W).
LayerDims check_layer(const char* op, const Tensor& x, const Tensor& state, const Tensor& w_hh, bool gates = true) {
  const char* name = gates ? "gates" : "input";
  rnn::check_floating(op, x);
  TL_CHECK(x.dim() == 3, op, ": expected 3-D ", name, " (steps, batch, ", gates ? "4 * hidden" : "input size",
           "), got ", to_string(x.sizes()));
  TL_CHECK(state.dim() == 2, op, ": expected a 2-D state (batch, hidden), got ", to_string(state.sizes()));
  LayerDims d{x.sizes()[0], state.sizes()[0], state.sizes()[1]};
  const int64_t W = gates ? 4 * d.H : x.sizes()[2];
  TL_CHECK(x.sizes()[1] == d.B && x.sizes()[2] == W, op, ": expected ", name, " of size [", d.T, ", ", d.B, ", ", W,
           "], got ", to_string(x.sizes()));
  TL_CHECK(x.scalar_type() == state.scalar_type() && x.device() == state.device(), op, ": expected ", name,
           " and states of one dtype on one device, got ", scalar_type_name(x.scalar_type()), " on ",
           to_string(x.device()), " and ", scalar_type_name(state.scalar_type()), " on ", to_string(state.device()));
  rnn::check_like(op, "w_hh", w_hh, state, 4 * d.H, d.H);
  TL_CHECK(d.B <= INT32_MAX && 4 * d.H <= INT32_MAX && W <= INT32_MAX, op, ": a batch of ", d.B, ", a hidden size of ",
           d.H, " and a width of ", W, " exceed the matrix sizes BLAS takes (32-bit)");
  return d;
}

// The forward's input: the gates (T, B, 4H) without w_ih; with it, x (T, B, I), w_ih (4H, I) and bias (4H).
LayerDims check_forward(const char* op, const Tensor& input, const Tensor& h0, const Tensor& w_hh,
                        const std::optional<Tensor>& w_ih, const std::optional<Tensor>& bias) {
  if (!w_ih) {
    TL_CHECK(!bias, op, ": a bias needs w_ih (without it, the input already holds the gates)");
    return check_layer(op, input, h0, w_hh);
  }
  const LayerDims d = check_layer(op, input, h0, w_hh, /*gates=*/false);
  rnn::check_like(op, "w_ih", *w_ih, h0, 4 * d.H, input.sizes()[2]);
  if (bias) {
    TL_CHECK(bias->dim() == 1 && bias->sizes()[0] == 4 * d.H, op, ": expected bias of size [", 4 * d.H, "], got ",
             to_string(bias->sizes()));
    TL_CHECK(bias->scalar_type() == h0.scalar_type() && bias->device() == h0.device(), op, ": expected bias of ",
             scalar_type_name(h0.scalar_type()), " on ", to_string(h0.device()), ", got ",
             scalar_type_name(bias->scalar_type()), " on ", to_string(bias->device()));
  }
  return d;
}

TensorMeta sized(const Tensor& like, DimVector sizes) { return exact_meta(std::move(sizes), like); }

// The step that runs s-th (0-based), and the one before it.
struct Order {
  int64_t T;
  bool reverse;
  int64_t step(int64_t s) const { return reverse ? T - 1 - s : s; }
  int64_t prev(int64_t t) const { return reverse ? t + 1 : t - 1; }
};

// The spin-wait hint of the CPU (none where it has no such instruction).
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

// A barrier for the threads of one region that spins (their work between barriers is short and even), then
// yields the core after about a millisecond of waiting.
class SpinBarrier {
 public:
  explicit SpinBarrier(int n) : n_(n) {}
  void wait() {
    if (n_ == 1) return;
    const int gen = gen_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) == n_ - 1) {
      count_.store(0, std::memory_order_relaxed);
      gen_.fetch_add(1, std::memory_order_release);
      return;
    }
    for (int spins = 0; gen_.load(std::memory_order_acquire) == gen; ++spins) {
      if (spins < (1 << 14)) {
        spin_pause();
      } else {
        sched_yield();
      }
    }
  }

 private:
  const int n_;
  std::atomic<int> count_{0};
  std::atomic<int> gen_{0};
};

// Row-major C (m, n) = A (m, k) B (k, n), or A B^T where B is stored (n, k); single-threaded BLAS.
template <typename T>
void gemm(bool b_transposed, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
          int64_t ldc) {
  const auto tb = b_transposed ? CblasTrans : CblasNoTrans;
  const auto im = static_cast<blasint>(m), in = static_cast<blasint>(n), ik = static_cast<blasint>(k);
  if constexpr (std::is_same_v<T, float>) {
    scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, tb, im, in, ik, 1.0f, a, static_cast<blasint>(lda), b,
                      static_cast<blasint>(ldb), 0.0f, c, static_cast<blasint>(ldc));
  } else {
    scipy_cblas_dgemm(CblasRowMajor, CblasNoTrans, tb, im, in, ik, 1.0, a, static_cast<blasint>(lda), b,
                      static_cast<blasint>(ldb), 0.0, c, static_cast<blasint>(ldc));
  }
}

// The recurrent products of float32 layers on CPUs with AVX-512: W_hh is packed once per call into panels of
// 32 columns (k-major: a panel's row k is 32 consecutive floats), and each step's product runs a register-tiled
// kernel over them (8 rows x 32 columns of accumulators). A BLAS call per step would pack W_hh again every step,
// a copy as large as the product's operand for a batch of 32 rows. Elsewhere the steps call BLAS.
namespace packed {

constexpr int64_t NR = 32;  // columns per panel: two 16-float registers
constexpr int MR = 8;       // rows per tile

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
bool available() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
}

// R rows of C (row stride ldc) = R rows of A (row stride lda) times one panel (K x NR).
// kAdd: C += the product instead.
template <int R, bool kAdd>
__attribute__((target("avx512f"), always_inline)) inline void tile(int64_t K, const float* a, int64_t lda,
                                                                   const float* panel, float* c, int64_t ldc) {
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) {
    acc[r][0] = kAdd ? _mm512_loadu_ps(c + r * ldc) : _mm512_setzero_ps();
    acc[r][1] = kAdd ? _mm512_loadu_ps(c + r * ldc + 16) : _mm512_setzero_ps();
  }
  for (int64_t k = 0; k < K; ++k) {
    const __m512 b0 = _mm512_loadu_ps(panel + k * NR), b1 = _mm512_loadu_ps(panel + k * NR + 16);
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(a[r * lda + k]);
      acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(c + r * ldc, acc[r][0]);
    _mm512_storeu_ps(c + r * ldc + 16, acc[r][1]);
  }
}

// C (M x N) = A (M x K) times the packed B (N / NR panels of K x NR), or C += it (add); N a multiple of NR.
template <bool kAdd>
__attribute__((target("avx512f"))) void gemm_impl(int64_t M, int64_t N, int64_t K, const float* a, int64_t lda,
                                                  const float* panels, float* c, int64_t ldc) {
  for (int64_t j = 0; j < N / NR; ++j) {
    const float* panel = panels + j * K * NR;
    float* cj = c + j * NR;
    int64_t i = 0;
    for (; i + MR <= M; i += MR) tile<MR, kAdd>(K, a + i * lda, lda, panel, cj + i * ldc, ldc);
    for (; i < M; ++i) tile<1, kAdd>(K, a + i * lda, lda, panel, cj + i * ldc, ldc);
  }
}
void gemm(int64_t M, int64_t N, int64_t K, const float* a, int64_t lda, const float* panels, float* c, int64_t ldc,
          bool add = false) {
  (add ? &gemm_impl<true> : &gemm_impl<false>)(M, N, K, a, lda, panels, c, ldc);
}
#else
bool available() { return false; }
void gemm(int64_t, int64_t, int64_t, const float*, int64_t, const float*, float*, int64_t, bool = false) {}
#endif

// Packs the K x N matrix whose element (k, col) is at col_ptr(col)[k * stride] into panels (N a multiple of NR).
template <typename ColPtr>
void pack(int64_t K, int64_t N, int64_t stride, const ColPtr& col_ptr, float* panels) {
  for (int64_t j = 0; j < N / NR; ++j)
    for (int64_t c = 0; c < NR; ++c) {
      const float* src = col_ptr(j * NR + c);
      float* dst = panels + j * K * NR + c;
      for (int64_t k = 0; k < K; ++k) dst[k * NR] = src[k * stride];
    }
}

}  // namespace packed

// The cell over units [0, n) of one batch row. x: the row's input gates (gate q of unit j at x[q * H + j]),
// g: its share of h W_hh^T (at g[q * n + j]), cx: the previous cell state; writes h, c and the activations w
// (at w[q * H + j]). Compiled per vector width, every call inlined, so that the loop vectorizes.
template <typename T>
__attribute__((flatten)) TL_CPU_MULTIVERSION void cell_row(const T* x, const T* g, const T* cx, T* h, T* c, T* w,
                                                           int64_t n, int64_t H) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const auto s = rnn_math::lstm_step(x[j] + g[j], x[H + j] + g[n + j], x[2 * H + j] + g[2 * n + j],
                                       x[3 * H + j] + g[3 * n + j], cx[j]);
    c[j] = s.c;
    h[j] = s.h;
    w[j] = s.i;
    w[H + j] = s.f;
    w[2 * H + j] = s.g;
    w[3 * H + j] = s.o;
  }
}

// The cell's gradient over units [0, n) of one batch row: gh = the output's gradient + dh (the next step's),
// gc = dc, updated in place to cx's gradient; gates' gradients into gg (at gg[q * H + j]).
template <typename T>
__attribute__((flatten)) TL_CPU_MULTIVERSION void cell_row_backward(const T* gout, const T* dh, T* dc, const T* cx,
                                                                    const T* cy, const T* w, T* gg, int64_t n,
                                                                    int64_t H) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const auto d = rnn_math::lstm_step_backward(gout[j] + dh[j], dc[j], cx[j], cy[j], w[j], w[H + j], w[2 * H + j],
                                                w[3 * H + j]);
    gg[j] = d.i;
    gg[H + j] = d.f;
    gg[2 * H + j] = d.g;
    gg[3 * H + j] = d.o;
    dc[j] = d.cx;
  }
}

// How many threads share a layer: one per 32 hidden units at most, and one alone for small products.
int layer_team(const LayerDims& d) {
  if (in_parallel_region() || d.B * d.H * d.H * 4 < (int64_t(1) << 18)) return 1;
  const int64_t by_units = d.H / 32 > 0 ? d.H / 32 : 1;
  const int64_t n = detail::openmp_team_size();
  return static_cast<int>(n < by_units ? n : by_units);
}

// Runs f(tid, nt, barrier) on a team of `want` threads, the GIL released; on one thread alone if OpenMP gives
// fewer (a barrier for `want` would never open).
template <typename F>
void run_team(int want, const F& f) {
  WithoutGil nogil(true);
  SpinBarrier one(1);
#ifdef _OPENMP
  if (want > 1) {
    detail::note_openmp_team();
    SpinBarrier barrier(want);
#pragma omp parallel num_threads(want)
    {
      if (omp_get_num_threads() == want) {
        f(omp_get_thread_num(), want, barrier);
      } else if (omp_get_thread_num() == 0) {
        f(0, 1, one);
      }
    }
    return;
  }
#endif
  f(0, 1, one);
}

// Thread tid's share among nt of H hidden units (or columns): [begin, end), in multiples of `multiple`.
std::pair<int64_t, int64_t> share(int tid, int nt, int64_t H, int64_t multiple = 8) {
  const int64_t per = ((H + nt - 1) / nt + multiple - 1) / multiple * multiple;
  const int64_t b = tid * per < H ? tid * per : H;
  return {b, b + per < H ? b + per : H};
}

// n elements of scratch memory from the caching allocator, kept alive by `holder`. A std::vector of megabytes
// would go back to the system after every call and be faulted in again page by page by the next one (about 1,000
// page faults, 2 ms, per forward and backward of the benchmark's layer).
template <typename T>
T* scratch(Tensor& holder, int64_t n) {
  if (n == 0) return nullptr;
  holder = empty_tensor({n}, ScalarTypeOf<T>::value);
  return holder.data<T>();
}

// The forward runs every step's product with the input in its steps (x_t W_ih^T, then + h W_hh^T into the same
// accumulators) where both products take packed panels: float32 on CPUs with AVX-512, and whole panels for every
// thread (4 gates x its units, a multiple of 8 units: H a multiple of 8). A product of W_ih's 4H rows with the
// steps' inputs then runs where W_hh's does, out of the same cache, instead of one BLAS product beforehand whose
// result (T, B, 4H) each step reads back.
bool forward_takes_input(const Tensor& h0, int64_t H) {
  return h0.device().is_cpu() && h0.scalar_type() == ScalarType::Float && packed::available() && H % 8 == 0;
}

// The backward's input gradient, each step's gate gradients times W_ih, in its steps: with panels for every
// thread's share of the I columns (I a multiple of NR).
bool backward_takes_input(const Tensor& c0, int64_t I) {
  return c0.device().is_cpu() && c0.scalar_type() == ScalarType::Float && packed::available() &&
         I % packed::NR == 0;
}

// The layer's input when the steps compute its product: x (T, B, I) and w_ih (4H, I) contiguous, bias (4H) or null.
template <typename T>
struct StepInput {
  const T* x = nullptr;
  const T* w_ih = nullptr;
  const T* bias = nullptr;
  int64_t I = 0;
};

// xg: the input gates (T, B, 4H), or null with `in` (the steps compute them).
template <typename T>
void layer_forward_cpu(const T* xg, const StepInput<T>& in, const T* h0, const T* c0, const T* w, T* out, T* cy,
                       T* ws, const LayerDims& d, bool reverse) {
  const int64_t T_ = d.T, B = d.B, H = d.H, I = in.I;
  const Order order{T_, reverse};
  const bool fused = xg == nullptr;
  Tensor holders[3];
  T* packed = scratch<T>(holders[0], 4 * H * H);                 // each thread's four gate blocks of W_hh rows
  T* packed_ih = scratch<T>(holders[1], fused ? 4 * H * I : 0);  // and of W_ih rows
  T* gh = scratch<T>(holders[2], 4 * B * H);                     // each thread's share of the steps' products
  std::vector<T> zeros(fused && !in.bias ? static_cast<size_t>(4 * H) : 0);
  const T* bias = in.bias ? in.bias : zeros.data();
  run_team(layer_team(d), [&](int tid, int nt, SpinBarrier& barrier) {
    const auto [a, e] = share(tid, nt, H);
    const int64_t n = e - a;
    T* wk = packed + 4 * a * H;
    // Column q * n + j of the thread's product is gate q of unit a + j: row q * H + a + j of W_hh (and W_ih).
    const auto w_row = [&](int64_t col) { return w + ((col / n) * H + a + col % n) * H; };
    const bool panels = std::is_same_v<T, float> && packed::available() && (4 * n) % packed::NR == 0;
    T* wk_ih = fused ? packed_ih + 4 * a * I : nullptr;
    if (panels) {
      if constexpr (std::is_same_v<T, float>) {
        packed::pack(H, 4 * n, 1, w_row, wk);
        if (fused) packed::pack(I, 4 * n, 1, [&](int64_t col) { return in.w_ih + ((col / n) * H + a + col % n) * I; },
                                wk_ih);
      }
    } else {
      for (int64_t col = 0; col < 4 * n; ++col) std::copy_n(w_row(col), H, wk + col * H);
    }
    T* g = gh + 4 * B * a;
    for (int64_t s = 0; s < T_; ++s) {
      const int64_t t = order.step(s), p = order.prev(t);
      const T* hp = s ? out + p * B * H : h0;
      const T* cp = s ? cy + p * B * H : c0;
      if constexpr (std::is_same_v<T, float>) {
        if (panels && fused) packed::gemm(B, 4 * n, I, in.x + t * B * I, I, wk_ih, g, 4 * n);
        if (panels) packed::gemm(B, 4 * n, H, hp, H, wk, g, 4 * n, fused);
      }
      if (n > 0 && !panels) gemm<T>(true, B, 4 * n, H, hp, H, wk, H, g, 4 * n);
      for (int64_t b = 0; b < B && n > 0; ++b) {
        const int64_t row = (t * B + b) * H + a;
        // The input gates of the row, or the bias alone when the product above holds the input's part.
        const T* x_row = fused ? bias + a : xg + (t * B + b) * 4 * H + a;
        cell_row<T>(x_row, g + b * 4 * n, cp + b * H + a, out + row, cy + row, ws + (t * B + b) * 4 * H + a, n, H);
      }
      barrier.wait();  // the next step reads all of this step's h
    }
  });
}

// dx: null, or the input's gradient (T, B, I) = each step's gate gradients times w_ih (4H, I), computed in the
// steps (backward_takes_input).
template <typename T>
void layer_backward_cpu(const T* gout, const T* c0, const T* cy, const T* ws, const T* w, T* gg,
                        T* dh, T* dc, const LayerDims& d, bool reverse, const T* w_ih, int64_t I, T* dx) {
  // dh, dc: (B, H), holding the last step's gradients on entry and h0's and c0's on return.
  const int64_t T_ = d.T, B = d.B, H = d.H;
  const Order order{T_, reverse};
  const bool can_pack = std::is_same_v<T, float> && packed::available();
  Tensor holders[2];
  T* packed = scratch<T>(holders[0], can_pack ? 4 * H * H : 0);  // each thread's columns of W_hh
  T* packed_ih = scratch<T>(holders[1], dx ? 4 * H * I : 0);    // and of W_ih
  run_team(layer_team(d), [&](int tid, int nt, SpinBarrier& barrier) {
    const auto [a, e] = share(tid, nt, H);
    const int64_t n = e - a;
    // The thread's product: the gate gradients (B x 4H) times columns a..e of W_hh (4H x n).
    const bool panels = can_pack && n % packed::NR == 0 && n > 0;
    T* wk = panels ? packed + 4 * H * a : nullptr;
    // And times its columns xa..xe of W_ih, for the input's gradient.
    const auto [xa, xe] = share(tid, nt, I, packed::NR);
    T* wk_ih = dx && xe > xa ? packed_ih + 4 * H * xa : nullptr;
    if constexpr (std::is_same_v<T, float>) {
      if (panels) packed::pack(4 * H, n, H, [&](int64_t col) { return w + a + col; }, wk);
      if (wk_ih) packed::pack(4 * H, xe - xa, I, [&](int64_t col) { return w_ih + xa + col; }, wk_ih);
    }
    for (int64_t s = T_ - 1; s >= 0; --s) {
      const int64_t t = order.step(s), p = order.prev(t);
      const T* cp = s ? cy + p * B * H : c0;
      for (int64_t b = 0; b < B && n > 0; ++b) {
        const int64_t row = (t * B + b) * H + a;
        cell_row_backward<T>(gout + row, dh + b * H + a, dc + b * H + a, cp + b * H + a, cy + row,
                             ws + (t * B + b) * 4 * H + a, gg + (t * B + b) * 4 * H + a, n, H);
      }
      barrier.wait();  // the product below reads every unit's gate gradients
      if constexpr (std::is_same_v<T, float>) {
        if (panels) packed::gemm(B, n, 4 * H, gg + t * B * 4 * H, 4 * H, wk, dh + a, H);
        if (wk_ih) packed::gemm(B, xe - xa, 4 * H, gg + t * B * 4 * H, 4 * H, wk_ih, dx + t * B * I + xa, I);
      }
      if (n > 0 && !panels) gemm<T>(false, B, n, 4 * H, gg + t * B * 4 * H, 4 * H, w + a, H, dh + a, H);
    }
  });
}

bool layer_on_cpu(const Tensor& t) {
  return t.device().is_cpu() && (t.scalar_type() == ScalarType::Float || t.scalar_type() == ScalarType::Double);
}

// The result itself when contiguous, else a contiguous tensor to compute in (copied back by `finish`).
Tensor target(const Tensor& out) { return out.is_contiguous() ? out : contiguous(out); }
void finish(const Tensor& out, const Tensor& computed) {
  if (!out.is_same(computed)) copy_(out, computed);
}

// The input's gradient (T, B, I) as one product over all steps: the gates' gradients (T, B, 4H) times w_ih.
void input_gradient(const Tensor& grad_gates, const Tensor& w_ih, const LayerDims& d, const Tensor& out) {
  copy_(out, reshape(mm(reshape(grad_gates, {d.T * d.B, 4 * d.H}), w_ih), {d.T, d.B, w_ih.sizes()[1]}));
}

}  // namespace

std::array<TensorMeta, 3> meta::lstm_layer_meta(const Tensor& input, const Tensor& h0, const Tensor& c0,
                                                const Tensor& w_hh, bool reverse, const std::optional<Tensor>& w_ih,
                                                const std::optional<Tensor>& bias) {
  (void)reverse;
  const char* op = "_lstm_layer";
  const LayerDims d = check_forward(op, input, h0, w_hh, w_ih, bias);
  rnn::check_like(op, "c0", c0, h0, d.B, d.H);
  return {sized(h0, {d.T, d.B, d.H}), sized(h0, {d.T, d.B, d.H}), sized(h0, {d.T, d.B, 4 * d.H})};
}

std::array<TensorMeta, 4> meta::lstm_layer_backward_meta(const Tensor& grad_output, const Tensor& grad_hn,
                                                         const Tensor& grad_cn, const Tensor& c0, const Tensor& cy,
                                                         const Tensor& workspace, const Tensor& w_hh, bool reverse,
                                                         const std::optional<Tensor>& w_ih) {
  (void)reverse;
  const char* op = "_lstm_layer_backward";
  const LayerDims d = check_layer(op, workspace, c0, w_hh);
  rnn::check_like(op, "grad_hn", grad_hn, c0, d.B, d.H);
  rnn::check_like(op, "grad_cn", grad_cn, c0, d.B, d.H);
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"grad_output", &grad_output}, {"cy", &cy}}) {
    TL_CHECK(t->dim() == 3 && t->sizes()[0] == d.T && t->sizes()[1] == d.B && t->sizes()[2] == d.H, op,
             ": expected ", name, " of size [", d.T, ", ", d.B, ", ", d.H, "], got ", to_string(t->sizes()));
    TL_CHECK(t->scalar_type() == c0.scalar_type() && t->device() == c0.device(), op, ": expected ", name,
             " of dtype ", scalar_type_name(c0.scalar_type()), " on ", to_string(c0.device()), ", got ",
             scalar_type_name(t->scalar_type()), " on ", to_string(t->device()));
  }
  if (w_ih) {
    TL_CHECK(w_ih->dim() == 2, op, ": expected w_ih of size [", 4 * d.H, ", input size], got ",
             to_string(w_ih->sizes()));
    rnn::check_like(op, "w_ih", *w_ih, c0, 4 * d.H, w_ih->sizes()[1]);
  }
  const DimVector input_sizes = w_ih ? DimVector{d.T, d.B, w_ih->sizes()[1]} : DimVector{0};
  return {sized(c0, {d.T, d.B, 4 * d.H}), sized(c0, {d.B, d.H}), sized(c0, {d.B, d.H}), sized(c0, input_sizes)};
}

void kernels::lstm_layer_out_any_device(const Tensor& input, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                                        bool reverse, const std::optional<Tensor>& w_ih,
                                        const std::optional<Tensor>& bias, const Tensor& out0, const Tensor& out1,
                                        const Tensor& out2) {
  const LayerDims d = check_forward("_lstm_layer", input, h0, w_hh, w_ih, bias);
  if (d.T * d.B * d.H == 0) return;
  const Order order{d.T, reverse};
  // The steps compute the input's product (forward_takes_input), or the input gates are one product over all
  // steps first.
  const bool steps_take_input = w_ih && forward_takes_input(h0, d.H);
  Tensor input_gates = input;
  if (w_ih && !steps_take_input) {
    const Tensor flat = reshape(input, {d.T * d.B, input.sizes()[2]});
    input_gates = reshape(bias ? addmm(*bias, flat, t(*w_ih)) : mm(flat, t(*w_ih)), {d.T, d.B, 4 * d.H});
  }
  if (layer_on_cpu(h0)) {
    const Tensor h = contiguous(h0), c = contiguous(c0), w = contiguous(w_hh);
    const Tensor out = target(out0), cy = target(out1), ws = target(out2);
    if (steps_take_input) {
      const Tensor x = contiguous(input), wi = contiguous(*w_ih), b = bias ? contiguous(*bias) : Tensor();
      const StepInput<float> in{x.data<float>(), wi.data<float>(), bias ? b.data<float>() : nullptr, x.sizes()[2]};
      layer_forward_cpu<float>(nullptr, in, h.data<float>(), c.data<float>(), w.data<float>(), out.data<float>(),
                               cy.data<float>(), ws.data<float>(), d, reverse);
    } else if (h0.scalar_type() == ScalarType::Float) {
      const Tensor xg = contiguous(input_gates);
      layer_forward_cpu<float>(xg.data<float>(), {}, h.data<float>(), c.data<float>(), w.data<float>(),
                               out.data<float>(), cy.data<float>(), ws.data<float>(), d, reverse);
    } else {
      const Tensor xg = contiguous(input_gates);
      layer_forward_cpu<double>(xg.data<double>(), {}, h.data<double>(), c.data<double>(), w.data<double>(),
                                out.data<double>(), cy.data<double>(), ws.data<double>(), d, reverse);
    }
    finish(out0, out);
    finish(out1, cy);
    finish(out2, ws);
    return;
  }
  // Any other device or dtype: the steps as ops.
  const Tensor w_t = t(w_hh);
  Tensor h = h0, c = c0;
  for (int64_t s = 0; s < d.T; ++s) {
    const int64_t i = order.step(s);
    auto [hy, cn, work] = _lstm_cell_fused(addmm(select(input_gates, 0, i), h, w_t), c);
    copy_(select(out0, 0, i), hy);
    copy_(select(out1, 0, i), cn);
    copy_(select(out2, 0, i), work);
    h = hy;
    c = cn;
  }
}

void kernels::lstm_layer_backward_out_any_device(const Tensor& grad_output, const Tensor& grad_hn,
                                                 const Tensor& grad_cn, const Tensor& c0, const Tensor& cy,
                                                 const Tensor& workspace, const Tensor& w_hh, bool reverse,
                                                 const std::optional<Tensor>& w_ih, const Tensor& out0,
                                                 const Tensor& out1, const Tensor& out2, const Tensor& out3) {
  const LayerDims d = check_layer("_lstm_layer_backward", workspace, c0, w_hh);
  const Order order{d.T, reverse};
  if (d.T * d.B * d.H == 0) {
    if (d.B * d.H) {
      copy_(out1, grad_hn);
      copy_(out2, grad_cn);
    }
    if (w_ih && out3.numel()) fill_(out3, Scalar(0));  // no steps: no gradient reaches the input (T = 0 or H = 0)
    return;
  }
  const int64_t I = w_ih ? w_ih->sizes()[1] : 0;
  const bool steps_take_input = w_ih && backward_takes_input(c0, I);
  if (layer_on_cpu(c0)) {
    const Tensor go = contiguous(grad_output), c = contiguous(c0), cys = contiguous(cy), ws = contiguous(workspace);
    const Tensor w = contiguous(w_hh);
    const Tensor gg = target(out0), dh = target(out1), dc = target(out2);
    copy_(dh, grad_hn);
    copy_(dc, grad_cn);
    if (c0.scalar_type() == ScalarType::Float) {
      const Tensor wi = steps_take_input ? contiguous(*w_ih) : Tensor();
      const Tensor dx = steps_take_input ? target(out3) : Tensor();
      layer_backward_cpu<float>(go.data<float>(), c.data<float>(), cys.data<float>(), ws.data<float>(),
                                w.data<float>(), gg.data<float>(), dh.data<float>(), dc.data<float>(), d, reverse,
                                steps_take_input ? wi.data<float>() : nullptr, I,
                                steps_take_input ? dx.data<float>() : nullptr);
      if (steps_take_input) finish(out3, dx);
    } else {
      layer_backward_cpu<double>(go.data<double>(), c.data<double>(), cys.data<double>(),
                                 ws.data<double>(), w.data<double>(), gg.data<double>(), dh.data<double>(),
                                 dc.data<double>(), d, reverse, nullptr, 0, nullptr);
    }
    finish(out0, gg);
    finish(out1, dh);
    finish(out2, dc);
    if (w_ih && !steps_take_input) input_gradient(out0, *w_ih, d, out3);
    return;
  }
  Tensor dh = grad_hn, dc = grad_cn;
  for (int64_t s = d.T - 1; s >= 0; --s) {
    const int64_t i = order.step(s), p = order.prev(i);
    const Tensor cp = s ? select(cy, 0, p) : c0;
    auto [g, dcx] = _lstm_cell_fused_backward(add(select(grad_output, 0, i), dh), dc, cp, select(cy, 0, i),
                                              select(workspace, 0, i), std::array<bool, 2>{true, true});
    copy_(select(out0, 0, i), g);
    dh = mm(g, w_hh);
    dc = dcx;
  }
  copy_(out1, dh);
  copy_(out2, dc);
  if (w_ih) input_gradient(out0, *w_ih, d, out3);
}

}  // namespace torchlite
