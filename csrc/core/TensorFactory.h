#pragma once
// Making tensors: fresh (contiguous or strided), views of others, 0-dim from a
// Scalar, and resizing an out= tensor.
#include "core/Scalar.h"
#include "core/Tensor.h"

namespace torchlite {

Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device = Device());
Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device = Device());
// A tensor of the same sizes and dtype laid out contiguously.
Tensor empty_like_tensor(const Tensor& t);
// A tensor sharing base's storage with new geometry. View kernels return one;
// the generated view stage then records _base and shares the version counter.
Tensor make_alias(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
// 0-dim tensor holding a number (CPU); wrapped=true marks it as a Python number
// for type promotion.
Tensor scalar_to_tensor(const Scalar& s, bool wrapped);
// Reads element 0 of a 1-element tensor as a Scalar (bool, int64, double or complex; uint64 as its int64 bits).
Scalar item(const Tensor& t);
// check_scalar_fits on a Python number passed for a Tensor argument (a wrapped number); other tensors pass.
void check_wrapped_number_fits(const char* op, const Tensor& t, ScalarType dtype);
// Resizes t in place to sizes (contiguous strides), reallocating its storage when too small.
void resize_tensor(const Tensor& t, IntArrayRef sizes);

DimVector contiguous_strides(IntArrayRef sizes);
// Whether t's elements fill exactly numel() slots of its storage, no two sharing
// one, in some dim order (contiguous, transposed, permuted).
bool is_non_overlapping_and_dense(const Tensor& t);

// Memory overlap between a written-to tensor and another, as PyTorch judges it:
// Full when both view the same elements the same way, Partial when their
// (dense) ranges intersect otherwise, TooHard when a layout is not dense.
enum class MemOverlap { No, Full, Partial, TooHard };
MemOverlap mem_overlap(const Tensor& a, const Tensor& b);
// Whether several elements of t share one memory location (a stride 0 over a dim of size > 1).
bool has_internal_overlap(const Tensor& t);
// PyTorch's rules for a written-to tensor, with its messages (RuntimeError): no two of its elements share
// one location, and an input overlaps it fully (in place) or not at all.
void check_no_internal_overlap(const Tensor& out);
void check_no_partial_overlap(const Tensor& out, const Tensor& in);
int64_t compute_numel(IntArrayRef sizes);
// The bytes a storage needs for a view (sizes, strides >= 0, offset >= 0, in elements of `itemsize` bytes):
// (offset + 1 + sum (size - 1) * stride) * itemsize, 0 when a size is 0. False when that overflows int64.
bool storage_nbytes_needed(IntArrayRef sizes, IntArrayRef strides, int64_t offset, int64_t itemsize,
                           int64_t* nbytes);
// Checks sizes are non-negative; the message names the op.
void check_sizes_nonnegative(const char* op, IntArrayRef sizes);

}  // namespace torchlite
