#pragma once
// CPU storages in shared memory (Tensor.share_memory_, torchlite.multiprocessing): a POSIX shared-memory
// object, unlinked as soon as it is mapped (as PyTorch's), whose file descriptor the storage keeps so that
// it can be handed to other processes; a forked child shares the mapping itself.
#include <cstddef>
#include <tuple>

#include "core/Tensor.h"

namespace torchlite {

// Whether t's storage is in shared memory (always true for CUDA tensors, as PyTorch says).
bool is_shared(const Tensor& t);
// Moves t's storage (the whole of it: every tensor sharing it follows) into shared memory; a no-op when it
// is there already, and for CUDA tensors.
void share_memory(const Tensor& t);
// The shared-memory object's file descriptor (owned by the storage) and the storage's size in bytes.
std::tuple<int, size_t> shared_memory_handle(const Tensor& t);
// A tensor over the shared-memory object `fd` (sent by another process; the storage takes ownership of it),
// nbytes long, with the given geometry.
Tensor from_shared_memory(int fd, size_t nbytes, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                          int64_t offset);
// Whether the storage may grow (resize_): not in shared memory, as PyTorch's (the other processes could not
// follow). Other memory owned elsewhere (NumPy's) is replaced by a new block, as before, unlike PyTorch, which
// refuses from_numpy tensors: torchlite.load and unpickling give NumPy-backed tensors that must stay resizable.
bool is_resizable(const StorageImpl& s);

}  // namespace torchlite
