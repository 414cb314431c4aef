// cat: the meta rule (shapes, promoted dtype, device) and one kernel for every
// device, which copies each input into its slice of the output with copy_.
#include "core/Promotion.h"
#include "dispatch/Meta.h"
#include "kernels/cat.h"
#include "ops/copy.h"
#include "ops/narrow.h"

namespace torchlite {

// PyTorch skips 1-D empty tensors (shape [0]) in cat, whatever the other shapes.
static bool skipped(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

TensorMeta meta::cat_meta(ArrayRef<Tensor> tensors, int64_t dim) {
  TL_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  ResultTypeState state;
  const Tensor* ref = nullptr;
  for (const Tensor& t : tensors) {
    update_result_type(state, t);
    if (!ref && !skipped(t)) ref = &t;
  }
  TensorMeta m;
  m.dtype = result_type(state);
  m.device = tensors[0].device();
  for (size_t i = 0; i < tensors.size(); ++i) {
    TL_CHECK(tensors[i].device() == m.device, "Expected all tensors to be on the same device, but found at least "
             "two devices, ", m.device, " and ", tensors[i].device(), "!");
  }
  if (!ref) {  // every input is 1-D and empty
    m.sizes = DimVector{0};
    return m;
  }
  TL_CHECK(ref->dim() > 0, "zero-dimensional tensor (at position ", ref - tensors.begin(),
           ") cannot be concatenated");
  int64_t d = ref->wrap_dim(dim);
  m.sizes = DimVector(ref->sizes());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped(t)) continue;
    TL_CHECK(t.dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    TL_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
             t.dim());
    for (int64_t k = 0; k < t.dim(); ++k) {
      if (k == d) continue;
      TL_CHECK(t.sizes()[k] == ref->sizes()[k], "Sizes of tensors must match except in dimension ", d,
               ". Expected size ", ref->sizes()[k], " but got size ", t.sizes()[k], " for tensor number ", i,
               " in the list.");
    }
    total += t.sizes()[d];
  }
  m.sizes[d] = total;
  return m;
}

void kernels::cat_out_any_device(ArrayRef<Tensor> tensors, int64_t dim, const Tensor& out) {
  if (out.dim() == 1 && out.sizes()[0] == 0) return;
  int64_t d = out.wrap_dim(dim), offset = 0;
  for (const Tensor& t : tensors) {
    if (skipped(t)) continue;
    int64_t n = t.sizes()[d];
    if (n > 0) copy_(narrow(out, d, offset, n), t);
    offset += n;
  }
}

}  // namespace torchlite
