#pragma once
// arange's result dtype and length, shared by its meta rules and kernels.
#include <optional>

#include "core/Scalar.h"
#include "core/ScalarType.h"

namespace torchlite::range {

// dtype if given, else the default dtype when any bound or the step is a float, else int64.
ScalarType arange_dtype(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype);
// ceil((end - start) / step), with PyTorch's checks and its int64 arithmetic for int64 results.
int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype);

}  // namespace torchlite::range
