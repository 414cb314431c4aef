// View kernels (dispatch: {any: ...}): they compute the new geometry and return
// an alias of self; the generated view stage records _base and shares the
// version counter.
#include "core/TensorFactory.h"
#include "kernels/transpose_int.h"
#include "kernels/view.h"

namespace torchlite {

// Resolves a single -1 and checks the element count: "shape '[2, 4]' is invalid for input of size 6".
static DimVector infer_size(IntArrayRef shape, int64_t numel) {
  DimVector res(shape);
  int64_t newsize = 1;
  int infer_dim = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      TL_CHECK(infer_dim < 0, "only one dimension can be inferred");
      infer_dim = static_cast<int>(i);
    } else {
      TL_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i]);
      newsize *= shape[i];
    }
  }
  bool ok = numel == newsize || (infer_dim >= 0 && newsize > 0 && numel % newsize == 0);
  TL_CHECK(ok, "shape '", shape, "' is invalid for input of size ", numel);
  if (infer_dim >= 0) {
    TL_CHECK(newsize != 0, "cannot reshape tensor of 0 elements into shape ", shape,
             " because the unspecified dimension size -1 can be any value and is ambiguous");
    res[infer_dim] = numel / newsize;
  }
  return res;
}

// Strides for viewing (sizes, strides) as new_sizes without copying, if possible
// (PyTorch's computeStride): returns false when a new dim would span two
// non-contiguous chunks of the old layout.
static bool compute_view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes, DimVector& out) {
  out.resize(new_sizes.size());
  if (sizes.empty()) {
    for (size_t i = 0; i < new_sizes.size(); ++i) out[i] = 1;
    return true;
  }
  int64_t numel = compute_numel(sizes);
  if (numel == 0) {
    DimVector s = contiguous_strides(new_sizes);
    out.assign(s.ref());
    return true;
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= sizes[tensor_d];
    if (tensor_d == 0 || (sizes[tensor_d - 1] != 1 && strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Tensor kernels::view_any(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel());
  DimVector strides;
  TL_CHECK(compute_view_strides(self.sizes(), self.strides(), shape.ref(), strides),
           "view size is not compatible with input tensor's size and stride (at least one dimension spans "
           "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_alias(self, shape.ref(), strides.ref(), self.storage_offset());
}

Tensor kernels::transpose_any(const Tensor& self, int64_t dim0, int64_t dim1) {
  int64_t d0 = self.wrap_dim(dim0), d1 = self.wrap_dim(dim1);
  DimVector sizes(self.sizes()), strides(self.strides());
  if (self.dim() > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  return make_alias(self, sizes.ref(), strides.ref(), self.storage_offset());
}

}  // namespace torchlite
