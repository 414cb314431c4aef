#pragma once
// The checked arguments and geometry of convolution / convolution_backward, shared by the meta functions
// and the kernels (kernels/gpu/conv.inc). Messages follow PyTorch's.
//
// Both directions run on one underlying convolution between an "image" (the input of a convolution, the
// output of a transposed one) and its "columns" (im2col's layout: per image channel, K kernel offsets by
// L output positions): a convolution multiplies the weight into im2col(image); a transposed one
// col2im's the weight times its input.
#include <optional>
#include <string>
#include <utility>

#include "core/Error.h"
#include "core/Tensor.h"

namespace torchlite::conv {

constexpr int kMaxSpatial = 3;

// Sizes and steps of the spatial dims, passed by value to the kernels.
struct Geometry {
  int d = 0;                      // spatial dims
  int64_t img[kMaxSpatial] = {};  // the image's spatial sizes
  int64_t col[kMaxSpatial] = {};  // the convolution's output positions
  int64_t k[kMaxSpatial] = {}, stride[kMaxSpatial] = {}, pad[kMaxSpatial] = {}, dil[kMaxSpatial] = {};
  int64_t K = 1, L = 1, I = 1;    // kernel offsets, output positions, image positions
};

struct Params {
  int64_t n = 0, c_in = 0, c_out = 0, groups = 1;
  bool transposed = false;
  DimVector out_sizes;  // (N, C_out, spatial...)
  Geometry g;
};

inline std::string dims_text(const int64_t* v, int d) {
  std::string s = "(";
  for (int j = 0; j < d; ++j) s += (j ? " x " : "") + std::to_string(v[j]);
  return s + ")";
}

inline void check_list(const char* name, IntArrayRef v, int d) {
  TL_CHECK(static_cast<int>(v.size()) == d, "expected ", name, " to be a single integer value or a list of ", d,
           " values to match the convolution dimensions, but got ", name, "=", to_string(v));
}

inline Params check(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                    IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                    int64_t groups) {
  const int64_t wd = weight.dim();
  TL_CHECK(wd >= 3 && wd <= kMaxSpatial + 2, "convolution: expected a weight of 3 to ", kMaxSpatial + 2,
           " dims (out_channels, in_channels / groups, kernel...), got weight of size ", to_string(weight.sizes()));
  TL_CHECK(input.dim() == wd, "Expected ", wd, "-dimensional input for ", wd, "-dimensional weight ",
           to_string(weight.sizes()), ", but got ", input.dim(), "-dimensional input of size ",
           to_string(input.sizes()), " instead");
  const int d = static_cast<int>(wd - 2);
  check_list("stride", stride, d);
  check_list("padding", padding, d);
  check_list("dilation", dilation, d);
  if (transposed) check_list("output_padding", output_padding, d);
  TL_CHECK(groups > 0, "non-positive groups is not supported");
  for (int j = 0; j < d; ++j) {
    TL_CHECK(stride[j] > 0, "non-positive stride is not supported");
    TL_CHECK(padding[j] >= 0, "negative padding is not supported");
    TL_CHECK(dilation[j] > 0, "dilation should be greater than zero, but got ", to_string(dilation));
    if (transposed) {
      TL_CHECK(output_padding[j] >= 0, "negative output_padding is not supported");
      TL_CHECK(output_padding[j] < stride[j] || output_padding[j] < dilation[j],
               "output padding must be smaller than either stride or dilation, but got output_padding=",
               to_string(output_padding), ", stride=", to_string(stride), ", dilation=", to_string(dilation));
    }
  }
  TL_CHECK(input.scalar_type() == weight.scalar_type(), "expected scalar type ", scalar_type_name(input.scalar_type()),
           " but found ", scalar_type_name(weight.scalar_type()));
  TL_CHECK(input.device() == weight.device(), "Expected all tensors to be on the same device, but found at least two "
           "devices, ", to_string(input.device()), " and ", to_string(weight.device()), "!");
  Params p;
  p.n = input.size(0);
  p.c_in = input.size(1);
  p.groups = groups;
  p.transposed = transposed;
  if (!transposed) {
    TL_CHECK(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
             " at dimension 0, but got weight of size [", to_string(weight.sizes()), "] instead");
    TL_CHECK(p.c_in == weight.size(1) * groups, "Given groups=", groups, ", weight of size ", to_string(weight.sizes()),
             ", expected input", to_string(input.sizes()), " to have ", weight.size(1) * groups,
             " channels, but got ", p.c_in, " channels instead");
    p.c_out = weight.size(0);
  } else {
    TL_CHECK(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
             " at dimension 0, but got weight of size [", to_string(weight.sizes()), "] instead");
    TL_CHECK(p.c_in == weight.size(0), "Given transposed=1, weight of size ", to_string(weight.sizes()),
             ", expected input", to_string(input.sizes()), " to have ", weight.size(0), " channels, but got ",
             p.c_in, " channels instead");
    p.c_out = weight.size(1) * groups;
  }
  if (bias.has_value()) {
    TL_CHECK(bias->dim() == 1 && bias->size(0) == p.c_out, "Given weight of size ", to_string(weight.sizes()),
             ", expected bias to be 1-dimensional with ", p.c_out, " elements, but got bias of size ",
             to_string(bias->sizes()), " instead");
    TL_CHECK(bias->scalar_type() == input.scalar_type(), "Input type (", cpp_type_name(input.scalar_type()),
             ") and bias type (", cpp_type_name(bias->scalar_type()), ") should be the same");
  }
  Geometry& g = p.g;
  g.d = d;
  p.out_sizes.push_back(p.n);
  p.out_sizes.push_back(p.c_out);
  int64_t in[kMaxSpatial], padded[kMaxSpatial], kernel[kMaxSpatial];
  for (int j = 0; j < d; ++j) {
    in[j] = input.size(j + 2);
    g.k[j] = weight.size(j + 2);
    g.stride[j] = stride[j];
    g.pad[j] = padding[j];
    g.dil[j] = dilation[j];
    // Checked: a padding or dilation near 2^63 would wrap the sizes (and index far outside the input).
    bool overflow = __builtin_mul_overflow(padding[j], int64_t(2), &padded[j]);
    overflow |= __builtin_add_overflow(padded[j], in[j], &padded[j]);
    overflow |= __builtin_mul_overflow(dilation[j], g.k[j] > 0 ? g.k[j] - 1 : 0, &kernel[j]);
    overflow |= __builtin_add_overflow(kernel[j], int64_t(1), &kernel[j]);
    if (transposed) {
      int64_t img = 0;
      overflow |= __builtin_mul_overflow(in[j] > 0 ? in[j] - 1 : 0, stride[j], &img);
      overflow |= __builtin_add_overflow(img, kernel[j], &img);
      overflow |= __builtin_add_overflow(img, output_padding[j], &img);
    }
    TL_CHECK(!overflow, "convolution: the output size overflows int64 with padding=", to_string(padding),
             ", dilation=", to_string(dilation), ", stride=", to_string(stride));
  }
  for (int j = 0; j < d; ++j) {
    if (!transposed) {
      TL_CHECK(padded[j] >= kernel[j], "Calculated padded input size per channel: ", dims_text(padded, d),
               ". Kernel size: ", dims_text(kernel, d), ". Kernel size can't be greater than actual input size");
      g.img[j] = in[j];
      g.col[j] = (padded[j] - kernel[j]) / stride[j] + 1;
      p.out_sizes.push_back(g.col[j]);
    } else {
      g.col[j] = in[j];
      g.img[j] = (in[j] - 1) * stride[j] - 2 * padding[j] + kernel[j] + output_padding[j];
      TL_CHECK(g.img[j] > 0, "Given input size per channel: ", dims_text(in, d), ". Calculated output size per "
               "channel: ", dims_text(g.img, d), ". Output size is too small");
      p.out_sizes.push_back(g.img[j]);
    }
    g.K *= g.k[j];
    g.L *= g.col[j];
    g.I *= g.img[j];
  }
  return p;
}

// F.unfold / F.fold (im2col / col2im): the 2-d geometry of an image of size img (h, w) and its sliding blocks.
inline Geometry blocks(const char* op, const int64_t* img, IntArrayRef kernel_size, IntArrayRef dilation,
                       IntArrayRef padding, IntArrayRef stride) {
  for (auto [name, v] : {std::pair<const char*, IntArrayRef>{"kernel_size", kernel_size}, {"dilation", dilation},
                         {"padding", padding}, {"stride", stride}}) {
    TL_CHECK(v.size() == 2, op, ": It is expected ", name, " equals to 2, but got size ", v.size());
  }
  TL_CHECK(kernel_size[0] > 0 && kernel_size[1] > 0, "kernel size should be greater than zero, but got "
           "kernel_height: ", kernel_size[0], " kernel_width: ", kernel_size[1]);
  TL_CHECK(dilation[0] > 0 && dilation[1] > 0, "dilation should be greater than zero, but got dilation_height: ",
           dilation[0], " dilation_width: ", dilation[1]);
  TL_CHECK(padding[0] >= 0 && padding[1] >= 0, "padding should be non-negative, but got pad_height: ", padding[0],
           " pad_width: ", padding[1]);
  TL_CHECK(stride[0] > 0 && stride[1] > 0, "stride should be greater than zero, but got stride_height: ", stride[0],
           " stride_width: ", stride[1]);
  for (int j = 0; j < 2; ++j) {
    int64_t span = 0;  // img + 2 * padding and the dilated kernel, checked (a wrap would index outside the image)
    bool overflow = __builtin_mul_overflow(padding[j], int64_t(2), &span);
    overflow |= __builtin_add_overflow(span, img[j], &span);
    overflow |= __builtin_mul_overflow(dilation[j], kernel_size[j] - 1, &span);
    TL_CHECK(!overflow, op, ": the size of the array of sliding blocks overflows int64 with padding=(", padding[0],
             ", ", padding[1], "), dilation=(", dilation[0], ", ", dilation[1], ")");
  }
  Geometry g;
  g.d = 2;
  for (int j = 0; j < 2; ++j) {
    g.img[j] = img[j];
    g.k[j] = kernel_size[j];
    g.dil[j] = dilation[j];
    g.pad[j] = padding[j];
    g.stride[j] = stride[j];
    g.col[j] = (img[j] + 2 * padding[j] - (dilation[j] * (kernel_size[j] - 1) + 1)) / stride[j] + 1;
    g.K *= g.k[j];
    g.I *= g.img[j];
  }
  TL_CHECK(g.col[0] >= 1 && g.col[1] >= 1 &&
               img[0] + 2 * padding[0] >= dilation[0] * (kernel_size[0] - 1) + 1 &&
               img[1] + 2 * padding[1] >= dilation[1] * (kernel_size[1] - 1) + 1,
           "Given input with spatial size (", img[0], ", ", img[1], "), kernel_size=(", kernel_size[0], ", ",
           kernel_size[1], "), dilation=(", dilation[0], ", ", dilation[1], "), padding=(", padding[0], ", ",
           padding[1], "), calculated shape of the array of sliding blocks as (", g.col[0], ", ", g.col[1],
           "), but its components must be at least one.");
  g.L = g.col[0] * g.col[1];
  return g;
}

}  // namespace torchlite::conv
