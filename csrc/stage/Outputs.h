#pragma once
// Stage 2 of the generated call path: where a result goes. out= targets are checked (device, dtype) and
// resized, in-place targets checked, and both get their version bumped; views share their base's version
// counter and record it. Composite in-place and out= variants copy their result in through copy_result.
#include "dispatch/Meta.h"

namespace torchlite {

// out= with dtype= given (reductions, scans): out must have exactly that dtype.
void check_out_dtype(ScalarType expected, const Tensor& out);

// Stage 2 for out=: device and dtype checks, resize to the meta shape, version bump.
void prepare_out(const OpInfo& op, const TensorMeta& meta, const Tensor& out);
// Stage 2 for in-place: self keeps its shape and dtype; the result must fit.
void prepare_inplace(const OpInfo& op, const TensorMeta& meta, const Tensor& self);
// Stage 2 for the out= and in-place variants of kernels that are not elementwise (elementwise ones check in
// their iterator), run before out= is resized so that a refused call leaves out unchanged: the written-to
// tensor may not have two elements at one location (unless `internal_ok`, as PyTorch lets masked_fill_ write
// an expanded tensor), and an input may overlap it fully (the kernel reads each element before writing it)
// but not partially; a `strict` input (the schema's `no_overlap:`, read after out is written: matrix
// products, index ops, cat) may not overlap it at all. PyTorch's messages (RuntimeError).
void check_write_overlap(const Tensor& out, bool internal_ok);
void check_input_overlap(const Tensor& out, const Tensor& in, bool strict);
inline void check_input_overlap(const Tensor& out, const std::optional<Tensor>& in, bool strict) {
  if (in.has_value()) check_input_overlap(out, *in, strict);
}
inline void check_input_overlap(const Tensor& out, ArrayRef<Tensor> in, bool strict) {
  for (const Tensor& t : in) check_input_overlap(out, t, strict);
}
inline void check_input_overlap(const Tensor& out, ArrayRef<std::optional<Tensor>> in, bool strict) {
  for (const std::optional<Tensor>& t : in) check_input_overlap(out, t, strict);
}

// Stage 2 for views: the result shares self's storage and version counter, _base is recorded.
void record_view(const Tensor& view, const Tensor& base);

// prepare_inplace with the meta of an already computed result.
void prepare_inplace_for(const OpInfo& op, const Tensor& result, const Tensor& self);
// Stage 2 for composite in-place/out=: checks `target` as prepare_inplace or
// prepare_out would, then copies `result` into it.
void copy_result(const OpInfo& op, const Tensor& result, const Tensor& target, bool inplace,
                 bool exact_dtype = false);

}  // namespace torchlite
