#pragma once
// Direct 2-D convolutions with stride 1 and dilation 1 on the CPU, for few output channels, where im2col and
// BLAS do badly (a matrix product with a handful of rows, after writing the input out kernel-size times).
// Each image is copied once, zero-padded, into planes of padded width wp; an output position (oy, ox) is then
// flat index oy * wp + ox, and filter tap (i, j) reads the input at that index plus i * wp + j, so a run of
// 16 consecutive flat positions is one vector load per tap (the ox >= ow lanes compute values that are
// dropped). Register blocks of output channels times vectors of positions accumulate over every tap.
// Used by the convolution kernels (kernels/gpu/conv.inc) for the forward pass, the input gradient and the
// weight gradient.
#include <cstdint>

namespace torchlite::cpu {

// Whether the direct kernels are worth taking for a correlation into c_out channels.
bool direct_conv_worth_it(int64_t c_out);

// y (n, c_out, h + 2 ph - kh + 1, w + 2 pw - kw + 1) = the cross-correlation of x (n, c_in, h, w), zero-padded
// by ph rows and pw columns on each side, with the kh x kw filters of `weight`, plus bias[k] (bias may be null).
// All contiguous. weight is (c_out, c_in, kh, kw), or with `flipped` set (c_in, c_out, kh, kw) read rotated by
// 180 degrees (the input gradient of a convolution is this correlation of the output gradient).
void direct_conv2d(const float* x, const float* weight, const float* bias, float* y, int64_t n, int64_t c_in,
                   int64_t h, int64_t w, int64_t c_out, int64_t kh, int64_t kw, int64_t ph, int64_t pw, bool flipped);

// gw (c_out, c_in, kh, kw) = the gradient of that correlation's weight (flipped unset) for the output gradient
// go (n, c_out, oh, ow): the sum over images and positions of go times the shifted padded input.
void direct_conv2d_weight_grad(const float* go, const float* x, float* gw, int64_t n, int64_t c_in, int64_t h,
                               int64_t w, int64_t c_out, int64_t kh, int64_t kw, int64_t ph, int64_t pw);

}  // namespace torchlite::cpu
