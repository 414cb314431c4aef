#pragma once
// arange's result dtype and length, shared by its meta rules and kernels, and linspace's bound check,
// shared by its CPU and CUDA kernels.
#include <limits>
#include <optional>

#include "core/Error.h"
#include "core/Scalar.h"
#include "core/ScalarType.h"
#include "kernels/Dispatch.h"

namespace torchlite::range {

// dtype if given, else the default dtype when any bound or the step is a float, else int64.
ScalarType arange_dtype(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype);
// ceil((end - start) / step), with PyTorch's checks and its int64 arithmetic for int64 results.
int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype);

// A bound of linspace as T: integer results refuse values out of T's range.
template <typename T>
inline T checked_bound(const char* op, const Scalar& s, ScalarType dtype) {
  if constexpr (!is_floating_v<T>) {
    double v = s.to_double();
    TL_CHECK(v >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
                 v <= static_cast<double>(std::numeric_limits<T>::max()),
             op, ": value ", to_string(s), " cannot be converted to type ", scalar_type_name(dtype),
             " without overflow");
    return static_cast<T>(s.to_long());
  } else {
    return static_cast<T>(s.to_double());
  }
}

}  // namespace torchlite::range
