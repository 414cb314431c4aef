// tril and triu on the CPU: copy self into out (unless in place), then zero the
// other triangle of each matrix in the last two dims. Zeroing writes all-zero
// bytes, which is 0 in every dtype, so one loop serves them all.
#include <algorithm>
#include <cstring>

#include "core/Parallel.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/tril.h"
#include "kernels/triu.h"

namespace torchlite {
namespace {

// Zeroes out[..., i, j] where j - i > diagonal (lower) or j - i < diagonal (upper).
void zero_triangle(const Tensor& out, int64_t diagonal, bool lower) {
  int64_t nd = out.dim(), rows = out.size(-2), cols = out.size(-1);
  if (out.numel() == 0) return;
  int64_t batch = out.numel() / (rows * cols);
  int64_t es = out.element_size(), sr = out.stride(-2), sc = out.stride(-1);
  char* base = static_cast<char*>(out.data_ptr());
  IntArrayRef sizes = out.sizes(), strides = out.strides();
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1));
  parallel_for(batch * rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t b = r / rows, i = r % rows, offset = i * sr;
      for (int64_t d = nd - 3; d >= 0; --d) {  // the batch index b as an offset
        offset += (b % sizes[d]) * strides[d];
        b /= sizes[d];
      }
      // Columns to zero: [first, last).
      int64_t first = lower ? std::clamp<int64_t>(i + diagonal + 1, 0, cols) : 0;
      int64_t last = lower ? cols : std::clamp<int64_t>(i + diagonal, 0, cols);
      char* row = base + offset * es;
      if (first >= last) continue;
      if (sc == 1) {
        std::memset(row + first * es, 0, static_cast<size_t>((last - first) * es));
      } else {
        for (int64_t j = first; j < last; ++j) std::memset(row + j * sc * es, 0, static_cast<size_t>(es));
      }
    }
  });
}

void triangle(const Tensor& self, int64_t diagonal, const Tensor& out, bool lower) {
  if (!out.is_same(self)) copy_cast_cpu(out, self);
  zero_triangle(out, diagonal, lower);
}

}  // namespace

void kernels::tril_out_cpu(const Tensor& self, int64_t diagonal, const Tensor& out) {
  triangle(self, diagonal, out, /*lower=*/true);
}

void kernels::triu_out_cpu(const Tensor& self, int64_t diagonal, const Tensor& out) {
  triangle(self, diagonal, out, /*lower=*/false);
}

}  // namespace torchlite
