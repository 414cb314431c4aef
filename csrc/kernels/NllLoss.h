#pragma once
// The geometry and checks of nll_loss_forward / nll_loss_backward, shared by the meta functions and the
// CPU and CUDA kernels: `self` seen as [N, C, S] (a (C) input is N = 1, S = 1; (N, C, d1, ..., dk) has
// S = d1 * ... * dk), `target` as N * S class indices. Messages follow PyTorch's.
#include <optional>
#include <string>

#include "core/Error.h"
#include "core/Tensor.h"

namespace torchlite::nll {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

struct Geometry {
  int64_t n = 1, c = 1, s = 1;
  int64_t count() const { return n * s; }  // the number of targets
};

inline void check_reduction(const char* op, int64_t reduction) {
  TL_CHECK_VALUE(reduction >= kNone && reduction <= kSum, op, ": reduction must be 0 (none), 1 (mean) or 2 (sum), "
                 "got ", reduction);
}

inline Geometry check(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight) {
  TL_CHECK_VALUE(self.dim() >= 1, "Expected 1 or more dimensions (got ", self.dim(), ")");
  TL_CHECK(target.scalar_type() == ScalarType::Int64 || target.scalar_type() == ScalarType::UInt8,
           "expected target dtype to be Long or Byte, but got ", scalar_type_name(target.scalar_type()));
  TL_CHECK(target.device() == self.device(), "Expected all tensors to be on the same device, but found at least two "
           "devices, ", to_string(self.device()), " and ", to_string(target.device()), "!");
  Geometry g;
  if (self.dim() == 1) {
    g.c = self.size(0);
    TL_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
    TL_CHECK_VALUE(target.dim() == 0 || target.size(0) == 1,
                   "For 1D input, 1D target must have size 1, but got target size: ", target.numel());
  } else {
    g.n = self.size(0);
    g.c = self.size(1);
    for (int64_t d = 2; d < self.dim(); ++d) g.s *= self.size(d);
    TL_CHECK(target.dim() >= 1 || self.dim() != 2, "0D or 1D target tensor expected, multi-target not supported");
    TL_CHECK_VALUE(target.dim() < 1 || target.size(0) == g.n, "Expected input batch_size (", g.n,
                   ") to match target batch_size (", target.size(0), ").");
    bool same = target.dim() == self.dim() - 1;
    for (int64_t d = 1; same && d < target.dim(); ++d) same = target.size(d) == self.size(d + 1);
    if (!same) {
      if (self.dim() == 2) TL_ERROR("0D or 1D target tensor expected, multi-target not supported");
      DimVector expected;
      expected.push_back(g.n);
      for (int64_t d = 2; d < self.dim(); ++d) expected.push_back(self.size(d));
      TL_ERROR("Expected target size ", to_string(expected.ref()), ", got ", to_string(target.sizes()));
    }
  }
  if (weight.has_value()) {
    TL_CHECK(weight->numel() == g.c, "weight tensor should be defined either for all ", g.c,
             " classes or no classes but got weight tensor of shape: ", to_string(weight->sizes()));
    TL_CHECK(weight->device() == self.device(), "Expected all tensors to be on the same device, but found at least "
             "two devices, ", to_string(self.device()), " and ", to_string(weight->device()), "!");
  }
  return g;
}

// The shape of the per-element loss (reduction none): target's, or () for a (C) input.
inline DimVector none_shape(const Tensor& self, const Tensor& target) {
  return self.dim() == 1 ? DimVector() : DimVector(target.sizes());
}

inline std::string out_of_bounds(int64_t t) { return str("Target ", t, " is out of bounds."); }

}  // namespace torchlite::nll
