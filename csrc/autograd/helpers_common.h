#pragma once
// Pieces the formula helpers (helpers_*.cpp) share; not part of their interface.
#include <cstdint>
#include <optional>

#include "core/Scalar.h"
#include "core/Tensor.h"

namespace torchlite::autograd::helper_detail {

// A number as a 0-dim tensor that promotes as a Python number does (the result
// keeps the other operand's dtype).
Tensor number(const Scalar& s);
bool is_one(const Scalar& s);

// The dims (wrapped, as a bit mask) that a reduction over `dim` of an ndim-dim
// tensor removes: all of them when dim is empty or absent.
uint64_t reduced_dims(int64_t ndim, std::optional<IntArrayRef> dim);
// The number of elements each output of that reduction combines.
int64_t reduced_numel(IntArrayRef sizes, std::optional<IntArrayRef> dim);
// x, an output of that reduction, with the removed dims back as size 1 (x itself
// when keepdim, or when the input was 0-dim).
Tensor unsqueeze_reduced(const Tensor& x, int64_t ndim, std::optional<IntArrayRef> dim, bool keepdim);

}  // namespace torchlite::autograd::helper_detail
