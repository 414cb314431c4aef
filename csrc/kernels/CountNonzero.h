#pragma once
// Functions of the CUDA indexing kernels (kernels/gpu/indexing.inc) that the metas call: the result size of
// nonzero and masked_select depends on the data.
#include <cstdint>

#include "core/Tensor.h"

namespace torchlite::kernels {
int64_t count_nonzero_cuda(const Tensor& t);  // CUDA builds only
namespace on_host {
int64_t count_nonzero_cuda(const Tensor& t);  // the same source compiled for the host
}  // namespace on_host
}  // namespace torchlite::kernels
