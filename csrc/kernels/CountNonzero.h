#pragma once
// The count of nonzero elements, by device: the metas of nonzero and masked_select need it (their result's
// size depends on the data); meta/indexing.cpp picks the kernel from a table.
#include <cstdint>

#include "core/Tensor.h"

namespace torchlite::kernels {
int64_t count_nonzero_cpu(const Tensor& t);   // kernels/cpu/indexing.cpp
int64_t count_nonzero_cuda(const Tensor& t);  // CUDA builds only (kernels/gpu/indexing.inc)
namespace on_host {
int64_t count_nonzero_cuda(const Tensor& t);  // the same source compiled for the host
}  // namespace on_host
}  // namespace torchlite::kernels
