// Direct 2-D convolution kernels on the CPU (see DirectConv.h).
#include "kernels/DirectConv.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/Macros.h"
#include "core/Parallel.h"

namespace torchlite::cpu {
namespace {

// 16-float vectors (GCC's generic vectors: one AVX-512 register, two AVX2 ones, four SSE ones, whichever the
// TL_CPU_MULTIVERSION clone targets). The helpers below are always inlined, so no vector crosses a call and
// the ABI note GCC gives for 64-byte vector arguments does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
constexpr int kLanes = 16;
typedef float vec __attribute__((vector_size(kLanes * sizeof(float))));

__attribute__((always_inline)) inline vec load(const float* p) {
  vec v;
  __builtin_memcpy(&v, p, sizeof(vec));
  return v;
}

__attribute__((always_inline)) inline void store(float* p, vec v) { __builtin_memcpy(p, &v, sizeof(vec)); }

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// The padded image: planes of (h + 2 ph) rows of wp = w + 2 pw, then `tail` zeros for the reads past the last
// plane's end (taps of the dropped positions).
struct Padded {
  int64_t wp, plane, size;
  Padded(int64_t c, int64_t h, int64_t w, int64_t ph, int64_t pw, int64_t tail)
      : wp(w + 2 * pw), plane((h + 2 * ph) * (w + 2 * pw)), size(c * plane + tail) {}
};

void pad_image(const float* x, float* dst, int64_t c, int64_t h, int64_t w, int64_t ph, int64_t pw,
               const Padded& pd) {
  std::memset(dst, 0, sizeof(float) * pd.size);
  for (int64_t ch = 0; ch < c; ++ch) {
    for (int64_t r = 0; r < h; ++r) {
      std::memcpy(dst + ch * pd.plane + (r + ph) * pd.wp + pw, x + (ch * h + r) * w, sizeof(float) * w);
    }
  }
}

// out[co][p] for p in [0, flen) (a multiple of NV lanes' vectors) of one block of COB output channels: the
// sum over channels c and taps (i, j) of wt[((c * kh + i) * kw + j) * COB + co] * pin[c * plane + i * wp + j + p].
template <int COB, int NV>
TL_CPU_MULTIVERSION void forward_block(const float* pin, int64_t plane, int64_t wp, int64_t C, int64_t kh, int64_t kw,
                                       const float* wt, float* out, int64_t flen) {
  for (int64_t p0 = 0; p0 < flen; p0 += NV * kLanes) {
    vec acc[COB][NV];
#pragma GCC unroll 16
    for (int co = 0; co < COB; ++co) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[co][v] = vec{};
    }
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t i = 0; i < kh; ++i) {
        const float* row = pin + c * plane + i * wp + p0;
        const float* wr = wt + (c * kh + i) * kw * COB;
        for (int64_t j = 0; j < kw; ++j) {
          vec in[NV];
#pragma GCC unroll 8
          for (int v = 0; v < NV; ++v) in[v] = load(row + j + v * kLanes);
#pragma GCC unroll 16
          for (int co = 0; co < COB; ++co) {
            const vec wv = vec{} + wr[j * COB + co];
#pragma GCC unroll 8
            for (int v = 0; v < NV; ++v) acc[co][v] += wv * in[v];
          }
        }
      }
    }
#pragma GCC unroll 16
    for (int co = 0; co < COB; ++co) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) store(out + co * flen + p0 + v * kLanes, acc[co][v]);
    }
  }
}

// acc[co * gs + j0 + jj] += the sum over p in [0, flen) of gof[co * flen + p] * row[j0 + jj + p], lane by lane,
// for COB channels and JB taps of one filter row (row: the padded input shifted by the row's i * wp).
template <int COB, int JB>
TL_CPU_MULTIVERSION void weight_grad_taps(const float* gof, int64_t flen, const float* row, int64_t j0, float* acc_mem,
                                          int64_t gs) {
  vec acc[COB][JB];
#pragma GCC unroll 8
  for (int co = 0; co < COB; ++co) {
#pragma GCC unroll 8
    for (int jj = 0; jj < JB; ++jj) acc[co][jj] = load(acc_mem + (co * gs + j0 + jj) * kLanes);
  }
  for (int64_t p = 0; p < flen; p += kLanes) {
    vec g[COB];
#pragma GCC unroll 8
    for (int co = 0; co < COB; ++co) g[co] = load(gof + co * flen + p);
#pragma GCC unroll 8
    for (int jj = 0; jj < JB; ++jj) {
      const vec in = load(row + j0 + jj + p);
#pragma GCC unroll 8
      for (int co = 0; co < COB; ++co) acc[co][jj] += g[co] * in;
    }
  }
#pragma GCC unroll 8
  for (int co = 0; co < COB; ++co) {
#pragma GCC unroll 8
    for (int jj = 0; jj < JB; ++jj) store(acc_mem + (co * gs + j0 + jj) * kLanes, acc[co][jj]);
  }
}

// The filters of output channels k0 .. k0 + COB as forward_block reads them (channels past c_out are zero).
template <int COB>
void block_filters(const float* weight, float* wt, int64_t k0, int64_t K, int64_t C, int64_t kh, int64_t kw,
                   bool flipped) {
  for (int64_t c = 0; c < C; ++c) {
    for (int64_t i = 0; i < kh; ++i) {
      for (int64_t j = 0; j < kw; ++j) {
        for (int co = 0; co < COB; ++co) {
          const int64_t k = k0 + co;
          float v = 0;
          if (k < K) {
            v = flipped ? weight[((c * K + k) * kh + kh - 1 - i) * kw + kw - 1 - j] : weight[((k * C + c) * kh + i) * kw + j];
          }
          wt[((c * kh + i) * kw + j) * COB + co] = v;
        }
      }
    }
  }
}

template <int COB, int NV>
void forward(const float* x, const float* weight, const float* bias, float* y, int64_t n, int64_t C, int64_t h,
             int64_t w, int64_t K, int64_t kh, int64_t kw, int64_t ph, int64_t pw, bool flipped) {
  const int64_t oh = h + 2 * ph - kh + 1, ow = w + 2 * pw - kw + 1;
  const int64_t blocks = (K + COB - 1) / COB;
  const Padded pd(C, h, w, ph, pw, 0);
  const int64_t flen = round_up(oh * pd.wp, NV * kLanes);
  const Padded pad(C, h, w, ph, pw, flen + kh * pd.wp + kw);
  std::unique_ptr<float[]> wt(new float[blocks * C * kh * kw * COB]);
  for (int64_t b = 0; b < blocks; ++b) block_filters<COB>(weight, wt.get() + b * C * kh * kw * COB, b * COB, K, C, kh, kw, flipped);
  const float* wtp = wt.get();
  const int64_t work = C * kh * kw * COB * flen;
  parallel_for(n * blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)), [&](int64_t begin, int64_t end) {
    std::unique_ptr<float[]> pin(new float[pad.size]);
    std::unique_ptr<float[]> out(new float[COB * flen]);
    int64_t padded_image = -1;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t img = task / blocks, b = task % blocks;
      if (img != padded_image) {
        pad_image(x + img * C * h * w, pin.get(), C, h, w, ph, pw, pad);
        padded_image = img;
      }
      forward_block<COB, NV>(pin.get(), pad.plane, pad.wp, C, kh, kw, wtp + b * C * kh * kw * COB, out.get(), flen);
      for (int co = 0; co < COB && b * COB + co < K; ++co) {
        const int64_t k = b * COB + co;
        const float bk = bias ? bias[k] : 0.0f;
        float* dst = y + (img * K + k) * oh * ow;
        const float* src = out.get() + co * flen;
        for (int64_t r = 0; r < oh; ++r) {
          for (int64_t q = 0; q < ow; ++q) dst[r * ow + q] = src[r * pad.wp + q] + bk;
        }
      }
    }
  });
}

template <int JB>
void weight_grad_row(const float* gof, int64_t flen, const float* row, int64_t j0, float* gw, int64_t gs) {
  weight_grad_taps<4, JB>(gof, flen, row, j0, gw, gs);
}

}  // namespace

bool direct_conv_worth_it(int64_t c_out) { return c_out <= 16; }

void direct_conv2d(const float* x, const float* weight, const float* bias, float* y, int64_t n, int64_t c_in,
                   int64_t h, int64_t w, int64_t c_out, int64_t kh, int64_t kw, int64_t ph, int64_t pw, bool flipped) {
  if (n == 0 || c_out == 0 || h + 2 * ph < kh || w + 2 * pw < kw) return;
  if (c_out <= 4) {
    forward<4, 4>(x, weight, bias, y, n, c_in, h, w, c_out, kh, kw, ph, pw, flipped);
  } else if (c_out <= 6) {
    forward<6, 4>(x, weight, bias, y, n, c_in, h, w, c_out, kh, kw, ph, pw, flipped);
  } else {
    forward<8, 3>(x, weight, bias, y, n, c_in, h, w, c_out, kh, kw, ph, pw, flipped);
  }
}

void direct_conv2d_weight_grad(const float* go, const float* x, float* gw, int64_t n, int64_t c_in, int64_t h,
                               int64_t w, int64_t c_out, int64_t kh, int64_t kw, int64_t ph, int64_t pw) {
  constexpr int COB = 4;
  const int64_t C = c_in, K = c_out;
  const int64_t oh = h + 2 * ph - kh + 1, ow = w + 2 * pw - kw + 1;
  std::fill(gw, gw + K * C * kh * kw, 0.0f);
  if (n == 0 || K == 0 || C == 0 || oh <= 0 || ow <= 0) return;
  const int64_t blocks = (K + COB - 1) / COB;
  const Padded pd(1, h, w, ph, pw, 0);
  const int64_t flen = round_up(oh * pd.wp, kLanes);
  const Padded pad(1, h, w, ph, pw, flen + kh * pd.wp + kw);
  // One task per (block of output channels, group of input channels), over every image in order: each gradient
  // element is summed by one task in a fixed order, whatever the thread count. The groups are few (the output
  // gradient's block is laid out once per image and task), enough to give every thread work.
  const int64_t groups = std::min<int64_t>(C, std::max<int64_t>(1, (2 * get_num_threads() + blocks - 1) / blocks));
  const int64_t cs = (C + groups - 1) / groups, taps = kh * kw;
  parallel_for(blocks * groups, 1, [&](int64_t begin, int64_t end) {
    std::unique_ptr<float[]> pin(new float[pad.size]);
    std::unique_ptr<float[]> gof(new float[COB * flen]);
    std::unique_ptr<float[]> acc(new float[cs * COB * taps * kLanes]);  // per channel and tap, lane by lane
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / groups, c0 = task % groups * cs, c1 = std::min(C, c0 + cs), k0 = b * COB;
      if (c0 >= c1) continue;
      std::fill(acc.get(), acc.get() + cs * COB * taps * kLanes, 0.0f);
      for (int64_t img = 0; img < n; ++img) {
        std::fill(gof.get(), gof.get() + COB * flen, 0.0f);
        for (int co = 0; co < COB && k0 + co < K; ++co) {
          const float* src = go + (img * K + k0 + co) * oh * ow;
          float* dst = gof.get() + co * flen;
          for (int64_t r = 0; r < oh; ++r) std::memcpy(dst + r * pad.wp, src + r * ow, sizeof(float) * ow);
        }
        for (int64_t c = c0; c < c1; ++c) {
          pad_image(x + (img * C + c) * h * w, pin.get(), 1, h, w, ph, pw, pad);
          float* ac = acc.get() + (c - c0) * COB * taps * kLanes;
          for (int64_t i = 0; i < kh; ++i) {
            const float* row = pin.get() + i * pad.wp;
            float* ai = ac + i * kw * kLanes;
            for (int64_t j0 = 0; j0 < kw; j0 += 5) {
              switch (std::min<int64_t>(5, kw - j0)) {
                case 1: weight_grad_row<1>(gof.get(), flen, row, j0, ai, taps); break;
                case 2: weight_grad_row<2>(gof.get(), flen, row, j0, ai, taps); break;
                case 3: weight_grad_row<3>(gof.get(), flen, row, j0, ai, taps); break;
                case 4: weight_grad_row<4>(gof.get(), flen, row, j0, ai, taps); break;
                default: weight_grad_row<5>(gof.get(), flen, row, j0, ai, taps); break;
              }
            }
          }
        }
      }
      for (int64_t c = c0; c < c1; ++c) {
        for (int co = 0; co < COB && k0 + co < K; ++co) {
          for (int64_t t = 0; t < taps; ++t) {
            const float* lanes = acc.get() + (((c - c0) * COB + co) * taps + t) * kLanes;
            float s = 0;
            for (int l = 0; l < kLanes; ++l) s += lanes[l];
            gw[((k0 + co) * C + c) * taps + t] = s;
          }
        }
      }
    }
  });
}

}  // namespace torchlite::cpu
