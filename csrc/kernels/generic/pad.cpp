// constant_pad_nd's kernel for every device: the border slabs filled with the value, then the input
// (cropped where a pad is negative) copied into the rest with copy_.
#include "kernels/constant_pad_nd.h"
#include "ops/copy.h"
#include "ops/fill_Scalar.h"
#include "ops/narrow.h"

namespace torchlite {

void kernels::constant_pad_nd_out_any_device(const Tensor& self, IntArrayRef pad, const Scalar& value,
                                             const Tensor& out) {
  if (out.numel() == 0) return;
  Tensor src = self, dst = out;
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const int64_t dim = self.dim() - 1 - static_cast<int64_t>(k), l = pad[2 * k], r = pad[2 * k + 1];
    const int64_t kept = self.size(dim) - (l < 0 ? -l : 0) - (r < 0 ? -r : 0);
    if (kept <= 0) {  // nothing of the input is left: the output is all border
      fill_(out, value);
      return;
    }
    if (l > 0) fill_(narrow(out, dim, 0, l), value);
    if (r > 0) fill_(narrow(out, dim, out.size(dim) - r, r), value);
    src = narrow(src, dim, l < 0 ? -l : 0, kept);
    dst = narrow(dst, dim, l > 0 ? l : 0, kept);
  }
  copy_(dst, src);
}

}  // namespace torchlite
