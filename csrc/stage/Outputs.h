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
// Stage 2 for views: the result shares self's storage and version counter, _base is recorded.
void record_view(const Tensor& view, const Tensor& base);

// prepare_inplace with the meta of an already computed result.
void prepare_inplace_for(const OpInfo& op, const Tensor& result, const Tensor& self);
// Stage 2 for composite in-place/out=: checks `target` as prepare_inplace or
// prepare_out would, then copies `result` into it.
void copy_result(const OpInfo& op, const Tensor& result, const Tensor& target, bool inplace,
                 bool exact_dtype = false);

}  // namespace torchlite
