// torch.fft's functions, composed of the three transforms _fft_c2c, _fft_r2c and _fft_c2r
// (kernels/generic/fft.cpp) as PyTorch composes them: the input promoted (integers to the default float dtype,
// complex where the transform needs it; float16/bfloat16 refused on the CPU, as PyTorch), cut or zero-padded to
// the requested sizes, and the norm string turned into a normalization code. Autograd flows through the
// transforms' formulas.
#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "composite/Numbers.h"
#include "core/Error.h"
#include "core/TensorFactory.h"
#include "dispatch/FftShape.h"
#include "kernels/fft_fft.h"
#include "kernels/fft_fft2.h"
#include "kernels/fft_fftfreq.h"
#include "kernels/fft_fftn.h"
#include "kernels/fft_fftshift.h"
#include "kernels/fft_hfft.h"
#include "kernels/fft_hfft2.h"
#include "kernels/fft_hfftn.h"
#include "kernels/fft_ifft.h"
#include "kernels/fft_ifft2.h"
#include "kernels/fft_ifftn.h"
#include "kernels/fft_ifftshift.h"
#include "kernels/fft_ihfft.h"
#include "kernels/fft_ihfft2.h"
#include "kernels/fft_ihfftn.h"
#include "kernels/fft_irfft.h"
#include "kernels/fft_irfft2.h"
#include "kernels/fft_irfftn.h"
#include "kernels/fft_rfft.h"
#include "kernels/fft_rfft2.h"
#include "kernels/fft_rfftfreq.h"
#include "kernels/fft_rfftn.h"
#include "kernels/istft.h"
#include "kernels/stft.h"
#include "ops/_fft_c2c.h"
#include "ops/_fft_c2r.h"
#include "ops/_fft_r2c.h"
#include "ops/_to_copy.h"
#include "ops/abs.h"
#include "ops/amin.h"
#include "ops/arange_start_step.h"
#include "ops/cat.h"
#include "ops/col2im.h"
#include "ops/complex.h"
#include "ops/conj.h"
#include "ops/constant_pad_nd.h"
#include "ops/div_Tensor.h"
#include "ops/expand.h"
#include "ops/imag.h"
#include "ops/mul_Tensor.h"
#include "ops/narrow.h"
#include "ops/ones.h"
#include "ops/pad.h"
#include "ops/real.h"
#include "ops/roll.h"
#include "ops/squeeze_dim.h"
#include "ops/transpose_int.h"
#include "ops/unfold.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"
#include "ops/view_as_real.h"

namespace torchlite {

namespace {

using fft::kNormByN;
using fft::kNormByRootN;
using fft::kNormNone;

// PyTorch's norm strings: "backward" (the default) leaves the forward transform unscaled and scales the
// backward one by 1/n, "forward" the other way round, "ortho" both by 1/sqrt(n).
int64_t norm_mode(std::optional<std::string_view> norm, bool forward) {
  if (!norm || *norm == "backward") return forward ? kNormNone : kNormByN;
  if (*norm == "forward") return forward ? kNormByN : kNormNone;
  if (*norm == "ortho") return kNormByRootN;
  TL_ERROR("Invalid normalization mode: \"", *norm, "\"");
}

// Integers and bool become the default float dtype, then complex when the transform needs it; complex stays.
Tensor promote(const Tensor& t, bool require_complex) {
  ScalarType s = t.scalar_type();
  if (is_complex_type(s)) return t;
  if (!is_floating_type(s)) s = default_dtype();
  TL_CHECK(s == ScalarType::Float || s == ScalarType::Double, "Unsupported dtype ", scalar_type_name(s));
  if (require_complex) s = to_complex_type(s);
  return s == t.scalar_type() ? t : _to_copy(t, s, std::nullopt);
}

int64_t wrap_signal_dim(const Tensor& t, int64_t dim) {
  TL_CHECK_INDEX(t.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  return wrap_dim(dim, t.dim());
}

// x cut to sizes[i] along dims[i] where longer, zero-padded at the end where shorter.
Tensor resize_input(Tensor x, const DimVector& dims, const DimVector& sizes) {
  std::vector<int64_t> pad(static_cast<size_t>(2 * x.dim()), 0);
  bool padded = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i], have = x.size(d);
    if (have < sizes[i]) {
      padded = true;
      pad[pad.size() - 2 * static_cast<size_t>(d) - 1] = sizes[i] - have;  // pads run from the last dim back
    } else if (have > sizes[i]) {
      x = narrow(x, d, 0, sizes[i]);
    }
  }
  return padded ? constant_pad_nd(x, pad) : x;
}

void check_points(int64_t n) { TL_CHECK(n >= 1, "Invalid number of data points (", n, ") specified"); }

// ---------------------------------------------------------------- one dimension
Tensor fft_c2c_1d(const Tensor& input, std::optional<int64_t> n_opt, int64_t dim, std::optional<std::string_view> norm,
                  bool forward) {
  const int64_t d = wrap_signal_dim(input, dim);
  const int64_t n = n_opt.value_or(input.size(d));
  check_points(n);
  Tensor x = n_opt ? resize_input(input, DimVector{d}, DimVector{n}) : input;
  return _fft_c2c(x, DimVector{d}, norm_mode(norm, forward), forward);
}

Tensor fft_r2c_1d(const char* fname, const Tensor& self, std::optional<int64_t> n_opt, int64_t dim,
                  std::optional<std::string_view> norm, bool forward, bool onesided) {
  TL_CHECK(!is_complex_type(self.scalar_type()), fname, " expects a real input tensor, but got ",
           scalar_type_name(self.scalar_type()));
  Tensor input = promote(self, false);
  const int64_t d = wrap_signal_dim(input, dim);
  const int64_t n = n_opt.value_or(input.size(d));
  check_points(n);
  Tensor x = n_opt ? resize_input(input, DimVector{d}, DimVector{n}) : input;
  Tensor ret = _fft_r2c(x, DimVector{d}, norm_mode(norm, forward), onesided);
  return forward ? ret : conj(ret);  // the backward transform of real values is the conjugate forward one
}

Tensor fft_c2r_1d(const Tensor& self, std::optional<int64_t> n_opt, int64_t dim, std::optional<std::string_view> norm,
                  bool forward) {
  Tensor input = promote(self, true);
  const int64_t d = wrap_signal_dim(input, dim);
  const int64_t n = n_opt.value_or(2 * (input.size(d) - 1));
  check_points(n);
  if (n_opt) input = resize_input(input, DimVector{d}, DimVector{n / 2 + 1});
  if (forward) input = conj(input);  // hfft: the forward transform of a Hermitian signal, conj of the backward
  return _fft_c2r(input, DimVector{d}, norm_mode(norm, forward), n);
}

// ---------------------------------------------------------------- n dimensions
struct Signal {
  DimVector dim;
  DimVector shape;
};

// PyTorch's rules for s and dim: dim wrapped and unique; s as long as dim (the last len(s) dims when dim is
// None), -1 in s keeping the input's size; neither given: every dim.
Signal signal_of(const Tensor& input, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim) {
  Signal sig;
  const int64_t nd = input.dim();
  if (dim) sig.dim = fft::wrap_fft_dims(input, *dim, "fftn");
  if (s) {
    TL_CHECK(!dim || dim->size() == s->size(), "When given, dim and shape arguments must have the same length");
    TL_CHECK(static_cast<int64_t>(s->size()) <= nd, "Got shape with ", s->size(), " values but input tensor only has ",
             nd, " dimensions.");
    if (!dim) {
      for (int64_t i = nd - static_cast<int64_t>(s->size()); i < nd; ++i) sig.dim.push_back(i);
    }
    for (size_t i = 0; i < s->size(); ++i) sig.shape.push_back((*s)[i] == -1 ? input.size(sig.dim[i]) : (*s)[i]);
  } else {
    if (!dim) {
      for (int64_t i = 0; i < nd; ++i) sig.dim.push_back(i);
    }
    for (int64_t d : sig.dim) sig.shape.push_back(input.size(d));
  }
  for (int64_t n : sig.shape) check_points(n);
  return sig;
}

Tensor fftn_c2c(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                std::optional<std::string_view> norm, bool forward) {
  Signal sig = signal_of(self, s, dim);
  Tensor x = resize_input(promote(self, true), sig.dim, sig.shape);
  return _fft_c2c(x, sig.dim, norm_mode(norm, forward), forward);
}

// rfftn and ihfftn's start: the real input cut or padded, its one-sided transform over the last dim.
Tensor rfftn_start(const char* fname, const Tensor& self, const Signal& sig, int64_t normalization) {
  TL_CHECK(!sig.dim.empty(), fname, " must transform at least one axis");
  TL_CHECK(!is_complex_type(self.scalar_type()), fname, " expects a real-valued input tensor, but got ",
           scalar_type_name(self.scalar_type()));
  Tensor x = resize_input(promote(self, false), sig.dim, sig.shape);
  return _fft_r2c(x, DimVector{sig.dim[sig.dim.size() - 1]}, normalization, /*onesided=*/true);
}

// irfftn and hfftn's sizes: the last dim's output length (from s, or 2 (m - 1)) and its n/2 + 1 inputs.
Signal c2r_signal(const char* fname, const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                  int64_t* last_dim_size) {
  Signal sig = signal_of(self, s, dim);
  TL_CHECK(!sig.dim.empty(), fname, " must transform at least one axis");
  const size_t last = sig.dim.size() - 1;
  *last_dim_size = (!s || (*s)[s->size() - 1] == -1) ? 2 * (self.size(sig.dim[last]) - 1) : sig.shape[last];
  check_points(*last_dim_size);
  sig.shape[last] = *last_dim_size / 2 + 1;
  return sig;
}

DimVector leading(const DimVector& d) {
  DimVector r;
  for (size_t i = 0; i + 1 < d.size(); ++i) r.push_back(d[i]);
  return r;
}

Tensor irfftn_impl(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                   std::optional<std::string_view> norm) {
  int64_t n = 0;
  Signal sig = c2r_signal("irfftn", self, s, dim, &n);
  Tensor x = resize_input(promote(self, true), sig.dim, sig.shape);
  return _fft_c2r(x, sig.dim, norm_mode(norm, false), n);
}

Tensor hfftn_impl(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                  std::optional<std::string_view> norm) {
  int64_t n = 0;
  Signal sig = c2r_signal("hfftn", self, s, dim, &n);
  Tensor x = resize_input(promote(self, true), sig.dim, sig.shape);
  const int64_t mode = norm_mode(norm, true);
  if (sig.dim.size() > 1) x = _fft_c2c(x, leading(sig.dim), mode, /*forward=*/true);
  return _fft_c2r(conj(x), DimVector{sig.dim[sig.dim.size() - 1]}, mode, n);
}

Tensor ihfftn_impl(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                   std::optional<std::string_view> norm) {
  Signal sig = signal_of(self, s, dim);
  const int64_t mode = norm_mode(norm, false);
  Tensor t = conj(rfftn_start("ihfftn", self, sig, mode));
  if (sig.dim.size() == 1) return t;
  return _fft_c2c(t, leading(sig.dim), mode, /*forward=*/false);
}

std::optional<IntArrayRef> as_opt(IntArrayRef d) { return d; }

Tensor frequencies(int64_t count, int64_t n, double d, std::optional<ScalarType> dtype, std::optional<Device> device,
                   const char* fname, bool two_sided) {
  ScalarType t = dtype.value_or(default_dtype());
  TL_CHECK(is_floating_type(t) || is_complex_type(t), fname, " requires a floating point or complex dtype");
  TL_CHECK(n >= 0, fname, ": n must be non-negative, got ", n);
  // two-sided: 0, 1, ..., ceil(n/2) - 1, then -floor(n/2), ..., -1
  Tensor k = two_sided && n > 1 ? cat(std::vector<Tensor>{arange(int64_t(0), (n + 1) / 2, int64_t(1), t, device),
                                                          arange(-(n / 2), int64_t(0), int64_t(1), t, device)},
                                      0)
                                : arange(int64_t(0), count, int64_t(1), t, device);
  return mul(k, number(1.0 / (static_cast<double>(n) * d)));
}

Tensor shifted(const Tensor& self, std::optional<IntArrayRef> dim, bool inverse) {
  DimVector dims;
  if (dim) {
    for (int64_t d : *dim) dims.push_back(wrap_dim(d, self.dim()));
  } else {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  DimVector shifts;
  for (int64_t d : dims) shifts.push_back(inverse ? (self.size(d) + 1) / 2 : self.size(d) / 2);
  return roll(self, shifts, dims);
}

}  // namespace

// ---------------------------------------------------------------- the public functions
Tensor composite::fft_fft(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                          std::optional<std::string_view> norm) {
  if (is_complex_type(self.scalar_type())) return fft_c2c_1d(self, n, dim, norm, true);
  return fft_r2c_1d("fft", self, n, dim, norm, true, /*onesided=*/false);
}

Tensor composite::fft_ifft(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                           std::optional<std::string_view> norm) {
  if (is_complex_type(self.scalar_type())) return fft_c2c_1d(self, n, dim, norm, false);
  return fft_r2c_1d("ifft", self, n, dim, norm, false, /*onesided=*/false);
}

Tensor composite::fft_rfft(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                           std::optional<std::string_view> norm) {
  return fft_r2c_1d("rfft", self, n, dim, norm, true, /*onesided=*/true);
}

Tensor composite::fft_irfft(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                            std::optional<std::string_view> norm) {
  return fft_c2r_1d(self, n, dim, norm, false);
}

Tensor composite::fft_hfft(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                           std::optional<std::string_view> norm) {
  return fft_c2r_1d(self, n, dim, norm, true);
}

Tensor composite::fft_ihfft(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                            std::optional<std::string_view> norm) {
  return fft_r2c_1d("ihfft", self, n, dim, norm, false, /*onesided=*/true);
}

Tensor composite::fft_fftn(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                           std::optional<std::string_view> norm) {
  return fftn_c2c(self, s, dim, norm, true);
}

Tensor composite::fft_ifftn(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                            std::optional<std::string_view> norm) {
  return fftn_c2c(self, s, dim, norm, false);
}

Tensor composite::fft_rfftn(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                            std::optional<std::string_view> norm) {
  Signal sig = signal_of(self, s, dim);
  const int64_t mode = norm_mode(norm, true);
  Tensor t = rfftn_start("rfftn", self, sig, mode);
  if (sig.dim.size() == 1) return t;
  return _fft_c2c(t, leading(sig.dim), mode, /*forward=*/true);
}

Tensor composite::fft_irfftn(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                             std::optional<std::string_view> norm) {
  return irfftn_impl(self, s, dim, norm);
}

Tensor composite::fft_hfftn(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                            std::optional<std::string_view> norm) {
  return hfftn_impl(self, s, dim, norm);
}

Tensor composite::fft_ihfftn(const Tensor& self, std::optional<IntArrayRef> s, std::optional<IntArrayRef> dim,
                             std::optional<std::string_view> norm) {
  return ihfftn_impl(self, s, dim, norm);
}

Tensor composite::fft_fft2(const Tensor& self, std::optional<IntArrayRef> s, IntArrayRef dim,
                           std::optional<std::string_view> norm) {
  return fftn_c2c(self, s, as_opt(dim), norm, true);
}

Tensor composite::fft_ifft2(const Tensor& self, std::optional<IntArrayRef> s, IntArrayRef dim,
                            std::optional<std::string_view> norm) {
  return fftn_c2c(self, s, as_opt(dim), norm, false);
}

Tensor composite::fft_rfft2(const Tensor& self, std::optional<IntArrayRef> s, IntArrayRef dim,
                            std::optional<std::string_view> norm) {
  return composite::fft_rfftn(self, s, as_opt(dim), norm);
}

Tensor composite::fft_irfft2(const Tensor& self, std::optional<IntArrayRef> s, IntArrayRef dim,
                             std::optional<std::string_view> norm) {
  return irfftn_impl(self, s, as_opt(dim), norm);
}

Tensor composite::fft_hfft2(const Tensor& self, std::optional<IntArrayRef> s, IntArrayRef dim,
                            std::optional<std::string_view> norm) {
  return hfftn_impl(self, s, as_opt(dim), norm);
}

Tensor composite::fft_ihfft2(const Tensor& self, std::optional<IntArrayRef> s, IntArrayRef dim,
                             std::optional<std::string_view> norm) {
  return ihfftn_impl(self, s, as_opt(dim), norm);
}

Tensor composite::fft_fftfreq(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return frequencies(n, n, d, dtype, device, "fftfreq", /*two_sided=*/true);
}

Tensor composite::fft_rfftfreq(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return frequencies(n / 2 + 1, n, d, dtype, device, "rfftfreq", /*two_sided=*/false);
}

Tensor composite::fft_fftshift(const Tensor& self, std::optional<IntArrayRef> dim) {
  return shifted(self, dim, false);
}

Tensor composite::fft_ifftshift(const Tensor& self, std::optional<IntArrayRef> dim) {
  return shifted(self, dim, true);
}

// ---------------------------------------------------------------- stft and istft
namespace {

// The window (ones when none is given) centred in n_fft values, zeros around it.
Tensor padded_window(const std::optional<Tensor>& window, int64_t win_length, int64_t n_fft, ScalarType dtype,
                     Device device) {
  Tensor w = window ? *window : ones(DimVector{win_length}, dtype, device);
  if (win_length == n_fft) return w;
  const int64_t left = (n_fft - win_length) / 2;
  return constant_pad_nd(w, DimVector{left, n_fft - win_length - left});
}

// Overlap-add of frames (C, n_frames, n_fft), hop apart: (C, n_fft + hop (n_frames - 1)). col2im (F.fold)
// with 1 x n_fft blocks, which has the adjoint (im2col) as its derivative; complex frames part by part.
Tensor overlap_add(const Tensor& frames, int64_t n_fft, int64_t hop) {
  const int64_t c = frames.size(0), n_frames = frames.size(1), len = n_fft + hop * (n_frames - 1);
  auto fold = [&](const Tensor& f) {
    Tensor cols = transpose(f, 1, 2);  // (C, n_fft, n_frames): the blocks as columns
    Tensor img = col2im(cols, DimVector{1, len}, DimVector{1, n_fft}, DimVector{1, 1}, DimVector{0, 0},
                        DimVector{1, hop});
    return view(img, DimVector{c, len});
  };
  if (!is_complex_type(frames.scalar_type())) return fold(frames);
  return complex(fold(real(frames)), fold(imag(frames)));
}

}  // namespace

Tensor composite::stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length,
                       std::optional<int64_t> win_length, const std::optional<Tensor>& window, bool center,
                       std::string_view pad_mode, bool normalized, std::optional<bool> onesided,
                       std::optional<bool> return_complex) {
  const bool complex_window = window && is_complex_type(window->scalar_type());
  const bool want_complex = return_complex.value_or(is_complex_type(self.scalar_type()) || complex_window);
  TL_CHECK(want_complex || return_complex.has_value(), "stft requires the return_complex parameter be given for real "
           "inputs, and will further require that return_complex=True in a future PyTorch release.");
  TL_CHECK(self.dim() == 1 || self.dim() == 2, "stft: expected a 1D or 2D tensor, but got a ", self.dim(), "D tensor");
  ScalarType t = self.scalar_type();
  TL_CHECK(is_floating_type(t) || is_complex_type(t), "stft: expected a tensor of floating point or complex values");
  Tensor x = self.dim() == 1 ? unsqueeze(self, 0) : self;  // (B, L)
  if (center) {  // F.pad of a (1, B, L) view; complex signals part by part (the padding kernels are real)
    const int64_t p = n_fft / 2;
    auto padded = [&](const Tensor& v) {
      return view(pad(view(v, DimVector{1, v.size(0), v.size(1)}), DimVector{p, p}, pad_mode), DimVector{v.size(0), -1});
    };
    x = is_complex_type(t) ? complex(padded(real(x)), padded(imag(x))) : padded(x);
  }
  const int64_t len = x.size(1);
  const int64_t hop = hop_length.value_or(n_fft / 4), win = win_length.value_or(n_fft);
  TL_CHECK(n_fft > 0 && n_fft <= len, "stft: expected 0 < n_fft < ", len, ", but got n_fft=", n_fft);
  TL_CHECK(hop > 0, "stft: expected hop_length > 0, but got hop_length=", hop);
  TL_CHECK(win > 0 && win <= n_fft, "stft: expected 0 < win_length <= n_fft, but got win_length=", win);
  if (window) {
    TL_CHECK(window->dim() == 1 && window->size(0) == win, "stft: expected a 1D window tensor of size equal to "
             "win_length=", win, ", but got window with size ", window->sizes());
  }
  Tensor frames = unfold(x, 1, n_fft, hop);  // (B, n_frames, n_fft)
  if (window) frames = mul(frames, padded_window(window, win, n_fft, t, self.device()));
  else if (win < n_fft) frames = mul(frames, padded_window(std::nullopt, win, n_fft, to_real_type(t), self.device()));
  const bool complex_fft = is_complex_type(frames.scalar_type());
  const bool sided = onesided.value_or(!complex_fft);
  const int64_t norm = normalized ? kNormByRootN : kNormNone;
  Tensor out;
  if (complex_fft) {
    TL_CHECK(!sided, "Cannot have onesided output if window or input is complex");
    out = _fft_c2c(frames, DimVector{2}, norm, /*forward=*/true);
  } else {
    out = _fft_r2c(promote(frames, false), DimVector{2}, norm, sided);
  }
  out = transpose(out, 1, 2);  // (B, freq, n_frames)
  if (self.dim() == 1) out = squeeze(out, 0);
  return want_complex ? out : view_as_real(out);
}

Tensor composite::istft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length,
                        std::optional<int64_t> win_length, const std::optional<Tensor>& window, bool center,
                        bool normalized, std::optional<bool> onesided, std::optional<int64_t> length,
                        bool return_complex) {
  TL_CHECK(is_complex_type(self.scalar_type()), "istft requires a complex-valued input tensor matching the output "
           "from stft with return_complex=True.");
  TL_CHECK(self.numel() > 0, "istft: input tensor cannot be empty.");
  TL_CHECK(self.dim() == 2 || self.dim() == 3, "istft: expected a tensor with 2 or 3 dimensions of complex dtype, but "
           "got ", self.dim());
  const int64_t hop = hop_length.value_or(n_fft / 4), win = win_length.value_or(n_fft);
  const int64_t n_frames = self.size(-1), fft_size = self.size(-2);
  const bool sided = onesided.value_or(fft_size != n_fft);
  if (sided) {
    TL_CHECK(n_fft / 2 + 1 == fft_size, "istft: expected the frequency dimension (3rd to the last) of the input tensor "
             "to match n_fft / 2 + 1 when onesided=True, but got ", fft_size);
  } else {
    TL_CHECK(n_fft == fft_size, "istft: expected the frequency dimension (3rd to the last) of the input tensor to "
             "match n_fft when onesided=False, but got ", fft_size);
  }
  TL_CHECK(hop > 0 && hop <= win, "istft: expected 0 < hop_length <= win_length");
  TL_CHECK(win > 0 && win <= n_fft, "istft: expected 0 < win_length <= n_fft");
  if (window) {
    TL_CHECK(window->dim() == 1 && window->size(0) == win, "istft: Invalid window shape. window has to be 1D and "
             "length of `win_length`");
  }
  const ScalarType real_t = to_real_type(self.scalar_type());
  Tensor w = padded_window(window, win, n_fft, real_t, self.device());
  Tensor x = transpose(self.dim() == 2 ? unsqueeze(self, 0) : self, 1, 2);  // (C, n_frames, fft_size)
  const int64_t norm = normalized ? kNormByRootN : kNormByN;
  Tensor frames;
  if (return_complex) {
    TL_CHECK(!sided, "Cannot have onesided output if window or input is complex");
    frames = _fft_c2c(x, DimVector{2}, norm, /*forward=*/false);
  } else {
    TL_CHECK(!window || !is_complex_type(window->scalar_type()), "Complex windows are incompatible with "
             "return_complex=False");
    if (!sided) x = narrow(x, 2, 0, n_fft / 2 + 1);
    frames = _fft_c2r(x, DimVector{2}, norm, n_fft);
  }
  Tensor y = overlap_add(mul(frames, w), n_fft, hop);  // (C, expected length)
  const int64_t expected = n_fft + hop * (n_frames - 1);
  Tensor squares = expand(view(mul(w, w), DimVector{1, 1, n_fft}), DimVector{1, n_frames, n_fft});
  Tensor envelope = overlap_add(squares, n_fft, hop);
  const int64_t start = center ? n_fft / 2 : 0;
  const int64_t end = length ? start + *length : (center ? expected - n_fft / 2 : expected);
  const int64_t stop = std::min(end, expected);
  y = narrow(y, 1, start, std::max<int64_t>(stop - start, 0));
  envelope = narrow(envelope, 1, start, std::max<int64_t>(stop - start, 0));
  if (envelope.numel() > 0) {
    const double lowest = item(amin(abs(envelope), std::nullopt, false)).to_double();
    TL_CHECK(lowest >= 1e-11, "istft(...): window overlap add min: ", lowest);
  }
  y = div(y, envelope);
  if (end > expected) y = constant_pad_nd(y, DimVector{0, end - expected});  // length past the signal: zeros
  return self.dim() == 2 ? squeeze(y, 0) : y;
}

}  // namespace torchlite
