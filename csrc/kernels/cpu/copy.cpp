// copy_ into CPU tensors, from CPU or CUDA tensors.
#include <cstring>

#include "core/CudaHooks.h"
#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "kernels/Convert.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/copy.h"

namespace torchlite {

void kernels::copy_out_cpu(const Tensor& self, const Tensor& src, bool non_blocking, const Tensor& out) {
  (void)self;
  (void)non_blocking;  // a copy into host memory this thread reads next is always waited for
  if (out.numel() == 0) return;
  if (TL_UNLIKELY(out.is_conj() != src.is_conj())) return copy_conjugating(out, src);
  check_no_internal_overlap(out);
  check_no_partial_overlap(out, src);
  if (src.device().is_cuda()) {
    // One transfer of src's elements, dense and in its dtype, then the cast and layout on the host.
    Tensor dense = src.is_contiguous() ? src : contiguous_as(src, src.scalar_type());
    const bool direct = out.scalar_type() == src.scalar_type() && out.is_contiguous() && out.sizes().equals(src.sizes());
    Tensor host = direct ? out : empty_tensor(src.sizes(), src.scalar_type(), Device(DeviceType::CPU));
    cuda::memcpy(host.data_ptr(), dense.data_ptr(), static_cast<size_t>(dense.numel() * dense.element_size()),
                 /*non_blocking=*/false);
    if (!direct) copy_cast_cpu(out, host);
    return;
  }
  if (out.scalar_type() == src.scalar_type() && out.is_contiguous() && src.is_contiguous() &&
      out.sizes().equals(src.sizes())) {
    char* d = static_cast<char*>(out.data_ptr());
    const char* s = static_cast<const char*>(src.data_ptr());
    const int64_t item = out.element_size();
    parallel_for(out.numel(), 4 * kGrainSize, [&](int64_t b, int64_t e) {
      std::memcpy(d + b * item, s + b * item, static_cast<size_t>((e - b) * item));
    });
    return;
  }
  copy_cast_cpu(out, src);
}

}  // namespace torchlite
