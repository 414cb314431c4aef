// Output shapes and checks of the fused recurrent cells (kernels/gpu/rnn.inc), shared by all devices.
#include "dispatch/ExactMeta.h"
#include "kernels/Rnn.h"
#include "kernels/_gru_cell_fused.h"
#include "kernels/_gru_cell_fused_backward.h"
#include "kernels/_lstm_cell_fused.h"
#include "kernels/_lstm_cell_fused_backward.h"

namespace torchlite {

namespace {

TensorMeta sized(const Tensor& like, int64_t B, int64_t W, bool wanted = true) {
  return exact_meta(wanted ? DimVector{B, W} : DimVector{0}, like);
}

}  // namespace

std::array<TensorMeta, 3> meta::lstm_cell_fused_meta(const Tensor& gates, const Tensor& cx) {
  const rnn::Dims d = rnn::check_cell("_lstm_cell_fused", gates, cx, 4);
  return {sized(cx, d.B, d.H), sized(cx, d.B, d.H), sized(cx, d.B, 4 * d.H)};
}

std::array<TensorMeta, 2> meta::lstm_cell_fused_backward_meta(const Tensor& grad_hy, const Tensor& grad_cy,
                                                              const Tensor& cx, const Tensor& cy,
                                                              const Tensor& workspace, ArrayRef<bool> output_mask) {
  const char* op = "_lstm_cell_fused_backward";
  const rnn::Dims d = rnn::check_cell(op, workspace, cx, 4);
  rnn::check_like(op, "grad_hy", grad_hy, cx, d.B, d.H);
  rnn::check_like(op, "grad_cy", grad_cy, cx, d.B, d.H);
  rnn::check_like(op, "cy", cy, cx, d.B, d.H);
  return {sized(cx, d.B, 4 * d.H, output_mask[0]), sized(cx, d.B, d.H, output_mask[1])};
}

std::array<TensorMeta, 2> meta::gru_cell_fused_meta(const Tensor& input_gates, const Tensor& hidden_gates,
                                                    const Tensor& hx) {
  const char* op = "_gru_cell_fused";
  const rnn::Dims d = rnn::check_cell(op, input_gates, hx, 3);
  rnn::check_like(op, "hidden_gates", hidden_gates, hx, d.B, 3 * d.H);
  return {sized(hx, d.B, d.H), sized(hx, d.B, 5 * d.H)};
}

std::array<TensorMeta, 3> meta::gru_cell_fused_backward_meta(const Tensor& grad_hy, const Tensor& workspace,
                                                             ArrayRef<bool> output_mask) {
  const char* op = "_gru_cell_fused_backward";
  rnn::check_floating(op, grad_hy);
  TL_CHECK(grad_hy.dim() == 2, op, ": expected a 2-D grad_hy, got ", to_string(grad_hy.sizes()));
  const int64_t B = grad_hy.sizes()[0], H = grad_hy.sizes()[1];
  rnn::check_like(op, "workspace", workspace, grad_hy, B, 5 * H);
  return {sized(grad_hy, B, 3 * H, output_mask[0]), sized(grad_hy, B, 3 * H, output_mask[1]),
          sized(grad_hy, B, H, output_mask[2])};
}

}  // namespace torchlite
