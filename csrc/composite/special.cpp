// Composite ops of torchlite.special (issue 18).
#include <cmath>

#include "composite/Numbers.h"
#include "kernels/mvlgamma.h"
#include "ops/add_Tensor.h"
#include "ops/lgamma.h"
#include "ops/sub_Tensor.h"

namespace torchlite {

// log Gamma_p(x) = p (p - 1) / 4 log(pi) + sum_{i < p} lgamma(x - i / 2). (PyTorch 2.13 no longer checks
// x > (p - 1) / 2: below it the terms are lgamma's values at the shifted points.)
Tensor composite::mvlgamma(const Tensor& self, int64_t p) {
  Tensor out = torchlite::lgamma(self);
  for (int64_t i = 1; i < p; ++i) {
    out = torchlite::add(out, torchlite::lgamma(torchlite::sub(self, number(0.5 * static_cast<double>(i)))));
  }
  const double kLogPi = 1.1447298858494002;
  return torchlite::add(out, number(static_cast<double>(p) * static_cast<double>(p - 1) / 4 * kLogPi));
}

}  // namespace torchlite
