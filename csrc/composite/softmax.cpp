// softmax and log_softmax along one dim, written with torchlite ops (so autograd and every device come from
// them): around the maximum of each slice, which is replaced by 0 where it is infinite so that inf - inf
// never appears (a slice of -inf gives NaN, as in PyTorch).
#include "core/ScalarType.h"
#include "core/TensorFactory.h"
#include "kernels/log_softmax_int.h"
#include "kernels/softmax_int.h"
#include "ops/amax.h"
#include "ops/div_Tensor.h"
#include "ops/exp.h"
#include "ops/isinf.h"
#include "ops/log.h"
#include "ops/sub_Tensor.h"
#include "ops/sum_dim_IntList.h"
#include "ops/to_dtype.h"
#include "ops/where_self.h"

namespace torchlite {

namespace {

// self in `dtype` when given, checked floating; dim wrapped.
Tensor softmax_input(const char* op, const Tensor& self, int64_t& dim, std::optional<ScalarType> dtype) {
  Tensor x = dtype ? torchlite::to(self, *dtype) : self;
  if (!is_floating_type(x.scalar_type())) throw_dtype_not_implemented(op, x.scalar_type());
  dim = wrap_dim(dim, x.dim());
  return x;
}

// x minus each slice's finite maximum along dim.
Tensor shifted(const Tensor& x, int64_t dim) {
  const int64_t dims[] = {dim};
  Tensor m = torchlite::amax(x, IntArrayRef(dims, 1), /*keepdim=*/true);
  m = torchlite::where(torchlite::isinf(m), scalar_to_tensor(Scalar(0.0), /*wrapped=*/true), m);
  return torchlite::sub(x, m);
}

}  // namespace

Tensor composite::softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor x = softmax_input("softmax", self, dim, dtype);
  if (x.numel() == 0) return torchlite::exp(x);
  const int64_t dims[] = {dim};
  Tensor e = torchlite::exp(shifted(x, dim));
  return torchlite::div(e, torchlite::sum(e, IntArrayRef(dims, 1), /*keepdim=*/true, std::nullopt));
}

Tensor composite::log_softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor x = softmax_input("log_softmax", self, dim, dtype);
  if (x.numel() == 0) return torchlite::exp(x);
  const int64_t dims[] = {dim};
  Tensor z = shifted(x, dim);
  return torchlite::sub(z, torchlite::log(torchlite::sum(torchlite::exp(z), IntArrayRef(dims, 1), /*keepdim=*/true,
                                                         std::nullopt)));
}

}  // namespace torchlite
