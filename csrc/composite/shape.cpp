// Composite shape ops: reshapes, splits, joins and copies written with the view
// ops and with cat/clone/copy_.
#include <algorithm>

#include "core/CudaHooks.h"
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/generic/ViewUtils.h"
#include "kernels/_to_copy.h"
#include "kernels/broadcast_tensors.h"
#include "kernels/broadcast_to.h"
#include "kernels/chunk.h"
#include "kernels/concat.h"
#include "kernels/contiguous.h"
#include "kernels/dstack.h"
#include "kernels/expand_as.h"
#include "kernels/flatten_using_ints.h"
#include "ops/flip.h"
#include "kernels/fliplr.h"
#include "kernels/flipud.h"
#include "kernels/hstack.h"
#include "kernels/movedim_int.h"
#include "kernels/moveaxis_int.h"
#include "kernels/repeat.h"
#include "kernels/repeat_interleave_Tensor.h"
#include "kernels/repeat_interleave_self_Tensor.h"
#include "kernels/repeat_interleave_self_int.h"
#include "kernels/reshape.h"
#include "kernels/reshape_as.h"
#include "kernels/roll.h"
#include "kernels/rot90.h"
#include "kernels/split_Tensor.h"
#include "kernels/split_sizes.h"
#include "kernels/split_with_sizes.h"
#include "kernels/stack.h"
#include "kernels/swapaxes.h"
#include "kernels/swapdims.h"
#include "kernels/tensor_split_indices.h"
#include "kernels/tensor_split_sections.h"
#include "kernels/tile.h"
#include "kernels/to_device.h"
#include "kernels/to_dtype.h"
#include "kernels/to_other.h"
#include "kernels/type_as.h"
#include "kernels/unbind_int.h"
#include "kernels/unflatten_int.h"
#include "kernels/vstack.h"
#include "ops/_slice.h"
#include "ops/arange_start_step.h"
#include "ops/cat.h"
#include "ops/clone.h"
#include "ops/copy.h"
#include "ops/empty.h"
#include "ops/expand.h"
#include "ops/index_select.h"
#include "ops/movedim_intlist.h"
#include "ops/narrow.h"
#include "ops/permute.h"
#include "ops/reshape.h"
#include "ops/select_int.h"
#include "ops/to_dtype.h"
#include "ops/transpose_int.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"

namespace torchlite {

// ------------------------------------------------------------------ reshapes

Tensor composite::reshape(const Tensor& self, IntArrayRef shape) {
  DimVector sizes = infer_size(shape, self.numel()), strides;
  if (compute_view_strides(self.sizes(), self.strides(), sizes.ref(), strides)) return view(self, sizes.ref());
  return view(clone(self), sizes.ref());
}

Tensor composite::reshape_as(const Tensor& self, const Tensor& other) { return torchlite::reshape(self, other.sizes()); }

Tensor composite::swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) { return transpose(self, axis0, axis1); }
Tensor composite::swapdims(const Tensor& self, int64_t dim0, int64_t dim1) { return transpose(self, dim0, dim1); }

Tensor composite::movedim_int(const Tensor& self, int64_t source, int64_t destination) {
  return movedim(self, IntArrayRef(source), IntArrayRef(destination));
}
Tensor composite::moveaxis_int(const Tensor& self, int64_t source, int64_t destination) {
  return movedim_int(self, source, destination);
}

Tensor composite::expand_as(const Tensor& self, const Tensor& other) { return expand(self, other.sizes()); }
Tensor composite::broadcast_to(const Tensor& self, IntArrayRef size) { return expand(self, size); }

std::vector<Tensor> composite::broadcast_tensors(ArrayRef<Tensor> tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_sizes(shape.ref(), t.sizes());
  std::vector<Tensor> result;
  for (const Tensor& t : tensors) result.push_back(expand(t, shape.ref()));
  return result;
}

Tensor composite::flatten_using_ints(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  if (self.dim() == 0) return torchlite::reshape(self, IntArrayRef(int64_t(1)));
  int64_t s = self.wrap_dim(start_dim), e = self.wrap_dim(end_dim);
  TL_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (s == e) return self;
  DimVector shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(self.sizes()[d]);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= self.sizes()[d];
  shape.push_back(n);
  for (int64_t d = e + 1; d < self.dim(); ++d) shape.push_back(self.sizes()[d]);
  return torchlite::reshape(self, shape.ref());
}

Tensor composite::unflatten_int(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  TL_CHECK(self.dim() > 0, "unflatten: cannot be applied to a 0-dim tensor.");
  TL_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  int64_t d = self.wrap_dim(dim);
  DimVector inner;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      TL_CHECK(infer < 0, "unflatten: only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      known *= sizes[i];
    }
    inner.push_back(sizes[i]);
  }
  int64_t have = self.sizes()[d];
  if (infer >= 0 && known != 0 && have % known == 0) inner[infer] = have / known;
  int64_t product = 1;
  for (size_t i = 0; i < inner.size(); ++i) product *= inner[i];
  TL_CHECK(product == have && inner[infer >= 0 ? infer : 0] >= 0, "unflatten: Provided sizes ", sizes,
           " don't multiply up to the size of dim ", dim, " (", have, ") in the input tensor");
  DimVector shape;
  for (int64_t k = 0; k < d; ++k) shape.push_back(self.sizes()[k]);
  for (size_t i = 0; i < inner.size(); ++i) shape.push_back(inner[i]);
  for (int64_t k = d + 1; k < self.dim(); ++k) shape.push_back(self.sizes()[k]);
  return torchlite::reshape(self, shape.ref());
}

// ------------------------------------------------------------------ splits

std::vector<Tensor> composite::split_sizes(const Tensor& self, IntArrayRef split_size, int64_t dim) {
  return composite::split_with_sizes(self, split_size, dim);
}

std::vector<Tensor> composite::split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  TL_CHECK(self.dim() > 0, "split_with_sizes expects at least a 1-dimensional tensor");
  int64_t d = self.wrap_dim(dim), size = self.sizes()[d], sum = 0;
  for (int64_t s : split_sizes) {
    TL_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
             split_sizes);
    sum += s;
  }
  TL_CHECK(sum == size, "split_with_sizes expects split_sizes to sum exactly to ", size,
           " (input tensor's size at dimension ", d, "), but got split_sizes=", split_sizes);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(narrow(self, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> composite::split_Tensor(const Tensor& self, int64_t split_size, int64_t dim) {
  TL_CHECK(self.dim() > 0, "split expects at least a 1-dimensional tensor");
  TL_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  int64_t d = self.wrap_dim(dim), size = self.sizes()[d];
  TL_CHECK(split_size > 0 || size == 0, "split_size can only be 0 if dimension size is 0, but got dimension size of ",
           size);
  int64_t n = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  DimVector sizes;
  for (int64_t i = 0; i < n; ++i) sizes.push_back(std::min(split_size, size - i * split_size));
  return split_with_sizes(self, sizes.ref(), d);
}

std::vector<Tensor> composite::chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  TL_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  TL_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t d = self.wrap_dim(dim), size = self.sizes()[d];
  int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {
    DimVector zeros;
    for (int64_t i = 0; i < chunks; ++i) zeros.push_back(0);
    return split_with_sizes(self, zeros.ref(), d);
  }
  return split_Tensor(self, split_size, d);
}

std::vector<Tensor> composite::tensor_split_sections(const Tensor& self, int64_t sections, int64_t dim) {
  TL_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  TL_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
  int64_t d = self.wrap_dim(dim), size = self.sizes()[d];
  // Sections beyond the dim's size are empty; a list of billions of them cannot be built.
  TL_CHECK(sections <= std::max<int64_t>(size, int64_t(1) << 24), "tensor_split: ", sections, " sections would "
           "return more tensors than can be made (the dim has ", size, " elements)");
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    int64_t n = size / sections + (i < size % sections ? 1 : 0);
    out.push_back(narrow(self, d, start, n));
    start += n;
  }
  return out;
}

std::vector<Tensor> composite::tensor_split_indices(const Tensor& self, IntArrayRef indices, int64_t dim) {
  TL_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  int64_t d = self.wrap_dim(dim);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t idx : indices) {
    out.push_back(_slice(self, d, start, idx, 1));
    start = idx;
  }
  out.push_back(_slice(self, d, start, std::nullopt, 1));
  return out;
}

std::vector<Tensor> composite::unbind_int(const Tensor& self, int64_t dim) {
  TL_CHECK_INDEX(self.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
  int64_t d = self.wrap_dim(dim);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.sizes()[d]; ++i) out.push_back(select(self, d, i));
  return out;
}

// ------------------------------------------------------------------ copies and conversions

Tensor composite::contiguous(const Tensor& self) { return self.is_contiguous() ? self : clone(self); }

Tensor composite::_to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor out = empty(self.sizes(), dtype.value_or(self.scalar_type()), device.value_or(self.device()));
  copy_(out, self);
  return out;
}

Tensor composite::to_device(const Tensor& self, std::optional<Device> device, std::optional<ScalarType> dtype,
                            bool non_blocking, bool copy) {
  Device dev = device.value_or(self.device());
  if (dev.is_cuda() && dev.index < 0) dev.index = static_cast<int8_t>(cuda::current_device());
  ScalarType t = dtype.value_or(self.scalar_type());
  if (!copy && dev == self.device() && t == self.scalar_type()) return self;
  return _to_copy(self, t, dev);
}

Tensor composite::to_dtype(const Tensor& self, std::optional<ScalarType> dtype, bool non_blocking, bool copy) {
  return to_device(self, std::nullopt, dtype, non_blocking, copy);
}

Tensor composite::to_other(const Tensor& self, const Tensor& other, bool non_blocking, bool copy) {
  return to_device(self, other.device(), other.scalar_type(), non_blocking, copy);
}

Tensor composite::type_as(const Tensor& self, const Tensor& other) {
  return to_dtype(self, other.scalar_type(), false, false);
}

// ------------------------------------------------------------------ joins

Tensor composite::concat(ArrayRef<Tensor> tensors, int64_t dim) { return cat(tensors, dim); }

Tensor composite::stack(ArrayRef<Tensor> tensors, int64_t dim) {
  TL_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  for (size_t i = 1; i < tensors.size(); ++i) {
    TL_CHECK(tensors[i].sizes().equals(tensors[0].sizes()), "stack expects each tensor to be equal size, but got ",
             tensors[0].sizes(), " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(unsqueeze(t, d));
  return cat(parts, d);
}

// atleast_1d/2d/3d as hstack, vstack and dstack need them.
static Tensor at_least(const Tensor& t, int64_t n) {
  if (t.dim() >= n) return t;
  if (t.dim() == 0) return torchlite::reshape(t, DimVector(static_cast<size_t>(n), 1).ref());
  if (n == 2) return unsqueeze(t, 0);                                  // (k) -> (1, k)
  if (t.dim() == 1) return view(t, IntArrayRef({1, t.sizes()[0], 1})); // (k) -> (1, k, 1)
  return unsqueeze(t, -1);                                             // (m, k) -> (m, k, 1)
}

static std::vector<Tensor> all_at_least(const char* op, ArrayRef<Tensor> tensors, int64_t n) {
  TL_CHECK(!tensors.empty(), op, " expects a non-empty TensorList");
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(at_least(t, n));
  return out;
}

Tensor composite::hstack(ArrayRef<Tensor> tensors) {
  std::vector<Tensor> ts = all_at_least("hstack", tensors, 1);
  return cat(ts, ts[0].dim() == 1 ? 0 : 1);
}

Tensor composite::vstack(ArrayRef<Tensor> tensors) { return cat(all_at_least("vstack", tensors, 2), 0); }
Tensor composite::dstack(ArrayRef<Tensor> tensors) { return cat(all_at_least("dstack", tensors, 3), 2); }

// ------------------------------------------------------------------ repeats, flips, rolls

Tensor composite::repeat(const Tensor& self, IntArrayRef repeats) {
  int64_t n = static_cast<int64_t>(repeats.size());
  TL_CHECK(n >= self.dim(), "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
           "tensor");
  DimVector padded(static_cast<size_t>(n - self.dim()), 1), interleaved, expanded, target;
  for (int64_t d = 0; d < self.dim(); ++d) padded.push_back(self.sizes()[d]);
  for (int64_t i = 0; i < n; ++i) {
    TL_CHECK(repeats[i] >= 0, "Trying to create tensor with negative dimension ", repeats[i], ": ", repeats);
    interleaved.push_back(1);
    interleaved.push_back(padded[i]);
    expanded.push_back(repeats[i]);
    expanded.push_back(padded[i]);
    target.push_back(repeats[i] * padded[i]);
  }
  // (s0, s1) -> (1, s0, 1, s1) -> expand (r0, s0, r1, s1) -> copy -> (r0 * s0, r1 * s1)
  Tensor x = expand(torchlite::reshape(self, interleaved.ref()), expanded.ref());
  return view(clone(x), target.ref());
}

namespace {

// The input and dim repeat_interleave works on: the flattened tensor when dim is None.
std::pair<Tensor, int64_t> interleave_target(const Tensor& self, std::optional<int64_t> dim) {
  if (!dim) return {torchlite::reshape(self, IntArrayRef(int64_t(-1))), 0};
  return {self, self.wrap_dim(*dim)};
}

void check_output_size(std::optional<int64_t> output_size, int64_t size) {
  TL_CHECK(!output_size || *output_size == size, "repeat_interleave: allocated size (", output_size.value_or(0),
           ") does not match required size (", size, ")");
}

}  // namespace

Tensor composite::repeat_interleave_Tensor(const Tensor& repeats, std::optional<int64_t> output_size) {
  TL_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  const ScalarType t = repeats.scalar_type();
  if (t != ScalarType::Int64 && t != ScalarType::Int32)
    throw_dtype_not_implemented(repeats.device().is_cpu() ? "repeat_interleave_cpu" : "repeat_interleave_cuda", t);
  // The counts are read on the host (the result's size depends on them, as in PyTorch's CUDA kernel); the
  // result goes back to repeats' device.
  const Device cpu(DeviceType::CPU);
  Tensor r = composite::contiguous(composite::to_device(repeats, cpu, ScalarType::Int64, false, false));
  const int64_t* p = r.data<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < r.numel(); ++i) {
    TL_CHECK(p[i] >= 0, "repeats can not be negative");
    total += p[i];
  }
  check_output_size(output_size, total);
  Tensor out = empty_tensor(IntArrayRef(total), ScalarType::Int64);
  int64_t* o = out.data<int64_t>();
  for (int64_t i = 0, k = 0; i < r.numel(); ++i)
    for (int64_t j = 0; j < p[i]; ++j) o[k++] = i;
  return composite::to_device(out, repeats.device(), t, false, false);
}

Tensor composite::repeat_interleave_self_int(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                                             std::optional<int64_t> output_size) {
  TL_CHECK(repeats >= 0, "repeat_interleave: Repeats must be non-negative");
  auto [x, d] = interleave_target(self, dim);
  check_output_size(output_size, x.size(d) * repeats);
  // (.., n, ..) -> (.., n, 1, ..) -> expand (.., n, r, ..) -> copy -> (.., n * r, ..)
  DimVector expanded(x.sizes()), target(x.sizes());
  expanded.insert(static_cast<size_t>(d + 1), repeats);
  target[static_cast<size_t>(d)] *= repeats;
  return view(clone(expand(unsqueeze(x, d + 1), expanded.ref())), target.ref());
}

Tensor composite::repeat_interleave_self_Tensor(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                                std::optional<int64_t> output_size) {
  auto [x, d] = interleave_target(self, dim);
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.numel() == 1)) {
    TL_CHECK(!is_floating_type(repeats.scalar_type()), "repeat_interleave: repeats has to be Long or Int tensor");
    return repeat_interleave_self_int(x, item(repeats).to_long(), d, output_size);
  }
  TL_CHECK(repeats.dim() == 1 && repeats.size(0) == x.size(d), "repeats must have the same size as input along dim, "
           "but got repeats.size(0) = ", repeats.dim() ? repeats.size(0) : 0, " and input.size(", d, ") = ", x.size(d));
  return index_select(x, d, repeat_interleave_Tensor(repeats, output_size));
}

Tensor composite::tile(const Tensor& self, IntArrayRef dims) {
  DimVector r;
  for (int64_t i = static_cast<int64_t>(dims.size()); i < self.dim(); ++i) r.push_back(1);
  for (int64_t d : dims) r.push_back(d);
  return repeat(self, r.ref());
}

Tensor composite::fliplr(const Tensor& self) {
  TL_CHECK(self.dim() >= 2, "Input must be >= 2-d.");
  return flip(self, IntArrayRef(int64_t(1)));
}

Tensor composite::flipud(const Tensor& self) {
  TL_CHECK(self.dim() >= 1, "Input must be >= 1-d.");
  return flip(self, IntArrayRef(int64_t(0)));
}

Tensor composite::roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    TL_CHECK(shifts.size() == 1, "roll: shifts must be a single value when dims is not given, got ", shifts);
    return view(roll(torchlite::reshape(self, IntArrayRef(int64_t(-1))), shifts, IntArrayRef(int64_t(0))), self.sizes());
  }
  TL_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:",
           dims.size());
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = self.wrap_dim(dims[i]), size = self.sizes()[d];
    if (size == 0) continue;
    int64_t s = ((shifts[i] % size) + size) % size;
    if (s == 0) continue;
    Tensor parts[2] = {narrow(out, d, size - s, s), narrow(out, d, 0, size - s)};
    out = cat(ArrayRef<Tensor>(parts, 2), d);
  }
  return out.is_same(self) ? clone(self) : out;
}

Tensor composite::rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  TL_CHECK(dims.size() == 2, "expected total rotation dims == 2, but got dims = ", dims.size());
  TL_CHECK(self.dim() >= 2, "expected total dims >= 2, but got total dims = ", self.dim());
  int64_t d0 = self.wrap_dim(dims[0]), d1 = self.wrap_dim(dims[1]);
  TL_CHECK(d0 != d1, "expected rotation dims to be different, but got dim0 = ", d0, " and dim1 = ", d1);
  k = ((k % 4) + 4) % 4;
  if (k == 1) return transpose(flip(self, IntArrayRef(d1)), d0, d1);
  if (k == 2) return flip(self, IntArrayRef({d0, d1}));
  if (k == 3) return flip(transpose(self, d0, d1), IntArrayRef(d1));
  return clone(self);
}

}  // namespace torchlite
