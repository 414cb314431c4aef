// Output shapes and dtypes of the reductions with hand-written kernels, shared by all devices.
#include "dispatch/Meta.h"
#include "kernels/Reduce.h"
#include "kernels/all.h"
#include "kernels/all_dim.h"
#include "kernels/all_dims.h"
#include "kernels/amax.h"
#include "kernels/amin.h"
#include "kernels/aminmax.h"
#include "kernels/any.h"
#include "kernels/any_dim.h"
#include "kernels/any_dims.h"
#include "kernels/argmax.h"
#include "kernels/argmin.h"
#include "kernels/max.h"
#include "kernels/max_dim.h"
#include "kernels/min.h"
#include "kernels/min_dim.h"
#include "kernels/norm.h"
#include "kernels/prod.h"
#include "kernels/prod_dim_int.h"
#include "kernels/std_correction.h"
#include "kernels/std_mean_correction.h"
#include "kernels/var_correction.h"
#include "kernels/var_mean_correction.h"

namespace torchlite {

using reduce::mask_of;

namespace {

// Output sizes of a reduction over mask.
DimVector reduced_sizes(const Tensor& self, uint64_t mask, bool keepdim) {
  DimVector sizes;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!(mask >> d & 1))
      sizes.push_back(self.size(d));
    else if (keepdim)
      sizes.push_back(1);
  }
  return sizes;
}

TensorMeta make_meta(const Tensor& self, uint64_t mask, bool keepdim, ScalarType dtype, bool exact = false) {
  TensorMeta m;
  m.sizes = reduced_sizes(self, mask, keepdim);
  m.dtype = dtype;
  m.device = self.device();
  m.exact_dtype = exact;
  return m;
}

// out= may be bool or uint8 whatever the input (check_logical_out), so the meta lets any dtype through.
TensorMeta logical_meta(const Tensor& self, uint64_t mask, bool keepdim) {
  return with_any_target_dtype(make_meta(self, mask, keepdim,
                                         self.scalar_type() == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Bool));
}

}  // namespace

std::array<TensorMeta, 2> meta::max_dim_meta(const Tensor& self, int64_t dim, bool keepdim) {
  uint64_t mask = mask_of(self, dim);
  return {make_meta(self, mask, keepdim, self.scalar_type(), /*exact=*/true),
          make_meta(self, mask, keepdim, ScalarType::Int64, /*exact=*/true)};
}

TensorMeta meta::arg_reduction_meta(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return make_meta(self, mask_of(self, dim), keepdim, ScalarType::Int64, /*exact=*/true);
}

std::array<TensorMeta, 2> meta::aminmax_meta(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  uint64_t mask = mask_of(self, dim);
  TensorMeta m = make_meta(self, mask, keepdim, self.scalar_type(), /*exact=*/true);
  return {m, m};
}

TensorMeta meta::logical_reduction_meta(const Tensor& self) { return logical_meta(self, ~uint64_t(0), false); }

TensorMeta meta::logical_reduction_meta(const Tensor& self, int64_t dim, bool keepdim) {
  return logical_meta(self, mask_of(self, dim), keepdim);
}

TensorMeta meta::logical_reduction_meta(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return logical_meta(self, reduce::logical_mask(self, dim), keepdim);
}

std::array<TensorMeta, 2> meta::var_mean_meta(const Tensor& self, std::optional<IntArrayRef> dim,
                                              const std::optional<Scalar>& correction, bool keepdim) {
  // The variance of complex numbers is real; their mean complex.
  TensorMeta m = make_meta(self, mask_of(self, dim), keepdim, self.scalar_type());
  TensorMeta v = make_meta(self, mask_of(self, dim), keepdim, to_real_type(self.scalar_type()));
  return {v, m};
}

TensorMeta meta::norm_meta(const Tensor& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim,
                           bool keepdim, std::optional<ScalarType> dtype) {
  TL_CHECK(is_floating_type(self.scalar_type()),
           "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
           scalar_type_name(self.scalar_type()));
  if (dtype.has_value()) {
    TL_CHECK(is_floating_type(*dtype), "linalg.vector_norm: dtype should be floating point or complex, but got ",
             scalar_type_name(*dtype));
    TL_CHECK(promote_types(self.scalar_type(), *dtype) == *dtype, "linalg.vector_norm: the dtype of the input (",
             scalar_type_name(self.scalar_type()), ") should be convertible without narrowing to the specified dtype (",
             scalar_type_name(*dtype), ")");
  }
  ScalarType t = dtype.value_or(self.scalar_type());
  return make_meta(self, mask_of(self, dim), keepdim, t, /*exact=*/true);
}

}  // namespace torchlite
