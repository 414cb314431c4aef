// Formula helpers of the shape and view ops: each puts grad back where the
// forward op took its elements from, written with torchlite ops (no kernels),
// so that double backward records through them.
#include <algorithm>
#include <utility>

#include "autograd/FormulaHelpers.h"
#include "autograd/helpers_common.h"
#include "core/TensorFactory.h"
#include "ops/_index.h"
#include "ops/arange.h"
#include "ops/arange_start_step.h"
#include "ops/as_strided.h"
#include "ops/constant_pad_nd.h"
#include "ops/div_Tensor.h"
#include "ops/expand.h"
#include "ops/index_add.h"
#include "ops/index_put.h"
#include "ops/movedim_int.h"
#include "ops/narrow.h"
#include "ops/new_ones.h"
#include "ops/new_zeros.h"
#include "ops/permute.h"
#include "ops/reshape.h"
#include "ops/sum.h"
#include "ops/sum_dim_IntList.h"
#include "ops/transpose_int.h"
#include "ops/unfold.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"

namespace torchlite::autograd {

// ------------------------------------------------------------------ shared pieces

namespace helper_detail {

Tensor number(const Scalar& s) { return scalar_to_tensor(s, /*wrapped=*/true); }

bool is_one(const Scalar& s) { return s.is_floating_point() ? s.to_double() == 1.0 : s.to_long() == 1; }

uint64_t reduced_dims(int64_t ndim, std::optional<IntArrayRef> dim) {
  if (!dim.has_value() || dim->empty()) return ~uint64_t(0);
  uint64_t mask = 0;
  for (int64_t d : *dim) mask |= uint64_t(1) << wrap_dim(d, ndim);
  return mask;
}

int64_t reduced_numel(IntArrayRef sizes, std::optional<IntArrayRef> dim) {
  uint64_t mask = reduced_dims(static_cast<int64_t>(sizes.size()), dim);
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask >> d & 1) n *= sizes[d];
  return n;
}

Tensor unsqueeze_reduced(const Tensor& x, int64_t ndim, std::optional<IntArrayRef> dim, bool keepdim) {
  if (keepdim || ndim == 0) return x;
  uint64_t mask = reduced_dims(ndim, dim);
  Tensor out = x;
  for (int64_t d = 0; d < ndim; ++d)  // in increasing order, so each d is already its final position
    if (mask >> d & 1) out = unsqueeze(out, d);
  return out;
}

}  // namespace helper_detail

namespace {

// A list of one index tensor, for index_put and _index.
std::vector<std::optional<Tensor>> one_index(const Tensor& index) { return {std::optional<Tensor>(index)}; }

// The last storage position an element of this geometry reaches (sizes all > 0).
int64_t last_position(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  for (size_t i = 0; i < sizes.size(); ++i) offset += (sizes[i] - 1) * strides[i];
  return offset;
}

// Whether two elements of this geometry may share a memory location: false when,
// taking the dims by increasing stride, each stride steps past everything the
// smaller dims reach.
bool may_overlap(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims of size > 1
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return false;
    if (sizes[i] > 1) dims.emplace_back(strides[i], sizes[i]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;
  for (auto [stride, size] : dims) {
    if (stride <= reach) return true;
    reach += (size - 1) * stride;
  }
  return false;
}

}  // namespace

// ------------------------------------------------------------------ reductions and expand

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim) {
  Tensor g = helper_detail::unsqueeze_reduced(grad, static_cast<int64_t>(sizes.size()), dim, keepdim);
  return expand(g, sizes);
}

Tensor sum_to_size(const Tensor& grad, IntArrayRef sizes) {
  int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  TL_CHECK(lead >= 0, "sum_to_size: size ", sizes, " is not expandable to size ", grad.sizes());
  DimVector dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t have = grad.size(lead + static_cast<int64_t>(i));
    TL_CHECK(sizes[i] == have || sizes[i] == 1, "sum_to_size: size ", sizes, " is not expandable to size ",
             grad.sizes());
    if (sizes[i] == 1 && have != 1) dims.push_back(lead + static_cast<int64_t>(i));
  }
  if (dims.empty()) return grad;
  Tensor summed = sum(grad, IntArrayRef(dims), /*keepdim=*/true, std::nullopt);
  return lead > 0 ? view(summed, sizes) : summed;
}

// ------------------------------------------------------------------ dim permutations

Tensor transpose_backward(const Tensor& grad, int64_t dim0, int64_t dim1) { return transpose(grad, dim0, dim1); }

Tensor permute_backward(const Tensor& grad, IntArrayRef dims) {
  int64_t n = static_cast<int64_t>(dims.size());
  DimVector inverse(dims.size());
  for (int64_t i = 0; i < n; ++i) inverse[wrap_dim(dims[i], n)] = i;
  return permute(grad, inverse);
}

// ------------------------------------------------------------------ views that pick elements

namespace {

// grad, which fills positions [first, first + grad.size(d)) of dim d of a tensor of `sizes`, padded with zeros
// to those sizes: constant_pad_nd writes only the zero borders and copies grad once (no zero fill of the
// whole result, no index walk), and is differentiable (its backward crops).
Tensor zero_padded_along(const Tensor& grad, IntArrayRef sizes, int64_t d, int64_t first) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  DimVector pad(static_cast<size_t>(2 * (ndim - d)), 0);
  pad[pad.size() - 2] = first;
  pad[pad.size() - 1] = sizes[d] - first - grad.size(d);
  return constant_pad_nd(grad, pad.ref(), Scalar(int64_t(0)));
}

}  // namespace

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  int64_t i = index < 0 ? index + sizes[d] : index;
  return zero_padded_along(unsqueeze(grad, d), sizes, d, i);
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  int64_t n = grad.size(d);  // the slice's length (end only bounded it)
  int64_t first = start.value_or(0);
  if (first < 0) first += sizes[d];
  first = std::clamp<int64_t>(first, 0, sizes[d]);
  if (step == 1 || n <= 1) return zero_padded_along(grad, sizes, d, n == 0 ? 0 : first);
  Tensor zeros = new_zeros(grad, sizes);
  Tensor positions = arange(Scalar(first), Scalar(first + n * step), Scalar(step), ScalarType::Int64, grad.device());
  return index_add(zeros, d, positions, grad);
}

Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t ndim = static_cast<int64_t>(sizes.size());
  int64_t d1 = wrap_dim(dim1, ndim), d2 = wrap_dim(dim2, ndim);
  int64_t length = grad.size(-1);
  Tensor zeros = new_zeros(grad, sizes);
  if (length == 0) return zeros;
  // Element i of the diagonal is at (first1 + i, first2 + i) in the (dim1, dim2) plane.
  int64_t first1 = std::max<int64_t>(-offset, 0), first2 = std::max<int64_t>(offset, 0);
  std::vector<std::optional<Tensor>> indices(std::max(d1, d2) + 1);  // None keeps a dim
  indices[d1] = arange(Scalar(first1), Scalar(first1 + length), Scalar(int64_t(1)), ScalarType::Int64, grad.device());
  indices[d2] = arange(Scalar(first2), Scalar(first2 + length), Scalar(int64_t(1)), ScalarType::Int64, grad.device());
  // As in x[indices], the indexed dim sits where the two indexed dims were when they
  // are adjacent, and first otherwise; grad has the diagonal last.
  int64_t at = (d1 - d2 == 1 || d2 - d1 == 1) ? std::min(d1, d2) : 0;
  return index_put(zeros, indices, movedim(grad, -1, at), /*accumulate=*/false);
}

Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t size, int64_t step) {
  // A 0-dim input gives one window of at most one element.
  if (sizes.empty()) return sum(grad, std::optional<ScalarType>());
  int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  // Where each element of each window came from along dim: the windows of an arange.
  Tensor positions = unfold(arange(Scalar(sizes[d]), ScalarType::Int64, grad.device()), 0, size, step);
  // grad has dim d as the window and a last dim as the element in it: put them side
  // by side and merge them, in the order of positions.
  DimVector merged(sizes);
  merged[d] = positions.numel();
  Tensor source = reshape(movedim(grad, -1, d + 1), merged);
  return index_add(new_zeros(grad, sizes), d, reshape(positions, {-1}), source);
}

Tensor as_strided_backward(const Tensor& grad, const Tensor& self, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset) {
  if (grad.numel() == 0 || self.numel() == 0) return new_zeros(grad, self.sizes());
  int64_t out_offset = storage_offset.value_or(self.storage_offset());
  // The storage the two geometries use, numbered from its first position used.
  int64_t base = std::min(self.storage_offset(), out_offset);
  int64_t extent = std::max(last_position(self.sizes(), self.strides(), self.storage_offset()),
                            last_position(size, stride, out_offset)) - base + 1;
  Tensor storage = arange(Scalar(extent), ScalarType::Int64, grad.device());
  Tensor out_positions = as_strided(storage, size, stride, out_offset - base);
  Tensor self_positions = as_strided(storage, self.sizes(), self.strides(), self.storage_offset() - base);
  // Sum grad into the storage (elements of the output may share a position), then
  // read it back through self's geometry.
  Tensor storage_grad = index_put(new_zeros(grad, {extent}), one_index(out_positions), grad, /*accumulate=*/true);
  Tensor result = _index(storage_grad, one_index(self_positions));
  if (!may_overlap(self.sizes(), self.strides())) return result;
  // Elements of self that share a position share its gradient.
  Tensor count = index_put(new_zeros(grad, {extent}), one_index(self_positions), new_ones(grad, self.sizes()),
                           /*accumulate=*/true);
  return div(result, _index(count, one_index(self_positions)));
}

// ------------------------------------------------------------------ cat, conj

std::vector<Tensor> cat_backward(const Tensor& grad, ArrayRef<Tensor> tensors, int64_t dim) {
  std::vector<Tensor> grads;
  grads.reserve(tensors.size());
  int64_t d = grad.wrap_dim(dim);
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    // cat skips 1-D empty tensors whatever their shape along dim (PyTorch's legacy rule).
    if (t.dim() == 1 && t.numel() == 0) {
      grads.push_back(new_zeros(grad, t.sizes()));
      continue;
    }
    int64_t n = t.size(d);
    grads.push_back(narrow(grad, d, offset, n));
    offset += n;
  }
  return grads;
}

}  // namespace torchlite::autograd
