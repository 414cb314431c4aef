#pragma once
// Shape/dtype rules ("meta") used by the generated wrappers to allocate, resize
// and check outputs, and the checks of the in-place/view stage.
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
// The output has self's shape; the other tensors must broadcast to it.
TensorMeta meta_same_as_self(const OpInfo& op, const Tensor& self, std::initializer_list<const Tensor*> others,
                             ScalarType dtype);
// Reductions over `dim` (all dims when empty or absent), keeping them as size 1 with keepdim.
TensorMeta meta_reduction(const OpInfo& op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                          ScalarType dtype);
// The reduced dims of a reduction as a bit mask (all when dim is empty or absent); wraps negative dims
// and rejects repeated ones ("dim 0 appears multiple times in the list of dims").
uint64_t reduction_mask(const Tensor& self, std::optional<IntArrayRef> dim);

// PyTorch's C++ name of a dtype in out= messages: "double", "long int", "c10::Half".
const char* cpp_type_name(ScalarType t);
// out= with dtype= given (reductions, scans): out must have exactly that dtype.
void check_out_dtype(ScalarType expected, const Tensor& out);

// Stage 2 for out=: device and dtype checks, resize to the meta shape, version bump.
void prepare_out(const OpInfo& op, const TensorMeta& meta, const Tensor& out);
// Stage 2 for in-place: self keeps its shape and dtype; the result must fit.
void prepare_inplace(const OpInfo& op, const TensorMeta& meta, const Tensor& self);
// Stage 2 for views: the result shares self's storage and version counter, _base is recorded.
void record_view(const Tensor& view, const Tensor& base);

// prepare_inplace with the meta of an already computed result.
void prepare_inplace_for(const OpInfo& op, const Tensor& result, const Tensor& self);
// Stage 2 for composite in-place/out=: checks `target` as prepare_inplace or
// prepare_out would, then copies `result` into it.
void copy_result(const OpInfo& op, const Tensor& result, const Tensor& target, bool inplace,
                 bool exact_dtype = false);

// "\"neg\" not implemented for 'Bool'" (RuntimeError, as PyTorch words it).
[[noreturn]] void throw_dtype_not_implemented(const char* op, ScalarType dtype);

}  // namespace torchlite
