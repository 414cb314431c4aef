#include "dispatch/Meta.h"

#include <algorithm>

namespace torchlite {

// A 0-dim CPU tensor may join tensors on any device; anything else must match.
static void check_device(const OpInfo& op, Device expected, const Tensor& t) {
  if (!t.defined() || t.device() == expected || (t.device().is_cpu() && t.dim() == 0)) return;
  TL_ERROR("Expected all tensors to be on the same device, but found at least two devices, ", to_string(expected),
           " and ", to_string(t.device()), "! (in ", op_name(op), ")");
}

Device common_device(const OpInfo& op, std::initializer_list<const Tensor*> tensors) {
  // The device of the first tensor that is not a 0-dim CPU tensor (else of the first tensor).
  Device result;
  bool have = false;
  for (const Tensor* t : tensors) {
    if (!t->defined()) continue;
    if (!have || (result.is_cpu() && !(t->device().is_cpu() && t->dim() == 0))) {
      bool decisive = !(t->device().is_cpu() && t->dim() == 0);
      result = t->device();
      have = true;
      if (decisive) break;
    }
  }
  for (const Tensor* t : tensors) check_device(op, result, *t);
  return result;
}

DimVector broadcast_shapes(std::initializer_list<const Tensor*> tensors) {
  size_t ndim = 0;
  for (const Tensor* t : tensors)
    if (t->defined() && t->sizes().size() > ndim) ndim = t->sizes().size();
  DimVector out(ndim, 1);
  // Letters name the operands as PyTorch does: tensor a, tensor b.
  for (size_t i = 0; i < ndim; ++i) {
    size_t dim_from_end = ndim - 1 - i;
    int64_t size = 1;
    for (const Tensor* t : tensors) {
      if (!t->defined()) continue;
      IntArrayRef s = t->sizes();
      if (dim_from_end >= s.size()) continue;
      int64_t v = s[s.size() - 1 - dim_from_end];
      if (v == size || v == 1) continue;
      if (size == 1) {
        size = v;
        continue;
      }
      TL_ERROR("The size of tensor a (", size, ") must match the size of tensor b (", v,
               ") at non-singleton dimension ", i);
    }
    out[i] = size;
  }
  return out;
}

DimVector broadcast_sizes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    TL_CHECK(x == y || x == 1 || y == 1, "The size of tensor a (", x, ") must match the size of tensor b (", y,
             ") at non-singleton dimension ", k);
    out[k] = x == 1 ? y : x;
  }
  return out;
}

TensorMeta meta_broadcast(const OpInfo& op, std::initializer_list<const Tensor*> tensors, ScalarType dtype) {
  TensorMeta m;
  m.sizes = broadcast_shapes(tensors);
  m.dtype = dtype;
  m.device = common_device(op, tensors);
  return m;
}

TensorMeta meta_same_as_self(const OpInfo& op, const Tensor& self, std::initializer_list<const Tensor*> others,
                             ScalarType dtype, bool same_device) {
  TensorMeta m;
  m.sizes.assign(self.sizes());
  for (const Tensor* t : others) {
    if (!t->defined()) continue;
    IntArrayRef s = t->sizes();
    bool ok = s.size() <= m.sizes.size();
    for (size_t i = 0; ok && i < s.size(); ++i) {
      int64_t v = s[s.size() - 1 - i];
      ok = v == 1 || v == m.sizes[m.sizes.size() - 1 - i];
    }
    TL_CHECK(ok, op_name(op), ": the shape of the argument ", s, " must be broadcastable to the shape ",
             m.sizes.ref());
  }
  m.dtype = dtype;
  m.device = self.device();
  if (same_device)
    for (const Tensor* t : others) check_device(op, m.device, *t);
  return m;
}

uint64_t reduction_mask(const Tensor& self, std::optional<IntArrayRef> dim) {
  int64_t ndim = self.dim();
  if (!dim.has_value() || dim->empty()) return ~uint64_t(0);
  uint64_t mask = 0;
  for (int64_t d : *dim) {
    int64_t w = wrap_dim(d, ndim);
    TL_CHECK(!(mask >> w & 1), "dim ", w, " appears multiple times in the list of dims");
    mask |= uint64_t(1) << w;
  }
  return mask;
}

TensorMeta meta_reduction(const OpInfo& op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                          ScalarType dtype) {
  int64_t ndim = self.dim();
  uint64_t mask = reduction_mask(self, dim);
  TensorMeta m;
  for (int64_t i = 0; i < ndim; ++i) {
    bool reduced = mask >> i & 1;
    if (!reduced)
      m.sizes.push_back(self.size(i));
    else if (keepdim)
      m.sizes.push_back(1);
  }
  m.dtype = dtype;
  m.device = self.device();
  (void)op;
  return m;
}

}  // namespace torchlite
