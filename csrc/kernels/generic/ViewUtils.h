#pragma once
// Shape helpers shared by the view kernels and the composite reshape.
#include "core/ArrayRef.h"

namespace torchlite {

// Resolves one -1 in `shape` against numel, or raises PyTorch's "shape '[...]' is invalid" error.
DimVector infer_size(IntArrayRef shape, int64_t numel);
// Strides that view (sizes, strides) as new_sizes without copying; false when no such strides exist.
bool compute_view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes, DimVector& out);

}  // namespace torchlite
