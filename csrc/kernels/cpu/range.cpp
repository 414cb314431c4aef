// arange, linspace and logspace on the CPU. Each element is computed from its
// index alone (no running sum), so the result does not depend on the thread
// count, with PyTorch's arithmetic:
//   arange:   start + step * i in the accumulation type (int64 for integer
//             results, double for float/double, float for half/bfloat16);
//   linspace: start + step * i for the first half, end - step * (steps - 1 - i)
//             for the second, in the result type (double for integer results),
//             so both ends are exact;
//   logspace: base ** (the linspace value), computed in double.
#include <cmath>
#include <type_traits>

#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/Convert.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/RangeFactories.h"
#include "kernels/Dispatch.h"
#include "kernels/arange.h"
#include "kernels/arange_start_step.h"
#include "kernels/linspace.h"
#include "kernels/logspace.h"

namespace torchlite {

namespace {

// Fills out (any layout) with value(i) for i in [0, numel).
template <typename T, typename F>
void fill_indexed(const Tensor& out, const F& value) {
  Tensor dst = out.is_contiguous() ? out : empty_tensor(out.sizes(), out.scalar_type());
  T* p = dst.data<T>();
  parallel_for(dst.numel(), kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = value(i);
  });
  if (!out.is_contiguous()) copy_cast_cpu(out, dst);
}

}  // namespace

void kernels::arange_start_step_out_cpu(const Scalar& start, const Scalar& end, const Scalar& step,
                                        std::optional<ScalarType> dtype, std::optional<Device> device,
                                        const Tensor& out) {
  dispatch_dtype(out.scalar_type(), "arange_cpu", [&](auto tag) {
    using T = decltype(tag);
    using acc_t = std::conditional_t<!is_floating_v<T>, int64_t,
                                     std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>,
                                                        double, float>>;
    const acc_t s = is_floating_v<T> ? static_cast<acc_t>(start.to_double()) : static_cast<acc_t>(start.to_long());
    const acc_t d = is_floating_v<T> ? static_cast<acc_t>(step.to_double()) : static_cast<acc_t>(step.to_long());
    fill_indexed<T>(out, [=](int64_t i) { return convert<T>(static_cast<acc_t>(s + d * static_cast<acc_t>(i))); });
  }, /*with_bool=*/false);
}

void kernels::arange_out_cpu(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device> device,
                             const Tensor& out) {
  kernels::arange_start_step_out_cpu(int64_t(0), end, int64_t(1), dtype, device, out);
}

void kernels::linspace_out_cpu(const Scalar& start, const Scalar& end, int64_t steps,
                               std::optional<ScalarType> dtype, std::optional<Device> device, const Tensor& out) {
  dispatch_dtype(out.scalar_type(), "linspace_cpu", [&](auto tag) {
    using T = decltype(tag);
    using step_t = std::conditional_t<is_floating_v<T>, T, double>;
    const T s = range::checked_bound<T>("linspace", start, out.scalar_type());
    const T e = range::checked_bound<T>("linspace", end, out.scalar_type());
    auto C = [](auto v) { return convert<step_t>(v); };
    if (steps == 1) {
      fill_indexed<T>(out, [=](int64_t) { return s; });
      return;
    }
    const step_t d = C((C(e) - C(s)) / C(steps - 1));
    const int64_t half = steps / 2;
    fill_indexed<T>(out, [=](int64_t i) {
      if (i < half) return convert<T>(C(C(s) + C(d * C(i))));
      return convert<T>(C(C(e) - C(d * C(steps - i - 1))));
    });
  }, /*with_bool=*/false);
}

void kernels::logspace_out_cpu(const Scalar& start, const Scalar& end, int64_t steps, double base,
                               std::optional<ScalarType> dtype, std::optional<Device> device, const Tensor& out) {
  dispatch_dtype(out.scalar_type(), "logspace_cpu", [&](auto tag) {
    using T = decltype(tag);
    using step_t = std::conditional_t<is_floating_v<T>, T, double>;
    auto C = [](auto v) { return convert<step_t>(v); };
    const step_t s = C(start.to_double()), e = C(end.to_double());
    if (steps == 1) {
      fill_indexed<T>(out, [=](int64_t) { return convert<T>(std::pow(base, static_cast<double>(s))); });
      return;
    }
    const step_t d = C((e - s) / C(steps - 1));
    const int64_t half = steps / 2;
    fill_indexed<T>(out, [=](int64_t i) {
      step_t x = i < half ? C(s + C(d * C(i))) : C(e - C(d * C(steps - i - 1)));
      return convert<T>(std::pow(base, static_cast<double>(x)));
    });
  }, /*with_bool=*/false);
}

}  // namespace torchlite
