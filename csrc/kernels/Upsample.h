#pragma once
// Resampling (F.interpolate's nearest, nearest-exact, linear and cubic modes) over 1 to 3 trailing dims of an
// (N, C, spatial...) input: the checked geometry and, per dim, which input positions an output position
// reads and with which weights, shared by the meta functions and the kernels (kernels/gpu/upsample.inc).
// Each dim is resampled on its own (separable); the index rules are PyTorch's.
#include <cmath>
#include <string>
#include <string_view>

#include "core/Error.h"
#include "core/Macros.h"
#include "core/Tensor.h"

namespace torchlite::upsample {

constexpr int kMaxSpatial = 3;
constexpr int kMaxTaps = 4;  // cubic

enum class Mode : int { Nearest, NearestExact, Linear, Cubic };

struct Geometry {
  int d = 0;
  Mode mode = Mode::Nearest;
  bool align_corners = false;
  int64_t planes = 1;
  int64_t in[kMaxSpatial] = {}, out[kMaxSpatial] = {};
  double scale[kMaxSpatial] = {};  // output position to input coordinate (see source_scale)
  int64_t I = 1, O = 1;
  int taps = 1;  // input positions per output position along one dim
};

inline Mode parse_mode(std::string_view mode) {
  if (mode == "nearest") return Mode::Nearest;
  if (mode == "nearest-exact") return Mode::NearestExact;
  if (mode == "linear") return Mode::Linear;
  if (mode == "cubic") return Mode::Cubic;
  TL_ERROR("_upsample: mode must be 'nearest', 'nearest-exact', 'linear' or 'cubic', got '", mode, "'");
  return Mode::Nearest;
}

// The factor from an output position to an input coordinate: with align_corners (in - 1) / (out - 1) (0 for
// one output); else 1 / scale_factor when one was given, else in / out.
inline double source_scale(int64_t in, int64_t out, bool align_corners, double given, Mode mode) {
  const bool interpolating = mode == Mode::Linear || mode == Mode::Cubic;
  if (interpolating && align_corners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (given > 0) return 1.0 / given;
  return static_cast<double>(in) / static_cast<double>(out);
}

inline Geometry check(const Tensor& self, IntArrayRef output_size, std::string_view mode, bool align_corners,
                      ArrayRef<double> scales) {
  Geometry g;
  g.mode = parse_mode(mode);
  g.align_corners = align_corners;
  const int d = static_cast<int>(output_size.size());
  TL_CHECK(d >= 1 && d <= kMaxSpatial, "_upsample: expected 1 to 3 output sizes, got ", to_string(output_size));
  TL_CHECK(scales.empty() || static_cast<int>(scales.size()) == d, "_upsample: expected ", d,
           " scales or none, got ", scales.size());
  TL_CHECK(self.dim() == d + 2, "Expected ", d + 2, "D input (N, C, spatial...) for ", d, "-d resampling, got ",
           self.dim(), "D input of size ", to_string(self.sizes()));
  g.d = d;
  g.planes = self.size(0) * self.size(1);
  for (int j = 0; j < d; ++j) {
    g.in[j] = self.size(2 + j);
    g.out[j] = output_size[j];
    TL_CHECK(g.in[j] > 0 && g.out[j] > 0, "Input and output sizes should be greater than 0, but got input (",
             to_string(IntArrayRef(self.sizes().data() + 2, static_cast<size_t>(d))), ") and output (",
             to_string(output_size), ")");
    g.scale[j] = source_scale(g.in[j], g.out[j], align_corners, scales.empty() ? 0.0 : scales[j], g.mode);
    g.I *= g.in[j];
    g.O *= g.out[j];
  }
  g.taps = g.mode == Mode::Linear ? 2 : g.mode == Mode::Cubic ? 4 : 1;
  return g;
}

TL_HOST_DEVICE inline double cubic_near(double x, double A) { return ((A + 2) * x - (A + 3)) * x * x + 1; }
TL_HOST_DEVICE inline double cubic_far(double x, double A) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; }

// Output position o of dim j: the input positions it reads (clamped into the input) and their weights.
TL_HOST_DEVICE inline void taps_of(const Geometry& g, int j, int64_t o, int64_t* idx, double* w) {
  const int64_t in = g.in[j];
  const double s = g.scale[j];
  if (g.mode == Mode::Nearest || g.mode == Mode::NearestExact) {  // in float, as PyTorch computes it
    const float offset = g.mode == Mode::NearestExact ? 0.5f : 0.0f;
    int64_t i = static_cast<int64_t>(::floorf((static_cast<float>(o) + offset) * static_cast<float>(s)));
    idx[0] = i < in - 1 ? i : in - 1;
    w[0] = 1;
    return;
  }
  double src = g.align_corners ? s * static_cast<double>(o) : s * (static_cast<double>(o) + 0.5) - 0.5;
  if (g.mode == Mode::Linear) {
    if (src < 0) src = 0;
    const int64_t i0 = static_cast<int64_t>(src);
    const double l = src - static_cast<double>(i0);
    idx[0] = i0 < in - 1 ? i0 : in - 1;
    idx[1] = i0 < in - 1 ? i0 + 1 : in - 1;
    w[0] = 1 - l;
    w[1] = l;
    return;
  }
  // Cubic convolution (A = -0.75) over the 4 positions around src, clamped into the input.
  const double fl = ::floor(src), t = src - fl, A = -0.75;
  const int64_t i = static_cast<int64_t>(fl);
  w[0] = cubic_far(t + 1, A);
  w[1] = cubic_near(t, A);
  w[2] = cubic_near(1 - t, A);
  w[3] = cubic_far(2 - t, A);
  for (int k = 0; k < 4; ++k) {
    const int64_t x = i - 1 + k;
    idx[k] = x < 0 ? 0 : (x > in - 1 ? in - 1 : x);
  }
}

}  // namespace torchlite::upsample
