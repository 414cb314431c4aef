// randperm on the CPU: sequential (inside-out Fisher-Yates), the one random kernel written for the CPU (the
// CUDA kernel draws it here and copies it over). The others are kernels/gpu/random.inc's, which the CPU runs
// compiled for the host (`dispatch: {cpu: on_host, ...}` in the schema).
#include <limits>
#include <vector>

#include "core/Generator.h"
#include "core/Philox.h"
#include "core/TensorFactory.h"
#include "kernels/Convert.h"
#include "kernels/Dispatch.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/RandomArgs.h"
#include "kernels/randperm.h"

namespace torchlite {

void kernels::randperm_out_cpu(int64_t n, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                               std::optional<Device> device, const Tensor& out) {
  const ScalarType t = out.scalar_type();
  if (t == ScalarType::Bool) throw_dtype_not_implemented("randperm", t);
  TL_CHECK(t != ScalarType::Half || n <= 2049, "n cannot be greater than 2049 for Half type.");
  TL_CHECK(t != ScalarType::Float || n <= (int64_t(1) << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
  TL_CHECK(t != ScalarType::Double || n <= (int64_t(1) << 53) + 1,
           "n cannot be greater than 2^53+1 for Double type.");
  dispatch_dtype(t, "randperm", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!is_floating_v<T> && !std::is_same_v<T, bool>) {
      TL_CHECK(n == 0 || n - 1 <= static_cast<int64_t>(std::numeric_limits<T>::max()),
               "value cannot be converted to type ", random_args::fixed_width_name<T>(), " without overflow");
    }
    // Inside-out Fisher-Yates: position i draws j uniform in [0, i] from words 2i, 2i+1 of the stream.
    const PhiloxRange r = generator_for(generator, out.device()).take((static_cast<uint64_t>(n) * 2 + 3) / 4);
    std::vector<int64_t> perm(static_cast<size_t>(n));
    philox::Words words(r.seed, r.offset);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = static_cast<int64_t>(words.u64(2 * static_cast<uint64_t>(i)) % static_cast<uint64_t>(i + 1));
      perm[static_cast<size_t>(i)] = perm[static_cast<size_t>(j)];
      perm[static_cast<size_t>(j)] = i;
    }
    Tensor dst = out.is_contiguous() ? out : empty_tensor(out.sizes(), t, out.device());
    T* data = dst.data<T>();
    for (int64_t i = 0; i < n; ++i) data[i] = convert<T>(perm[static_cast<size_t>(i)]);
    if (!dst.is_same(out)) copy_cast_cpu(out, dst);
  });
}

}  // namespace torchlite
