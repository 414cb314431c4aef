#pragma once
// 3x3 convolutions with stride 1 on the CPU by Winograd's minimal filtering F(2x2, 3x3) (Lavin and Gray,
// "Fast Algorithms for Convolutional Neural Networks", 2015): each 2x2 block of outputs is
// A^T [(G g G^T) * (B^T d B)] A for its 4x4 input patch d, so the products become 16 matrix products
// (out channels x in channels times in channels x tiles) with 16 multiplies per 4 outputs instead of 36.
// The transforms only add, subtract and halve, so float32 results differ from the direct sum by rounding
// of the same order. Used by the convolution kernels (kernels/gpu/conv.inc) for the forward pass, the input
// gradient and the weight gradient.
#include <cstdint>

namespace torchlite::cpu {

// Whether the Winograd path is worth taking for a 3x3 convolution of c_in -> c_out channels with oh x ow outputs:
// the transforms cost about as much as the products save when the channel counts are small, and on images under
// 8 x 8 the partial tiles and the rereading of the transformed filters cost more than im2col.
bool winograd_worth_it(int64_t c_in, int64_t c_out, int64_t oh, int64_t ow);

// y (n, c_out, h + 2 ph - 2, w + 2 pw - 2) = the cross-correlation of x (n, c_in, h, w), zero-padded by ph
// rows and pw columns on each side (0 <= ph, pw <= 2), with the 3x3 filters of `weight`, plus bias[k]
// (bias may be null). All contiguous. weight is (c_out, c_in, 3, 3), or with `flipped` set
// (c_in, c_out, 3, 3) read rotated by 180 degrees: the input gradient of a convolution is this
// correlation of the output gradient.
void winograd_conv3x3(const float* x, const float* weight, const float* bias, float* y, int64_t n, int64_t c_in,
                      int64_t h, int64_t w, int64_t c_out, int64_t ph, int64_t pw, bool flipped);

// gw (c_out, c_in, 3, 3) = the weight gradient of that correlation (flipped unset) for the output gradient go
// (n, c_out, oh, ow): the transformed input tiles times the transformed output-gradient tiles, summed over the
// tiles by 16 matrix products, then transformed back (Lavin and Gray's F(3x3, 2x2) for the filter gradient).
void winograd_conv3x3_weight_grad(const float* go, const float* x, float* gw, int64_t n, int64_t c_in, int64_t h,
                                  int64_t w, int64_t c_out, int64_t ph, int64_t pw);

}  // namespace torchlite::cpu
