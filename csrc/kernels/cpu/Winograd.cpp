// Winograd F(2x2, 3x3) convolution on the CPU (see Winograd.h).
//
// Layout. The output's 2x2 tiles are numbered row by row, image after image; a block is a run of whole tile
// rows (about kTilesPerBlock tiles, of one image or several), and each thread takes whole blocks. For a block of P
// tiles: V[xi][c][p] (16 x c_in x P) holds the transformed input patches, M[xi][k][p] = U[xi] @ V[xi]
// (16 products by BLAS, U[xi] the transformed filters, c_out x c_in), and the output transform reads M back.
// Along a tile row, tile j's patch starts at padded column 2j, so its four columns are the even and odd
// columns j and j + 1: the transforms run on whole rows, vectorized, with stride-1 stores.
#include "kernels/Winograd.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/Macros.h"
#include "core/Parallel.h"

namespace torchlite::cpu {
namespace {

constexpr int64_t kTilesPerBlock = 256;

// U[xi][k][c] = (G g G^T)[xi] for filter g = weight (k, c), G = [[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]].
void transform_filters(const float* weight, float* U, int64_t K, int64_t C, bool flipped) {
  parallel_for(K * C, 1024, [&](int64_t begin, int64_t end) {
    for (int64_t kc = begin; kc < end; ++kc) {
      const int64_t k = kc / C, c = kc % C;
      float g[3][3], t[4][3];
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          g[i][j] = flipped ? weight[((c * K + k) * 3 + 2 - i) * 3 + 2 - j] : weight[((k * C + c) * 3 + i) * 3 + j];
        }
      }
      for (int j = 0; j < 3; ++j) {
        t[0][j] = g[0][j];
        t[1][j] = 0.5f * (g[0][j] + g[1][j] + g[2][j]);
        t[2][j] = 0.5f * (g[0][j] - g[1][j] + g[2][j]);
        t[3][j] = g[2][j];
      }
      for (int i = 0; i < 4; ++i) {
        const float u[4] = {t[i][0], 0.5f * (t[i][0] + t[i][1] + t[i][2]), 0.5f * (t[i][0] - t[i][1] + t[i][2]),
                            t[i][2]};
        for (int j = 0; j < 4; ++j) U[((i * 4 + j) * K + k) * C + c] = u[j];
      }
    }
  });
}

// One tile row of one channel: the padded rows p0..p3 (width 2 tw + 2) to V's 16 rows of tw values, v[xi * xs + j].
// B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]] on the rows, then on the columns.
TL_CPU_MULTIVERSION void input_tile_row(const float* __restrict p0, const float* __restrict p1,
                                        const float* __restrict p2, const float* __restrict p3,
                                        float* __restrict eo, float* __restrict v, int64_t tw, int64_t xs) {
  const int64_t n = tw + 1;
  float* __restrict e0 = eo;
  float* __restrict e1 = eo + n;
  float* __restrict e2 = eo + 2 * n;
  float* __restrict e3 = eo + 3 * n;
  float* __restrict o0 = eo + 4 * n;
  float* __restrict o1 = eo + 5 * n;
  float* __restrict o2 = eo + 6 * n;
  float* __restrict o3 = eo + 7 * n;
  for (int64_t j = 0; j < n; ++j) {  // the rows' combinations, split into even and odd columns
    const float a0 = p0[2 * j], a1 = p1[2 * j], a2 = p2[2 * j], a3 = p3[2 * j];
    e0[j] = a0 - a2;
    e1[j] = a1 + a2;
    e2[j] = a2 - a1;
    e3[j] = a1 - a3;
  }
  for (int64_t j = 0; j < n; ++j) {
    const float a0 = p0[2 * j + 1], a1 = p1[2 * j + 1], a2 = p2[2 * j + 1], a3 = p3[2 * j + 1];
    o0[j] = a0 - a2;
    o1[j] = a1 + a2;
    o2[j] = a2 - a1;
    o3[j] = a1 - a3;
  }
  for (int i = 0; i < 4; ++i) {  // columns 2j .. 2j + 3 are e[j], o[j], e[j + 1], o[j + 1]
    const float* __restrict e = eo + i * n;
    const float* __restrict o = eo + (4 + i) * n;
    float* __restrict v0 = v + (4 * i) * xs;
    float* __restrict v1 = v0 + xs;
    float* __restrict v2 = v1 + xs;
    float* __restrict v3 = v2 + xs;
    for (int64_t j = 0; j < tw; ++j) {
      v0[j] = e[j] - e[j + 1];
      v1[j] = o[j] + e[j + 1];
      v2[j] = e[j + 1] - o[j];
      v3[j] = o[j] - o[j + 1];
    }
  }
}

// One tile row of one output channel: M's 16 rows m[xi * xs + j] to two output rows of 2 tw values plus bias.
// A^T = [[1, 1, 1, 0], [0, 1, -1, -1]] on the rows, then on the columns.
TL_CPU_MULTIVERSION void output_tile_row(const float* __restrict m, float* __restrict y0, float* __restrict y1,
                                         int64_t tw, int64_t xs, float bias) {
  for (int64_t j = 0; j < tw; ++j) {
    float s0[4], s1[4];
    for (int b = 0; b < 4; ++b) {
      const float m0 = m[b * xs + j], m1 = m[(4 + b) * xs + j], m2 = m[(8 + b) * xs + j], m3 = m[(12 + b) * xs + j];
      s0[b] = m0 + m1 + m2;
      s1[b] = m1 - m2 - m3;
    }
    y0[2 * j] = s0[0] + s0[1] + s0[2] + bias;
    y0[2 * j + 1] = s0[1] - s0[2] - s0[3] + bias;
    y1[2 * j] = s1[0] + s1[1] + s1[2] + bias;
    y1[2 * j + 1] = s1[1] - s1[2] - s1[3] + bias;
  }
}

// One tile row of one output-gradient channel: its two rows y0, y1 (2 tw values, zero past the output) to Q's
// 16 rows q[xi * xs + j] = (A dY A^T)[xi] for each tile's 2x2 block dY, A = [[1, 0], [1, 1], [1, -1], [0, -1]].
TL_CPU_MULTIVERSION void grad_output_tile_row(const float* __restrict y0, const float* __restrict y1,
                                              float* __restrict q, int64_t tw, int64_t xs) {
  for (int64_t j = 0; j < tw; ++j) {
    const float a = y0[2 * j], b = y0[2 * j + 1], c = y1[2 * j], d = y1[2 * j + 1];
    const float u[4] = {a, a + c, a - c, -c}, v[4] = {b, b + d, b - d, -d};  // the rows of A dY
    for (int i = 0; i < 4; ++i) {
      q[(4 * i) * xs + j] = u[i];
      q[(4 * i + 1) * xs + j] = u[i] + v[i];
      q[(4 * i + 2) * xs + j] = u[i] - v[i];
      q[(4 * i + 3) * xs + j] = -v[i];
    }
  }
}

// The geometry shared by the forward pass and the weight gradient. A block is a run of whole tile rows (of one
// image or several: small images share a block, so that the products stay wide), about kTilesPerBlock tiles,
// the rows split evenly among the blocks; global tile row g is image g / th's row g % th.
struct Plan {
  int64_t n, C, h, w, K, ph, pw, oh, ow, th, tw, wp, all_rows, rows, blocks, max_p;
  Plan(int64_t n_, int64_t c_in, int64_t h_, int64_t w_, int64_t c_out, int64_t ph_, int64_t pw_)
      : n(n_), C(c_in), h(h_), w(w_), K(c_out), ph(ph_), pw(pw_), oh(h_ + 2 * ph_ - 2), ow(w_ + 2 * pw_ - 2) {
    th = (oh + 1) / 2;
    tw = (ow + 1) / 2;
    wp = 2 * tw + 2;
    all_rows = n * th;
    const int64_t want = std::max<int64_t>(1, (all_rows * tw + kTilesPerBlock - 1) / kTilesPerBlock);
    rows = std::max<int64_t>(1, (all_rows + want - 1) / want);
    blocks = (all_rows + rows - 1) / rows;
    max_p = rows * tw;
  }
  bool empty() const { return n == 0 || oh <= 0 || ow <= 0 || K == 0 || C == 0; }
};

// Scratch for one thread: V (16 x C x P), the padded rows and the even/odd split of input_tile_row.
struct InputScratch {
  std::unique_ptr<float[]> V, pad, eo;
  explicit InputScratch(const Plan& p)
      : V(new float[16 * p.C * p.max_p]), pad(new float[4 * p.wp]), eo(new float[8 * (p.tw + 1)]) {}
};

// The input transform of the block starting at global tile row g0 with R rows (P = R tw tiles) into sc.V.
void input_block(const Plan& p, const float* x, int64_t g0, int64_t R, InputScratch& sc) {
  const int64_t P = R * p.tw, wp = p.wp;
  const int64_t lo = std::min<int64_t>(p.pw, wp), hi = std::min<int64_t>(wp, p.pw + p.w);  // padded columns u - pw
  for (int64_t c = 0; c < p.C; ++c) {
    for (int64_t r = 0; r < R; ++r) {
      const int64_t img = (g0 + r) / p.th, y_first = 2 * ((g0 + r) % p.th) - p.ph;
      const float* plane = x + (img * p.C + c) * p.h * p.w;
      for (int64_t i = 0; i < 4; ++i) {
        float* pr = sc.pad.get() + i * wp;
        const int64_t yy = y_first + i;
        if (yy < 0 || yy >= p.h || hi <= lo) {
          std::memset(pr, 0, sizeof(float) * wp);
          continue;
        }
        std::memset(pr, 0, sizeof(float) * lo);
        std::memcpy(pr + lo, plane + yy * p.w + (lo - p.pw), sizeof(float) * (hi - lo));
        std::memset(pr + hi, 0, sizeof(float) * (wp - hi));
      }
      const float* p0 = sc.pad.get();
      input_tile_row(p0, p0 + wp, p0 + 2 * wp, p0 + 3 * wp, sc.eo.get(), sc.V.get() + c * P + r * p.tw, p.tw,
                     p.C * P);
    }
  }
}

}  // namespace

bool winograd_worth_it(int64_t c_in, int64_t c_out, int64_t oh, int64_t ow) {
  return c_in >= 16 && c_out >= 16 && oh >= 8 && ow >= 8;
}

void winograd_conv3x3(const float* x, const float* weight, const float* bias, float* y, int64_t n, int64_t c_in,
                      int64_t h, int64_t w, int64_t c_out, int64_t ph, int64_t pw, bool flipped) {
  const Plan p(n, c_in, h, w, c_out, ph, pw);
  if (p.empty()) return;
  const int64_t C = p.C, K = p.K, tw = p.tw, oh = p.oh, ow = p.ow;
  std::unique_ptr<float[]> U(new float[16 * K * C]);
  transform_filters(weight, U.get(), K, C, flipped);
  const float* Up = U.get();

  parallel_for(p.blocks, 1, [&](int64_t begin, int64_t end) {
    InputScratch sc(p);
    std::unique_ptr<float[]> M(new float[16 * K * p.max_p]);
    std::unique_ptr<float[]> spare(new float[2 * 2 * tw]);
    for (int64_t blk = begin; blk < end; ++blk) {
      const int64_t g0 = blk * p.rows, R = std::min(p.rows, p.all_rows - g0), P = R * tw;
      input_block(p, x, g0, R, sc);
      for (int xi = 0; xi < 16; ++xi) {
        scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(K), static_cast<blasint>(P),
                          static_cast<blasint>(C), 1.0f, Up + xi * K * C, static_cast<blasint>(C), sc.V.get() + xi * C * P,
                          static_cast<blasint>(P), 0.0f, M.get() + xi * K * P, static_cast<blasint>(P));
      }
      for (int64_t k = 0; k < K; ++k) {
        const float b = bias ? bias[k] : 0.0f;
        for (int64_t r = 0; r < R; ++r) {
          const int64_t img = (g0 + r) / p.th, oy = 2 * ((g0 + r) % p.th);
          float* plane = y + (img * K + k) * oh * ow;
          const bool direct = ow == 2 * tw && oy + 1 < oh;
          float* y0 = direct ? plane + oy * ow : spare.get();
          float* y1 = direct ? y0 + ow : spare.get() + 2 * tw;
          output_tile_row(M.get() + k * P + r * tw, y0, y1, tw, K * P, b);
          if (!direct) {
            std::memcpy(plane + oy * ow, y0, sizeof(float) * ow);
            if (oy + 1 < oh) std::memcpy(plane + (oy + 1) * ow, y1, sizeof(float) * ow);
          }
        }
      }
    }
  });
}

void winograd_conv3x3_weight_grad(const float* go, const float* x, float* gw, int64_t n, int64_t c_in, int64_t h,
                                  int64_t w, int64_t c_out, int64_t ph, int64_t pw) {
  const Plan p(n, c_in, h, w, c_out, ph, pw);
  const int64_t C = p.C, K = p.K, tw = p.tw, oh = p.oh, ow = p.ow;
  std::fill(gw, gw + K * C * 9, 0.0f);
  if (p.empty()) return;
  // S[xi] (K x C) = the sum over tiles of Q[xi] V[xi]^T. The blocks are summed in a fixed number of groups, each
  // in block order, then the groups in order: the same sums whatever the thread count.
  const int64_t s_size = 16 * K * C;
  const int64_t groups = std::max<int64_t>(1, std::min<int64_t>({p.blocks, 8, (int64_t(1) << 23) / s_size}));
  const int64_t per_group = (p.blocks + groups - 1) / groups;
  std::unique_ptr<float[]> S(new float[groups * s_size]());
  parallel_for(groups, 1, [&](int64_t begin, int64_t end) {
    InputScratch sc(p);
    std::unique_ptr<float[]> Q(new float[16 * K * p.max_p]);
    std::unique_ptr<float[]> zero(new float[2 * tw]());
    std::unique_ptr<float[]> spare(new float[2 * 2 * tw]);
    for (int64_t grp = begin; grp < end; ++grp) {
      float* Sg = S.get() + grp * s_size;
      for (int64_t blk = grp * per_group; blk < std::min(p.blocks, (grp + 1) * per_group); ++blk) {
        const int64_t g0 = blk * p.rows, R = std::min(p.rows, p.all_rows - g0), P = R * tw;
        input_block(p, x, g0, R, sc);
        for (int64_t k = 0; k < K; ++k) {
          for (int64_t r = 0; r < R; ++r) {
            const int64_t img = (g0 + r) / p.th, oy = 2 * ((g0 + r) % p.th);
            const float* plane = go + (img * K + k) * oh * ow;
            const float* y0 = plane + oy * ow;
            const float* y1 = oy + 1 < oh ? y0 + ow : zero.get();
            if (ow != 2 * tw) {  // odd width: the last tile's second column is zero
              float* s0 = spare.get();
              float* s1 = spare.get() + 2 * tw;
              std::memcpy(s0, y0, sizeof(float) * ow);
              std::memcpy(s1, y1, sizeof(float) * ow);
              s0[ow] = s1[ow] = 0.0f;
              y0 = s0;
              y1 = s1;
            }
            grad_output_tile_row(y0, y1, Q.get() + k * P + r * tw, tw, K * P);
          }
        }
        for (int xi = 0; xi < 16; ++xi) {
          scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(K), static_cast<blasint>(C),
                            static_cast<blasint>(P), 1.0f, Q.get() + xi * K * P, static_cast<blasint>(P),
                            sc.V.get() + xi * C * P, static_cast<blasint>(P), 1.0f, Sg + xi * K * C,
                            static_cast<blasint>(C));
        }
      }
    }
  });
  for (int64_t grp = 1; grp < groups; ++grp) {
    const float* Sg = S.get() + grp * s_size;
    for (int64_t i = 0; i < s_size; ++i) S[i] += Sg[i];
  }
  // gw[k][c] = G^T S[.][k][c] G, G^T = [[1, .5, .5, 0], [0, .5, -.5, 0], [0, .5, .5, 1]].
  for (int64_t kc = 0; kc < K * C; ++kc) {
    float t[3][4];
    for (int j = 0; j < 4; ++j) {
      const float s0 = S[(0 * 4 + j) * K * C + kc], s1 = S[(1 * 4 + j) * K * C + kc];
      const float s2 = S[(2 * 4 + j) * K * C + kc], s3 = S[(3 * 4 + j) * K * C + kc];
      t[0][j] = s0 + 0.5f * (s1 + s2);
      t[1][j] = 0.5f * (s1 - s2);
      t[2][j] = 0.5f * (s1 + s2) + s3;
    }
    float* g = gw + kc * 9;
    for (int i = 0; i < 3; ++i) {
      g[i * 3 + 0] = t[i][0] + 0.5f * (t[i][1] + t[i][2]);
      g[i * 3 + 1] = 0.5f * (t[i][1] - t[i][2]);
      g[i * 3 + 2] = 0.5f * (t[i][1] + t[i][2]) + t[i][3];
    }
  }
}

}  // namespace torchlite::cpu
