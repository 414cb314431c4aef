// Formula helpers of the normalizations (layer, group and batch norm): their tangents and the gradients of
// their backward ops, written once over a common view. Each normalization is, on a view of its input,
//   xh = (x - mean) * rstd over groups (the dims `red` of the view), y = xh * w + b,
// with w and b viewed to broadcast; M is the group size. The backward is
//   dx = P(dy * w), dw = sum(dy * xh), db = sum(dy),  where  P(g) = rstd (g - mean(g) - xh mean(g xh)),
// and P is also xh's differential: d(xh) = P(dx). P is symmetric, and d(rstd) = -rstd^2 mean(xh dx), which
// gives the second derivatives below (every mean over `red`, kept as size-1 dims).
#include "autograd/FormulaHelpers.h"
#include "autograd/helpers_common.h"
#include "ops/add_Tensor.h"
#include "ops/mean_dim.h"
#include "ops/mul_Tensor.h"
#include "ops/neg.h"
#include "ops/reshape.h"
#include "ops/sub_Tensor.h"
#include "ops/sum_dim_IntList.h"
#include "ops/zeros_like.h"

namespace torchlite::autograd {

namespace {

struct NormView {
  DimVector x_shape;   // the view of the input (and of dy, dx)
  DimVector stat_shape;  // mean and rstd, broadcasting against it
  DimVector w_shape;   // the weight's view
  DimVector red;       // the dims of a group
  DimVector w_sum;     // the dims dw sums over
};

Tensor add_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return add(a, b);
}

struct Viewed {
  Tensor x, mean, rstd, w, xh;
  const NormView* v;
  Tensor group_mean(const Tensor& t) const { return torchlite::mean(t, v->red.ref(), true); }
  // P(g) = rstd (g - mean(g) - xh mean(g xh)).
  Tensor P(const Tensor& g) const {
    return mul(rstd, sub(sub(g, group_mean(g)), mul(xh, group_mean(mul(g, xh)))));
  }
  Tensor times_w(const Tensor& t) const { return w.defined() ? mul(t, w) : t; }
};

Viewed view_of(const NormView& v, const Tensor& x, const std::optional<Tensor>& w, const Tensor& mean,
               const Tensor& rstd) {
  Viewed r;
  r.v = &v;
  r.x = reshape(x, v.x_shape.ref());
  r.mean = reshape(mean, v.stat_shape.ref());
  r.rstd = reshape(rstd, v.stat_shape.ref());
  if (w && w->defined()) r.w = reshape(*w, v.w_shape.ref());
  r.xh = mul(sub(r.x, r.mean), r.rstd);
  return r;
}

Tensor reshaped(const Tensor& t, IntArrayRef sizes) { return t.defined() ? reshape(t, sizes) : t; }

// y's tangent: P(x_t) * w + xh * w_t + b_t.
Tensor norm_jvp(const NormView& v, const Tensor& x_t, const std::optional<Tensor>& weight_t,
                const std::optional<Tensor>& bias_t, const Tensor& x, const std::optional<Tensor>& w,
                const Tensor& mean, const Tensor& rstd, IntArrayRef out_shape) {
  const Viewed n = view_of(v, x, w, mean, rstd);
  const Tensor w_t = weight_t ? *weight_t : Tensor(), b_t = bias_t ? *bias_t : Tensor();
  Tensor t;
  if (x_t.defined()) t = n.times_w(n.P(reshape(x_t, v.x_shape.ref())));
  if (w_t.defined()) t = add_defined(t, mul(n.xh, reshape(w_t, v.w_shape.ref())));
  if (b_t.defined()) t = add_defined(t, reshape(b_t, v.w_shape.ref()));
  if (!t.defined()) return t;
  if (!x_t.defined() && !w_t.defined()) t = add(zeros_like(n.x), t);  // b_t alone: broadcast to the output
  return reshape(t, out_shape);
}

// The gradients of (dx, dw, db) = backward(dy, x, w) for dy, x and w, given the gradients Gx, Gw, Gb of its
// outputs (undefined ones count as zeros):
//   for dy: w P(Gx) + Gw xh + Gb;   for w: sum(dy P(Gx));
//   for x:  P(rstd c + Gw dy) - rstd^2 mean(Gx v) xh,  with g = dy w, v = g - mean(g) - xh mean(g xh),
//           c = -mean(g xh) Gx - mean(Gx xh) g.
std::tuple<Tensor, Tensor, Tensor> norm_double_backward(const NormView& v, const Tensor& ggI, const Tensor& ggW,
                                                        const Tensor& ggB, const Tensor& dy_in, const Tensor& x,
                                                        const std::optional<Tensor>& w, const Tensor& mean,
                                                        const Tensor& rstd, std::array<bool, 3> mask,
                                                        IntArrayRef w_out_shape) {
  const Viewed n = view_of(v, x, w, mean, rstd);
  const Tensor dy = reshape(dy_in, v.x_shape.ref());
  const Tensor Gx = reshaped(ggI, v.x_shape.ref());
  const Tensor Gw = n.w.defined() ? reshaped(ggW, v.w_shape.ref()) : Tensor();
  const Tensor Gb = reshaped(ggB, v.w_shape.ref());
  const Tensor PGx = Gx.defined() ? n.P(Gx) : Tensor();
  Tensor d_dy, d_x, d_w;
  if (mask[0]) {
    if (PGx.defined()) d_dy = n.times_w(PGx);
    if (Gw.defined()) d_dy = add_defined(d_dy, mul(Gw, n.xh));
    if (Gb.defined()) d_dy = add_defined(d_dy, add(zeros_like(n.xh), Gb));
  }
  if (mask[2] && n.w.defined() && PGx.defined()) {
    d_w = reshape(sum(mul(dy, PGx), v.w_sum.ref(), false), w_out_shape);
  }
  if (mask[1] && (Gx.defined() || Gw.defined())) {
    Tensor inner;
    if (Gx.defined()) {
      const Tensor g = n.times_w(dy);
      const Tensor B = n.group_mean(mul(g, n.xh)), C = n.group_mean(mul(Gx, n.xh));
      const Tensor c = neg(add(mul(B, Gx), mul(C, g)));
      inner = mul(n.rstd, c);
      const Tensor vv = sub(sub(g, n.group_mean(g)), mul(n.xh, B));
      d_x = neg(mul(mul(mul(n.rstd, n.rstd), n.group_mean(mul(Gx, vv))), n.xh));
    }
    if (Gw.defined()) inner = add_defined(inner, mul(Gw, dy));
    d_x = add_defined(d_x, n.P(inner));
  }
  return {reshaped(d_dy, x.sizes()), reshaped(d_x, x.sizes()), d_w};
}

DimVector range_dims(int64_t from, int64_t to) {
  DimVector d;
  for (int64_t j = from; j < to; ++j) d.push_back(j);
  return d;
}

NormView layer_view(const Tensor& x, IntArrayRef normalized_shape) {
  NormView v;
  const int64_t k = static_cast<int64_t>(normalized_shape.size()), lead = x.dim() - k;
  v.x_shape = DimVector(x.sizes());
  v.stat_shape = DimVector(x.sizes());
  for (int64_t j = lead; j < x.dim(); ++j) v.stat_shape[j] = 1;
  v.w_shape = DimVector(normalized_shape);
  v.red = range_dims(lead, x.dim());
  v.w_sum = range_dims(0, lead);
  return v;
}

// (N, G, C / G, HxW), statistics per (N, G), the weight per channel.
NormView group_view(const Tensor& x, int64_t group) {
  NormView v;
  const int64_t N = x.size(0), C = x.size(1), Cg = C / group;
  const int64_t HxW = C && N ? x.numel() / (N * C) : 1;
  v.x_shape = DimVector{N, group, Cg, HxW};
  v.stat_shape = DimVector{N, group, 1, 1};
  v.w_shape = DimVector{1, group, Cg, 1};
  v.red = DimVector{2, 3};
  v.w_sum = DimVector{0, 3};
  return v;
}

// (N, C, HxW), statistics and weight per channel.
NormView batch_view(const Tensor& x) {
  NormView v;
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t HxW = C && N ? x.numel() / (N * C) : 1;
  v.x_shape = DimVector{N, C, HxW};
  v.stat_shape = DimVector{1, C, 1};
  v.w_shape = DimVector{1, C, 1};
  v.red = DimVector{0, 2};
  v.w_sum = DimVector{0, 2};
  return v;
}

std::array<bool, 3> mask_of(ArrayRef<bool> m) { return {m[0], m[1], m[2]}; }

}  // namespace

Tensor layer_norm_jvp(const Tensor& input_t, const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t, const Tensor& input,
                      IntArrayRef normalized_shape, const std::optional<Tensor>& weight, const Tensor& mean,
                      const Tensor& rstd) {
  return norm_jvp(layer_view(input, normalized_shape), input_t, weight_t, bias_t, input, weight, mean, rstd,
                  input.sizes());
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggB, const Tensor& grad_out, const Tensor& input,
    IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
    ArrayRef<bool> grad_input_mask) {
  return norm_double_backward(layer_view(input, normalized_shape), ggI, ggW, ggB, grad_out, input, weight, mean,
                              rstd, mask_of(grad_input_mask), normalized_shape);
}

Tensor group_norm_jvp(const Tensor& input_t, const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t, const Tensor& input,
                      const std::optional<Tensor>& weight, const Tensor& mean, const Tensor& rstd, int64_t group) {
  return norm_jvp(group_view(input, group), input_t, weight_t, bias_t, input, weight, mean, rstd, input.sizes());
}

std::tuple<Tensor, Tensor, Tensor> group_norm_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggB, const Tensor& grad_out, const Tensor& input,
    const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight, int64_t group,
    ArrayRef<bool> grad_input_mask) {
  const DimVector c{input.size(1)};
  return norm_double_backward(group_view(input, group), ggI, ggW, ggB, grad_out, input, weight, mean, rstd,
                              mask_of(grad_input_mask), c.ref());
}

Tensor batch_norm_jvp(const Tensor& input_t, const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t, const Tensor& input,
                      const std::optional<Tensor>& weight, const Tensor& mean, const Tensor& invstd) {
  return norm_jvp(batch_view(input), input_t, weight_t, bias_t, input, weight, mean, invstd, input.sizes());
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggB, const Tensor& grad_output, const Tensor& input,
    const std::optional<Tensor>& weight, const Tensor& mean, const Tensor& invstd, ArrayRef<bool> grad_input_mask) {
  const DimVector c{input.size(1)};
  return norm_double_backward(batch_view(input), ggI, ggW, ggB, grad_output, input, weight, mean, invstd,
                              mask_of(grad_input_mask), c.ref());
}

}  // namespace torchlite::autograd
