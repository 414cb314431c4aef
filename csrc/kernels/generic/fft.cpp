// The torch.fft kernels (_fft_c2c, _fft_r2c, _fft_c2r) for every device, with torchlite's own FFT
// (kernels/FftPlan.h). Each transform runs on a contiguous host buffer, one dim at a time: an out= tensor that
// is a contiguous CPU tensor apart from the input is that buffer; otherwise (a CUDA tensor: no cuFFT yet) the
// result is copied into it. The lines of a dim go 16 at a time through the plans' vectorized lanes forms
// (FftPlan::forward_lanes), the groups spread over the threads; a few long lines (and Bluestein's lengths) go
// one at a time, a long line's butterflies spread over the threads.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "dispatch/FftShape.h"
#include "kernels/FftPlan.h"
#include "kernels/_fft_c2c.h"
#include "kernels/_fft_c2r.h"
#include "kernels/_fft_r2c.h"
#include "ops/constant_pad_nd.h"
#include "ops/copy.h"
#include "ops/narrow.h"

namespace torchlite {

namespace {

using fft::FftPlan;
using fft::RealFftPlan;

// Plans are immutable once built and shared between threads; up to 64 lengths of each kind are kept.
template <typename Plan>
std::shared_ptr<const Plan> cached_plan(int64_t n) {
  static std::mutex mu;
  static std::map<int64_t, std::shared_ptr<const Plan>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(n);
    if (it != cache.end()) return it->second;
  }
  auto plan = std::make_shared<const Plan>(n);
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 64) cache.clear();
  return cache.emplace(n, std::move(plan)).first->second;
}

struct Serial {
  template <typename F>
  void operator()(int64_t n, int64_t, const F& f) const {
    if (n > 0) f(int64_t(0), n);
  }
};

struct Parallel {
  template <typename F>
  void operator()(int64_t n, int64_t grain, const F& f) const {
    parallel_for(n, grain, f);
  }
};

// Runs run(begin, end, par) over [0, lines): lines spread over the threads, each transform serial; or, with
// fewer lines than threads and long transforms, one line after another with parallel butterflies.
template <typename F>
void over_lines(int64_t lines, int64_t n, const F& run) {
  if (lines >= get_num_threads() || n < 16384) {
    parallel_for(lines, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)),
                 [&](int64_t b, int64_t e) { run(b, e, Serial()); });
  } else {
    run(0, lines, Parallel());
  }
}

// x[k] conjugated when `conj`, then times scale, for k < n.
template <typename T, typename Par>
void conj_scale(Complex<T>* x, int64_t n, bool conj, T scale, const Par& par) {
  if (!conj && scale == T(1)) return;
  const T sim = conj ? -scale : scale;
  par(n, 8192, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) x[k] = Complex<T>(x[k].re * scale, x[k].im * sim);
  });
}

// outer and inner extents of dim d of a contiguous tensor of `sizes`.
void split_at(IntArrayRef sizes, int64_t d, int64_t* outer, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int64_t i = 0; i < d; ++i) *outer *= sizes[i];
  for (size_t i = static_cast<size_t>(d) + 1; i < sizes.size(); ++i) *inner *= sizes[i];
}

// Values of a line copied at a time between a group's lines and the lanes planes.
constexpr int64_t kTile = 16;

// Lines of a contiguous (outer, len, inner) buffer in groups of kLanes: adjacent positions of the inner dim
// (inner > 1), or consecutive rows (inner == 1). Line l of group g starts at offset(g, len) + l * lane_stride(len)
// and steps by `inner`; the last group of a row may have fewer lines (count).
struct LaneGroups {
  static constexpr int64_t L = fft::kLanes;
  int64_t outer, inner, per_outer;

  LaneGroups(int64_t outer_, int64_t inner_) : outer(outer_), inner(inner_), per_outer((inner_ + L - 1) / L) {}
  int64_t size() const { return inner == 1 ? (outer + L - 1) / L : outer * per_outer; }
  int64_t offset(int64_t g, int64_t len) const {
    return inner == 1 ? g * L * len : (g / per_outer) * len * inner + (g % per_outer) * L;
  }
  int64_t lane_stride(int64_t len) const { return inner == 1 ? len : 1; }
  int64_t count(int64_t g) const {
    return inner == 1 ? std::min(L, outer - g * L) : std::min(L, inner - (g % per_outer) * L);
  }
};

// Whether a pass runs kLanes lines at a time: the plan has the lanes form and there are enough lines (or they
// are strided, where one line at a time reads badly anyway).
bool use_lanes(bool has_lanes, int64_t outer, int64_t inner) {
  return has_lanes && (inner > 1 || outer >= fft::kLanes);
}

// kLanes adjacent complex values at src + k stride, k < n, into the lanes planes (imaginary parts times sign),
// and back (times scale and sim): loops the compiler vectorizes.
template <typename T>
void lanes_in(const Complex<T>* src, int64_t stride, int64_t n, T sign, T* __restrict re, T* __restrict im) {
  for (int64_t k = 0; k < n; ++k) {
    const T* __restrict v = reinterpret_cast<const T*>(src + k * stride);
    T* __restrict r = re + fft::lanes::at(k);
    T* __restrict i = im + fft::lanes::at(k);
#pragma omp simd
    for (int64_t l = 0; l < fft::kLanes; ++l) {
      r[l] = v[2 * l];
      i[l] = sign * v[2 * l + 1];
    }
  }
}

template <typename T>
void lanes_out(const T* __restrict re, const T* __restrict im, int64_t n, T scale, T sim, Complex<T>* dst,
               int64_t stride) {
  for (int64_t k = 0; k < n; ++k) {
    T* __restrict v = reinterpret_cast<T*>(dst + k * stride);
    const T* __restrict r = re + fft::lanes::at(k);
    const T* __restrict i = im + fft::lanes::at(k);
#pragma omp simd
    for (int64_t l = 0; l < fft::kLanes; ++l) {
      v[2 * l] = r[l] * scale;
      v[2 * l + 1] = i[l] * sim;
    }
  }
}

// The same for lanes ls apart (count of them), in tiles of kTile values of each lane.
template <typename T>
void lanes_in_tiled(const Complex<T>* first, int64_t ls, int64_t stride, int64_t count, int64_t n, T sign,
                    T* __restrict re, T* __restrict im) {
  for (int64_t k0 = 0; k0 < n; k0 += kTile) {
    const int64_t k1 = std::min(n, k0 + kTile);
    for (int64_t l = 0; l < count; ++l) {
      const T* __restrict v = reinterpret_cast<const T*>(first + l * ls);
      for (int64_t k = k0; k < k1; ++k) {
        const int64_t at = fft::lanes::at(k) + l;
        re[at] = v[2 * k * stride];
        im[at] = sign * v[2 * k * stride + 1];
      }
    }
  }
}

template <typename T>
void lanes_out_tiled(const T* __restrict re, const T* __restrict im, int64_t count, int64_t n, T scale, T sim,
                     Complex<T>* first, int64_t ls, int64_t stride) {
  for (int64_t k0 = 0; k0 < n; k0 += kTile) {
    const int64_t k1 = std::min(n, k0 + kTile);
    for (int64_t l = 0; l < count; ++l) {
      T* __restrict v = reinterpret_cast<T*>(first + l * ls);
      for (int64_t k = k0; k < k1; ++k) {
        const int64_t at = fft::lanes::at(k) + l;
        v[2 * k * stride] = re[at] * scale;
        v[2 * k * stride + 1] = im[at] * sim;
      }
    }
  }
}

// c2c_pass through FftPlan::forward_lanes: the lines copied into the planes' [index][lane] layout (conjugated for
// the backward transform; missing lanes zeros) and back, times scale.
template <typename T>
void c2c_lanes(const FftPlan<T>& plan, Complex<T>* data, int64_t outer, int64_t n, int64_t inner, bool forward,
               T scale) {
  using C = Complex<T>;
  constexpr int64_t L = fft::kLanes;
  const LaneGroups groups(outer, inner);
  const T sign = forward ? T(1) : T(-1);
  const int64_t plane = fft::lanes::plane_size(n);
  parallel_for(groups.size(), std::max<int64_t>(1, kGrainSize / (n * L)), [&](int64_t begin, int64_t end) {
    std::vector<T> buf(static_cast<size_t>(4 * plane));
    T* re = buf.data();
    T* im = re + plane;
    for (int64_t g = begin; g < end; ++g) {
      C* first = data + groups.offset(g, n);
      const int64_t count = groups.count(g), ls = groups.lane_stride(n), stride = inner;
      if (ls == 1 && count == L) {
        // lanes side by side: each value's kLanes neighbours are one contiguous read and write
        lanes_in(first, stride, n, sign, re, im);
        plan.forward_lanes(re, im, im + plane, im + 2 * plane);
        lanes_out(re, im, n, scale, sign * scale, first, stride);
        continue;
      }
      // lanes far apart: tiles of kTile values of each lane, so that a tile's reads and writes stay in cache
      if (count < L) std::fill(re, re + 2 * plane, T(0));
      lanes_in_tiled(first, ls, stride, count, n, sign, re, im);
      plan.forward_lanes(re, im, im + plane, im + 2 * plane);
      lanes_out_tiled(re, im, count, n, scale, sign * scale, first, ls, stride);
    }
  });
}

// The DFT (forward) or unnormalized inverse DFT (backward) of every line along the middle dim of a contiguous
// (outer, n, inner) buffer, in place, times scale: kLanes lines at once where there are that many (or the
// lines are strided), otherwise one at a time (a long line's butterflies spread over the threads); strided
// lines one at a time are copied out in blocks of up to 16 neighbours, each row of a block one contiguous read.
template <typename T>
void c2c_pass(Complex<T>* data, int64_t outer, int64_t n, int64_t inner, bool forward, T scale) {
  using C = Complex<T>;
  if (n == 1) {
    for (int64_t i = 0; i < outer * inner; ++i) data[i] = C(data[i].re * scale, data[i].im * scale);
    return;
  }
  auto plan = cached_plan<FftPlan<T>>(n);
  if (use_lanes(plan->has_lanes(), outer, inner)) return c2c_lanes(*plan, data, outer, n, inner, forward, scale);
  const int64_t block = std::min<int64_t>(inner, 16);
  const int64_t blocks = (inner + block - 1) / block;
  const int64_t scratch = plan->scratch_size();
  over_lines(outer * blocks, n, [&](int64_t begin, int64_t end, const auto& par) {
    const int64_t rows = inner == 1 ? 0 : block * n;
    std::vector<C> buf(static_cast<size_t>(rows + scratch));
    C* work = buf.data() + rows;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t o = item / blocks, i0 = (item % blocks) * block, nb = std::min(block, inner - i0);
      C* base = data + o * n * inner + i0;
      if (inner == 1) {
        conj_scale(base, n, !forward, T(1), par);
        plan->forward(base, work, par);
        conj_scale(base, n, !forward, scale, par);
        continue;
      }
      for (int64_t k = 0; k < n; ++k) {
        const C* src = base + k * inner;
        for (int64_t b = 0; b < nb; ++b) buf[b * n + k] = forward ? src[b] : C(src[b].re, -src[b].im);
      }
      for (int64_t b = 0; b < nb; ++b) plan->forward(buf.data() + b * n, work, par);
      const T sim = forward ? scale : -scale;
      for (int64_t k = 0; k < n; ++k) {
        C* dst = base + k * inner;
        for (int64_t b = 0; b < nb; ++b) dst[b] = C(buf[b * n + k].re * scale, buf[b * n + k].im * sim);
      }
    }
  });
}

// Runs a real transform over every line along the middle dim: of an (outer, nin, inner) input into an
// (outer, nout, inner) output. kLanes lines at a time where use_lanes() says so, through
// lanes(in_offset, in_lane_stride, count, out_offset, out_lane_stride, buf); otherwise one line at a time,
// through line(in_offset, out_offset, scratch, par). finish(out_offset) then fixes each line's result.
template <typename T, typename Lanes, typename Line, typename Finish>
void real_pass(const RealFftPlan<T>& plan, int64_t outer, int64_t nin, int64_t nout, int64_t inner, const Lanes& lanes,
               const Line& line, const Finish& finish) {
  const int64_t n = plan.size();
  if (use_lanes(plan.has_lanes(), outer, inner)) {
    const LaneGroups groups(outer, inner);
    parallel_for(groups.size(), std::max<int64_t>(1, kGrainSize / (n * fft::kLanes)), [&](int64_t b, int64_t e) {
      std::vector<T> buf(static_cast<size_t>(plan.lanes_buffer_size()));
      for (int64_t g = b; g < e; ++g) {
        const int64_t count = groups.count(g), ol = groups.lane_stride(nout), out0 = groups.offset(g, nout);
        lanes(groups.offset(g, nin), groups.lane_stride(nin), count, out0, ol, buf.data());
        for (int64_t l = 0; l < count; ++l) finish(out0 + l * ol);
      }
    });
    return;
  }
  over_lines(outer * inner, n, [&](int64_t begin, int64_t end, const auto& par) {
    std::vector<Complex<T>> scratch(static_cast<size_t>(plan.scratch_size()));
    for (int64_t i = begin; i < end; ++i) {
      const int64_t o = i / inner, pos = i % inner, out0 = o * nout * inner + pos;
      line(o * nin * inner + pos, out0, scratch.data(), par);
      finish(out0);
    }
  });
}

// The forward DFT of every real line along the middle dim of a contiguous (outer, n, inner) buffer into the
// contiguous complex (outer, nout, inner) buffer `out`: the first n/2 + 1 coefficients, and when nout = n the
// rest as their conjugate mirror; times scale.
template <typename T>
void r2c_pass(const T* in, Complex<T>* out, int64_t outer, int64_t n, int64_t inner, int64_t nout, T scale) {
  using C = Complex<T>;
  auto plan = cached_plan<RealFftPlan<T>>(n);
  real_pass<T>(
      *plan, outer, n, nout, inner,
      [&](int64_t i0, int64_t il, int64_t count, int64_t o0, int64_t ol, T* buf) {
        plan->forward_lanes(in + i0, il, inner, count, out + o0, ol, inner, buf);
      },
      [&](int64_t i0, int64_t o0, C* scratch, const auto& par) {
        plan->forward(in + i0, inner, out + o0, inner, scratch, par);
      },
      [&](int64_t o0) {  // the mirror, the scale
        C* y = out + o0;
        for (int64_t k = n / 2 + 1; k < nout; ++k) {
          C v = y[(n - k) * inner];
          y[k * inner] = C(v.re, -v.im);
        }
        if (scale != T(1)) {
          for (int64_t k = 0; k < nout; ++k) y[k * inner] = C(y[k * inner].re * scale, y[k * inner].im * scale);
        }
      });
}

// The unnormalized inverse DFT of every Hermitian line along the middle dim of a contiguous complex
// (outer, n/2 + 1, inner) buffer into the real (outer, n, inner) buffer `out`, times scale.
template <typename T>
void c2r_pass(const Complex<T>* in, T* out, int64_t outer, int64_t n, int64_t inner, T scale) {
  using C = Complex<T>;
  auto plan = cached_plan<RealFftPlan<T>>(n);
  real_pass<T>(
      *plan, outer, n / 2 + 1, n, inner,
      [&](int64_t i0, int64_t il, int64_t count, int64_t o0, int64_t ol, T* buf) {
        plan->backward_lanes(in + i0, il, inner, count, out + o0, ol, inner, buf);
      },
      [&](int64_t i0, int64_t o0, C* scratch, const auto& par) {
        plan->backward(in + i0, inner, out + o0, inner, scratch, par);
      },
      [&](int64_t o0) {
        if (scale == T(1)) return;
        for (int64_t k = 0; k < n; ++k) out[o0 + k * inner] *= scale;
      });
}

template <typename F>
void for_precision(ScalarType t, const F& f) {
  if (t == ScalarType::Float || t == ScalarType::ComplexFloat) {
    f(float{});
  } else {
    f(double{});
  }
}

// A contiguous host tensor holding t's values (t itself when it is one).
Tensor host_contiguous(const Tensor& t) {
  if (!t.is_cuda() && t.is_contiguous()) return t;
  Tensor h = empty_tensor(t.sizes(), t.scalar_type());
  copy_(h, t);
  return h;
}

// Where a kernel computes: out itself when it is a contiguous CPU tensor that does not overlap the input.
Tensor target_for(const Tensor& out, const Tensor& input) {
  if (!out.is_cuda() && out.is_contiguous() && mem_overlap(out, input) == MemOverlap::No) return out;
  return empty_tensor(out.sizes(), out.scalar_type());
}

void finish(const Tensor& out, const Tensor& target) {
  if (!target.is_same(out)) copy_(out, target);
}

// Complex passes over dims d[from, to) of a contiguous complex buffer, the last of them times scale.
template <typename T>
void c2c_dims(const Tensor& buf, const DimVector& d, size_t from, size_t to, bool forward, T scale) {
  for (size_t j = from; j < to; ++j) {
    int64_t outer, inner;
    split_at(buf.sizes(), d[j], &outer, &inner);
    c2c_pass<T>(buf.data<Complex<T>>(), outer, buf.size(d[j]), inner, forward, j + 1 == to ? scale : T(1));
  }
}

int64_t product_over(IntArrayRef sizes, const DimVector& d) {
  int64_t p = 1;
  for (int64_t x : d) p *= sizes[x];
  return p;
}

}  // namespace

void kernels::fft_c2c_out_any(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward,
                              const Tensor& out) {
  DimVector d = fft::wrap_fft_dims(self, dim, "_fft_c2c");
  if (out.numel() == 0) return;
  Tensor target = target_for(out, self);
  copy_(target, self);
  const double scale = fft::norm_scale(normalization, product_over(self.sizes(), d));
  for_precision(self.scalar_type(), [&](auto tag) {  // no dims: the copy is the result (scale 1)
    using T = decltype(tag);
    c2c_dims<T>(target, d, 0, d.size(), forward, static_cast<T>(scale));
  });
  finish(out, target);
}

void kernels::fft_r2c_out_any(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided,
                              const Tensor& out) {
  (void)onesided;  // out's size along the last dim says it
  DimVector d = fft::wrap_fft_dims(self, dim, "_fft_r2c");
  if (out.numel() == 0) return;
  const int64_t last = d[d.size() - 1];
  Tensor x = host_contiguous(self);
  Tensor target = target_for(out, self);
  const double scale = fft::norm_scale(normalization, product_over(self.sizes(), d));
  for_precision(self.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    int64_t outer, inner;
    split_at(x.sizes(), last, &outer, &inner);
    const T s = static_cast<T>(scale);
    r2c_pass<T>(x.data<T>(), target.data<Complex<T>>(), outer, x.size(last), inner, target.size(last),
                d.size() == 1 ? s : T(1));
    c2c_dims<T>(target, d, 0, d.size() - 1, /*forward=*/true, s);
  });
  finish(out, target);
}

void kernels::fft_c2r_out_any(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size,
                              const Tensor& out) {
  DimVector d = fft::wrap_fft_dims(self, dim, "_fft_c2r");
  if (out.numel() == 0) return;
  const int64_t last = d[d.size() - 1], n = last_dim_size, half = n / 2 + 1;
  // the first n/2 + 1 coefficients along the last dim (zeros where the input has fewer), in a host buffer
  Tensor src = self;
  if (self.size(last) > half) {
    src = narrow(self, last, 0, half);
  } else if (self.size(last) < half) {
    std::vector<int64_t> pad(static_cast<size_t>(2 * (self.dim() - last)), 0);
    pad[pad.size() - 1] = half - self.size(last);
    src = constant_pad_nd(self, pad);
  }
  Tensor buf = empty_tensor(src.sizes(), src.scalar_type());
  copy_(buf, src);
  Tensor target = target_for(out, self);
  DimVector full(self.sizes());
  full[last] = n;
  const double scale = fft::norm_scale(normalization, product_over(full, d));
  for_precision(self.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T s = static_cast<T>(scale);
    c2c_dims<T>(buf, d, 0, d.size() - 1, /*forward=*/false, T(1));
    int64_t outer, inner;
    split_at(buf.sizes(), last, &outer, &inner);
    c2r_pass<T>(buf.data<Complex<T>>(), target.data<T>(), outer, n, inner, s);
  });
  finish(out, target);
}

}  // namespace torchlite
