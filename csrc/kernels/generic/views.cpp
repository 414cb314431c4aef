// View kernels (dispatch: {any: ...}): they compute the new geometry and return
// an alias of self; the generated view stage records _base and shares the
// version counter.
#include <algorithm>

#include "core/TensorFactory.h"
#include "kernels/_slice.h"
#include "kernels/as_strided.h"
#include "kernels/diagonal.h"
#include "kernels/expand.h"
#include "kernels/generic/ViewUtils.h"
#include "kernels/movedim_intlist.h"
#include "kernels/narrow.h"
#include "kernels/permute.h"
#include "kernels/select_int.h"
#include "kernels/squeeze.h"
#include "kernels/squeeze_dim.h"
#include "kernels/squeeze_dims.h"
#include "kernels/t.h"
#include "kernels/transpose_int.h"
#include "kernels/unfold.h"
#include "kernels/unsqueeze.h"
#include "kernels/view.h"
#include "kernels/view_as.h"

namespace torchlite {

// Resolves a single -1 and checks the element count: "shape '[2, 4]' is invalid for input of size 6".
DimVector infer_size(IntArrayRef shape, int64_t numel) {
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
bool compute_view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes, DimVector& out) {
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

Tensor kernels::view_as_any(const Tensor& self, const Tensor& other) { return view_any(self, other.sizes()); }

// A dim index wrapped as PyTorch does for ops that treat a 0-dim tensor as 1-dim (squeeze, unfold).
static int64_t wrap_dim_scalar(const Tensor& t, int64_t d) { return wrap_dim(d, std::max<int64_t>(t.dim(), 1)); }

Tensor kernels::permute_any(const Tensor& self, IntArrayRef dims) {
  int64_t n = self.dim();
  TL_CHECK(static_cast<int64_t>(dims.size()) == n, "permute(sparse_coo): number of dimensions in the tensor input "
           "does not match the length of the desired ordering of dimensions i.e. input.dim() = ", n,
           " is not equal to len(dims) = ", dims.size());
  DimVector sizes(static_cast<size_t>(n)), strides(static_cast<size_t>(n));
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = self.wrap_dim(dims[i]);
    TL_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_alias(self, sizes.ref(), strides.ref(), self.storage_offset());
}

Tensor kernels::movedim_any(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  int64_t n = self.dim();
  TL_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (", source,
           " dims) should contain the same number of dims as destination (", destination, " dims)");
  // A 0-dim tensor has one dim to name (0 or -1), as in PyTorch.
  const size_t slots = static_cast<size_t>(std::max<int64_t>(n, 1));
  std::vector<int64_t> order(slots, -1);
  std::vector<bool> used(slots, false);
  std::vector<bool> dst_used(slots, false);
  for (size_t i = 0; i < source.size(); ++i) {
    int64_t s = self.wrap_dim(source[i]), d = self.wrap_dim(destination[i]);
    TL_CHECK(!used[s], "movedim: repeated dim in `source` (", source, ")");
    TL_CHECK(!dst_used[d], "movedim: repeated dim in `destination` (", destination, ")");
    used[s] = dst_used[d] = true;
    order[d] = s;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (order[d] >= 0) continue;
    while (used[next]) ++next;
    order[d] = next++;
  }
  return permute_any(self, IntArrayRef(order.data(), static_cast<size_t>(n)));
}

Tensor kernels::t_any(const Tensor& self) {
  TL_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  if (self.dim() < 2) return make_alias(self, self.sizes(), self.strides(), self.storage_offset());
  return transpose_any(self, 0, 1);
}

Tensor kernels::expand_any(const Tensor& self, IntArrayRef size, bool implicit) {
  int64_t n = static_cast<int64_t>(size.size()), old = self.dim();
  TL_CHECK(n >= old, "expand(", to_string(self.scalar_type()), "Tensor{", self.sizes(), "}, size=", size,
           "): the number of sizes provided (", n, ") must be greater or equal to the number of dimensions in "
           "the tensor (", old, ")");
  DimVector sizes(static_cast<size_t>(n)), strides(static_cast<size_t>(n));
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t d = old - (n - i);
    int64_t target = size[i];
    if (d >= 0) {
      int64_t have = self.sizes()[d];
      if (target == -1) target = have;
      TL_CHECK(have == target || have == 1, "The expanded size of the tensor (", target,
               ") must match the existing size (", have, ") at non-singleton dimension ", i, ".  Target sizes: ",
               size, ".  Tensor sizes: ", self.sizes());
      sizes[i] = target;
      strides[i] = have == target ? self.strides()[d] : 0;
    } else {
      TL_CHECK(target >= 0, "The expanded size of the tensor (", target,
               ") isn't allowed in a leading, non-existing dimension ", i);
      sizes[i] = target;
      strides[i] = 0;
    }
  }
  return make_alias(self, sizes.ref(), strides.ref(), self.storage_offset());
}

static Tensor squeeze_where(const Tensor& self, const std::vector<bool>& drop) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (drop[d] && self.sizes()[d] == 1) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  return make_alias(self, sizes.ref(), strides.ref(), self.storage_offset());
}

Tensor kernels::squeeze_any(const Tensor& self) {
  return squeeze_where(self, std::vector<bool>(static_cast<size_t>(self.dim()), true));
}

Tensor kernels::squeeze_dim_any(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim_scalar(self, dim);
  std::vector<bool> drop(static_cast<size_t>(self.dim()), false);
  if (self.dim() > 0) drop[d] = true;
  return squeeze_where(self, drop);
}

Tensor kernels::squeeze_dims_any(const Tensor& self, IntArrayRef dim) {
  std::vector<bool> drop(static_cast<size_t>(self.dim()), false);
  for (int64_t d : dim) {
    int64_t w = wrap_dim_scalar(self, d);
    if (self.dim() > 0) drop[w] = true;
  }
  return squeeze_where(self, drop);
}

Tensor kernels::unsqueeze_any(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim() + 1);
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t stride = d >= self.dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(d, 1);
  strides.insert(d, stride);
  return make_alias(self, sizes.ref(), strides.ref(), self.storage_offset());
}

Tensor kernels::select_any(const Tensor& self, int64_t dim, int64_t index) {
  TL_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  int64_t d = self.wrap_dim(dim), size = self.sizes()[d];
  TL_CHECK_INDEX(index >= -size && index < size, "select(): index ", index, " out of range for tensor of size ",
                 self.sizes(), " at dimension ", d);
  if (index < 0) index += size;
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes.erase(d);
  strides.erase(d);
  return make_alias(self, sizes.ref(), strides.ref(), self.storage_offset() + index * self.strides()[d]);
}

Tensor kernels::narrow_any(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  TL_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  TL_CHECK(length >= 0, "narrow(): length must be non-negative.");
  int64_t d = self.wrap_dim(dim), size = self.sizes()[d];
  TL_CHECK_INDEX(start >= -size && start <= size, "start out of range (expected to be in range of [", -size, ", ",
                 size, "], but got ", start, ")");
  if (start < 0) start += size;
  TL_CHECK(start <= size - length, "start (", start, ") + length (", length, ") exceeds dimension size (", size,
           ").");
  DimVector sizes(self.sizes());
  sizes[d] = length;
  return make_alias(self, sizes.ref(), self.strides(), self.storage_offset() + start * self.strides()[d]);
}

Tensor kernels::slice_any(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                          int64_t step) {
  TL_CHECK(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  TL_CHECK_VALUE(step > 0, "step must be greater than zero");
  int64_t d = self.wrap_dim(dim), size = self.sizes()[d];
  // Python's slice clamping.
  int64_t lo = start.value_or(0), hi = end.value_or(size);
  if (lo < 0) lo += size;
  if (hi < 0) hi += size;
  lo = std::clamp<int64_t>(lo, 0, size);
  hi = std::clamp<int64_t>(hi, lo, size);
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes[d] = (hi - lo + step - 1) / step;
  strides[d] *= step;
  return make_alias(self, sizes.ref(), strides.ref(), self.storage_offset() + lo * self.strides()[d]);
}

Tensor kernels::as_strided_any(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                               std::optional<int64_t> storage_offset) {
  TL_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  int64_t offset = storage_offset.value_or(self.storage_offset());
  TL_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  for (size_t i = 0; i < size.size(); ++i) {
    TL_CHECK(size[i] >= 0, "Trying to create tensor with negative dimension ", size[i], ": ", size);
    TL_CHECK(stride[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ", stride);
  }
  int64_t needed = 0;
  TL_CHECK(storage_nbytes_needed(size, stride, offset, self.element_size(), &needed),
           "Storage size calculation overflowed with sizes=", size, " and strides=", stride);
  int64_t have = static_cast<int64_t>(self.impl()->storage()->nbytes());
  TL_CHECK(needed <= have, "setStorage: sizes ", size, ", strides ", stride, ", storage offset ", offset,
           ", and itemsize ", self.element_size(), " requiring a storage size of ", needed,
           " are out of bounds for storage of size ", have);
  return make_alias(self, size, stride, offset);
}

Tensor kernels::unfold_any(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  int64_t d = wrap_dim_scalar(self, dimension);
  int64_t have = self.dim() == 0 ? 1 : self.sizes()[d];
  TL_CHECK(size <= have, "maximum size for tensor at dimension ", d, " is ", have, " but size is ", size);
  TL_CHECK(step > 0, "step is ", step, " but must be > 0");
  TL_CHECK(size >= 0, "size is ", size, " but must be >= 0");
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t old_stride = self.dim() == 0 ? 1 : strides[d];
  if (self.dim() > 0) {
    sizes[d] = (have - size) / step + 1;
    strides[d] *= step;
  }
  sizes.push_back(size);
  strides.push_back(old_stride);
  return make_alias(self, sizes.ref(), strides.ref(), self.storage_offset());
}

Tensor kernels::diagonal_any(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t d1 = self.wrap_dim(dim1), d2 = self.wrap_dim(dim2);
  TL_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t s1 = self.sizes()[d1], s2 = self.sizes()[d2];
  int64_t diag = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  diag = std::max<int64_t>(diag, 0);
  int64_t start = self.storage_offset();
  if (diag > 0) start += offset >= 0 ? offset * self.strides()[d2] : -offset * self.strides()[d1];
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  sizes.push_back(diag);
  strides.push_back(self.strides()[d1] + self.strides()[d2]);
  return make_alias(self, sizes.ref(), strides.ref(), start);
}

}  // namespace torchlite
