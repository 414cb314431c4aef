// Output shapes and dtypes of arange, linspace and logspace, shared by all devices.
#include <cmath>
#include <limits>
#include <sstream>

#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/RangeFactories.h"
#include "kernels/arange.h"
#include "kernels/arange_start_step.h"
#include "kernels/linspace.h"
#include "kernels/logspace.h"

namespace torchlite {

namespace {

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

ScalarType range::arange_dtype(const Scalar& start, const Scalar& end, const Scalar& step,
                               std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  return floating ? default_dtype() : ScalarType::Int64;
}

int64_t range::arange_length(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype) {
  const double s = start.to_double(), e = end.to_double(), d = step.to_double();
  TL_CHECK(d != 0, "arange: step must be nonzero");
  TL_CHECK(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: ", num(s), " -> ", num(e));
  TL_CHECK((d > 0 && e >= s) || (d < 0 && e <= s), "arange: upper bound and lower bound inconsistent with step sign");
  double n;
  if (dtype == ScalarType::Int64) {
    // In integer arithmetic on the truncated bounds, as PyTorch does for int64 results, but in 128 bits: in
    // int64 `end - start` may wrap (arange(-2**62, 2**62, 2**62)) and INT64_MIN / -1 traps (SIGFPE).
    const int64_t xs = start.to_long(), xe = end.to_long(), xd = step.to_long();
    TL_CHECK(xd != 0, "arange: step must be nonzero");
    const int64_t sgn = (xd > 0) - (xd < 0);
    n = static_cast<double>((static_cast<__int128>(xe) - xs + xd - sgn) / xd);
  } else {
    n = std::ceil((e - s) / d);
  }
  // 2**63 (INT64_MAX as a double) does not fit int64: converting it is undefined behaviour.
  TL_CHECK(n >= 0 && n < 9223372036854775808.0, "arange: invalid size, possible overflow?");
  return static_cast<int64_t>(n);
}

TensorMeta meta::arange_meta(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return meta::arange_start_step_meta(int64_t(0), end, int64_t(1), dtype, device);
}

TensorMeta meta::arange_start_step_meta(const Scalar& start, const Scalar& end, const Scalar& step,
                                        std::optional<ScalarType> dtype, std::optional<Device> device) {
  TensorMeta m;
  m.dtype = range::arange_dtype(start, end, step, dtype);
  m.sizes = {range::arange_length(start, end, step, m.dtype)};
  m.device = device.value_or(Device());
  return m;
}

namespace {

// linspace and logspace: `steps` values of dtype (the default dtype when None).
TensorMeta steps_meta(const char* op, int64_t steps, std::optional<ScalarType> dtype, std::optional<Device> device) {
  TL_CHECK(steps >= 0, op, ": number of steps must be non-negative");
  TensorMeta m;
  m.dtype = dtype.value_or(default_dtype());
  m.sizes = {steps};
  m.device = device.value_or(Device());
  return m;
}

}  // namespace

TensorMeta meta::linspace_meta(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                               std::optional<Device> device) {
  return steps_meta("linspace", steps, dtype, device);
}

TensorMeta meta::logspace_meta(const Scalar& start, const Scalar& end, int64_t steps, double base,
                               std::optional<ScalarType> dtype, std::optional<Device> device) {
  return steps_meta("logspace", steps, dtype, device);
}

}  // namespace torchlite
