#pragma once
// Shape/dtype rules ("meta") used by the generated wrappers to allocate, resize
// and check outputs (the stage that then checks and resizes them: stage/Outputs.h).
#include <array>
#include <initializer_list>
#include <optional>

#include "core/Promotion.h"
#include "core/TensorFactory.h"
#include "dispatch/OpInfo.h"

namespace torchlite {

struct TensorMeta {
  DimVector sizes;
  ScalarType dtype = ScalarType::Undefined;
  Device device;
  // An out= target must have exactly `dtype` (indices of max.dim, sort...), not just a dtype it casts to.
  bool exact_dtype = false;
  // The kernel computes in its target's dtype (sum, prod, cumsum, cumprod) or checks that dtype itself
  // (all, any): an out= or in-place target of any dtype passes the can_cast check.
  bool any_target_dtype = false;
};

// `meta` with any_target_dtype set: the wrappers of ops tagged computes_in_out_dtype wrap their meta in it.
inline TensorMeta with_any_target_dtype(TensorMeta meta) {
  meta.any_target_dtype = true;
  return meta;
}

// The device all tensor arguments share (0-dim CPU tensors may join CUDA ones).
Device common_device(const OpInfo& op, std::initializer_list<const Tensor*> tensors);
// Broadcast shape, with PyTorch's error text.
DimVector broadcast_shapes(std::initializer_list<const Tensor*> tensors);
// The broadcast of two shapes (matmul's batch dims, broadcast_tensors), with the same message.
DimVector broadcast_sizes(IntArrayRef a, IntArrayRef b);

// Built-in meta rules.
TensorMeta meta_broadcast(const OpInfo& op, std::initializer_list<const Tensor*> tensors, ScalarType dtype);
// The output has self's shape; the other tensors must broadcast to it (and share its device, unless
// same_device is false: copy_ reads from any device).
TensorMeta meta_same_as_self(const OpInfo& op, const Tensor& self, std::initializer_list<const Tensor*> others,
                             ScalarType dtype, bool same_device = true);
// Reductions over `dim` (all dims when empty or absent), keeping them as size 1 with keepdim.
TensorMeta meta_reduction(const OpInfo& op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                          ScalarType dtype);
// The reduced dims of a reduction as a bit mask (all when dim is empty or absent); wraps negative dims
// and rejects repeated ones ("dim 0 appears multiple times in the list of dims").
uint64_t reduction_mask(const Tensor& self, std::optional<IntArrayRef> dim);

}  // namespace torchlite
