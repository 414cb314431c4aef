#pragma once
// The checked arguments and geometry of the index-mapping pads (_pad_indexed and its backward: reflect,
// replicate, circular), shared by the meta functions and the kernels (kernels/gpu/pad.inc). `pad` lists
// (left, right) pairs from the last dim backwards, as F.pad takes it; d = len(pad) / 2 trailing dims are
// padded and the one or two leading dims are planes. A negative pad crops. Each output position reads one
// input position: reflect mirrors around the edge (without repeating it), replicate repeats the edge,
// circular wraps around the (cropped) input. Messages follow PyTorch's.
#include <string>
#include <string_view>

#include "core/Error.h"
#include "core/Tensor.h"

namespace torchlite::pad {

constexpr int kMaxSpatial = 3;

enum class Mode : int { Reflect, Replicate, Circular };

struct Geometry {
  int d = 0;
  Mode mode = Mode::Reflect;
  int64_t planes = 1;
  int64_t in[kMaxSpatial] = {}, out[kMaxSpatial] = {};
  int64_t left[kMaxSpatial] = {};  // the pad before each dim (negative: cropped)
  int64_t lo[kMaxSpatial] = {}, n[kMaxSpatial] = {};  // circular: the cropped input's start and length
  int64_t I = 1, O = 1;  // positions per plane, in and out
  DimVector out_sizes;
};

inline Mode parse_mode(std::string_view mode) {
  if (mode == "reflect") return Mode::Reflect;
  if (mode == "replicate") return Mode::Replicate;
  if (mode == "circular") return Mode::Circular;
  TL_CHECK_KIND(ErrorKind::NotImplemented, false, "Unrecognised padding mode ", mode);
  return Mode::Reflect;
}

// PyTorch's name for the op that pads d dims in this mode.
inline std::string op_name(Mode mode, int d) {
  if (mode == Mode::Circular) return "_pad_circular";
  return std::string(mode == Mode::Reflect ? "reflection_pad" : "replication_pad") + std::to_string(d) + "d";
}

inline Geometry check(const Tensor& self, IntArrayRef pad, std::string_view mode_name) {
  Geometry g;
  g.mode = parse_mode(mode_name);
  TL_CHECK(pad.size() % 2 == 0 && pad.size() >= 2 && pad.size() <= 2 * kMaxSpatial,
           "_pad_indexed: expected 2, 4 or 6 padding values, got ", to_string(pad));
  const int d = static_cast<int>(pad.size() / 2);
  g.d = d;
  const std::string op = op_name(g.mode, d);
  const int64_t lead = self.dim() - d;
  bool nonempty = true;
  for (int64_t j = 1; j < self.dim(); ++j) nonempty = nonempty && self.size(j) != 0;
  if (g.mode == Mode::Circular) {
    TL_CHECK(lead == 1 || lead == 2, "Invalid padding size, expected 1 or 2 non-padded dimensions, which would be "
             "equivalent to padding of length ", 2 * (self.dim() - 1), " or ", 2 * (self.dim() - 2),
             " respectively but got ", pad.size());
  }
  TL_CHECK((lead == 1 || lead == 2) && (nonempty || g.mode == Mode::Circular), "Expected ", d + 1, "D or ", d + 2,
           "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: ",
           to_string(self.sizes()));
  for (int64_t j = 0; j < lead; ++j) {
    g.planes *= self.size(j);
    g.out_sizes.push_back(self.size(j));
  }
  for (int j = 0; j < d; ++j) {
    const int from_last = d - 1 - j;
    const int64_t l = pad[2 * from_last], r = pad[2 * from_last + 1], in = self.size(lead + j);
    if (g.mode == Mode::Reflect) {
      TL_CHECK(l < in && r < in, "Argument #", 4 + 2 * from_last, ": Padding size should be less than the "
               "corresponding input dimension, but got: padding (", l, ", ", r, ") at dimension ", lead + j,
               " of input ", to_string(self.sizes()));
    } else if (g.mode == Mode::Circular) {
      // PyTorch's limit. Where a negative pad crops the input below a positive one, the wrap goes around
      // the cropped input more than once (PyTorch then reads memory it has not written).
      TL_CHECK(l <= in && r <= in, "Padding value causes wrapping around more than once.");
      TL_CHECK(in + l + r >= 0, "Negative padding value is resulting in an empty dimension");
    }
    const int64_t out = in + l + r;
    TL_CHECK(out >= 0, op, ": the padding (", l, ", ", r, ") of input dimension ", lead + j, " of size ", in,
             " gives a negative output size ", out);
    g.in[j] = in;
    g.out[j] = out;
    g.left[j] = l;
    g.lo[j] = l < 0 ? -l : 0;
    g.n[j] = in - g.lo[j] - (r < 0 ? -r : 0);
    g.I *= in;
    g.O *= out;
    g.out_sizes.push_back(out);
  }
  return g;
}

// The input position (along spatial dim j) that output position i reads.
TL_HOST_DEVICE inline int64_t source(const Geometry& g, int j, int64_t i) {
  if (g.mode == Mode::Circular) {
    int64_t k = (i - (g.left[j] > 0 ? g.left[j] : 0)) % g.n[j];
    return g.lo[j] + (k < 0 ? k + g.n[j] : k);
  }
  int64_t x = i - g.left[j];
  const int64_t last = g.in[j] - 1;
  if (g.mode == Mode::Replicate) return x < 0 ? 0 : (x > last ? last : x);
  if (x < 0) x = -x;
  if (x > last) x = 2 * last - x;
  return x;
}

}  // namespace torchlite::pad
