#pragma once
// The geometry of one elementwise operation, shared by the CPU and CUDA loops:
// operand 0 is the output, the rest are inputs broadcast to its shape. All
// operands are in the computation dtype: inputs of another dtype are cast first
// (a 1-element one into an inline buffer, marked is_scalar and passed by value),
// and an output of another dtype is computed into a temporary and cast back.
// Dims are stored fastest-first and coalesced where the strides allow.
#include <cstdint>

#include "core/Tensor.h"

namespace torchlite {

struct ElementwiseIter {
  static constexpr int kMaxOperands = 8;
  static constexpr int kMaxDims = 25;

  int noperands = 0;
  int ndim = 0;
  int64_t numel = 0;
  ScalarType dtype = ScalarType::Undefined;      // dtype of every input
  ScalarType out_dtype = ScalarType::Undefined;  // dtype the kernel stores (bool for comparisons)
  Device device;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];  // in bytes
  char* data[kMaxOperands];
  bool is_scalar[kMaxOperands] = {};
  alignas(16) char scalar_buf[kMaxOperands][16];
  Tensor keep_alive[kMaxOperands];
  Tensor out_target;  // when the output dtype differs: the user's tensor to cast into
  Tensor out_temp;

  // Builds the iteration of `out` over `inputs` cast to `dtype`, storing
  // `out_dtype` (Undefined: the same as dtype). out's shape is final (set by the
  // generated meta stage).
  void build(const Tensor& out, std::initializer_list<const Tensor*> inputs, ScalarType dtype,
             ScalarType out_dtype = ScalarType::Undefined);
  // Copies the temporary output into the real one when their dtypes differ.
  void finish();

  bool is_contiguous() const;  // one dim, every non-scalar operand dense
};

// Makes a contiguous copy of src in dtype (used by iterators and hand-written kernels).
Tensor contiguous_as(const Tensor& src, ScalarType dtype);
// dst[...] = src[...] with broadcasting of src and casting; CPU only.
void copy_cast_cpu(const Tensor& dst, const Tensor& src);
// The same on any devices (copy_'s kernels, without autograd or version bumps).
void copy_cast(const Tensor& dst, const Tensor& src);
// copy_cast between tensors of which one is a conjugated view (TensorImpl::is_conj) and the other is not: dst's
// memory receives the conjugates of src's memory (a real src's values as they are). copy_cast and copy_'s
// kernels call it.
void copy_conjugating(const Tensor& dst, const Tensor& src);

}  // namespace torchlite
