// The random factories: a fresh tensor filled by the random kernels (uniform_, normal_, random_), through
// their functional forms so that results start at _version 0.
#include "core/TensorFactory.h"
#include "kernels/normal_float_float.h"
#include "kernels/rand.h"
#include "kernels/rand_like.h"
#include "kernels/randint.h"
#include "kernels/randint_like.h"
#include "kernels/randint_like_low_dtype.h"
#include "kernels/randint_low.h"
#include "kernels/randn.h"
#include "kernels/randn_like.h"
#include "ops/empty.h"
#include "ops/normal.h"
#include "ops/random.h"
#include "ops/uniform.h"

namespace torchlite {

namespace {

Tensor fresh(const char* op, IntArrayRef size, ScalarType dtype, std::optional<Device> device) {
  check_sizes_nonnegative(op, size);
  return torchlite::empty(size, dtype, device);
}

Tensor fresh_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return torchlite::empty(self.sizes(), dtype.value_or(self.scalar_type()), device.value_or(self.device()));
}

}  // namespace

Tensor composite::rand(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                       std::optional<Device> device) {
  return torchlite::uniform(fresh("rand", size, dtype.value_or(default_dtype()), device), 0.0, 1.0, generator);
}

Tensor composite::randn(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                        std::optional<Device> device) {
  return torchlite::normal(fresh("randn", size, dtype.value_or(default_dtype()), device), 0.0, 1.0, generator);
}

Tensor composite::normal_float_float(double mean, double std, IntArrayRef size,
                                     const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                                     std::optional<Device> device) {
  return torchlite::normal(fresh("normal", size, dtype.value_or(default_dtype()), device), mean, std, generator);
}

Tensor composite::randint(int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
                          std::optional<ScalarType> dtype, std::optional<Device> device) {
  return composite::randint_low(0, high, size, generator, dtype, device);
}

Tensor composite::randint_low(int64_t low, int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
                              std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor t = fresh("randint", size, dtype.value_or(ScalarType::Int64), device);
  return torchlite::random(t, low, std::optional<int64_t>(high), generator);
}

Tensor composite::rand_like(const Tensor& self, const std::optional<Generator>& generator,
                            std::optional<ScalarType> dtype, std::optional<Device> device) {
  return torchlite::uniform(fresh_like(self, dtype, device), 0.0, 1.0, generator);
}

Tensor composite::randn_like(const Tensor& self, const std::optional<Generator>& generator,
                             std::optional<ScalarType> dtype, std::optional<Device> device) {
  return torchlite::normal(fresh_like(self, dtype, device), 0.0, 1.0, generator);
}

Tensor composite::randint_like(const Tensor& self, int64_t high, const std::optional<Generator>& generator,
                               std::optional<ScalarType> dtype, std::optional<Device> device) {
  return torchlite::random(fresh_like(self, dtype, device), int64_t(0), std::optional<int64_t>(high), generator);
}

Tensor composite::randint_like_low_dtype(const Tensor& self, int64_t low, int64_t high,
                                         const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                                         std::optional<Device> device) {
  return torchlite::random(fresh_like(self, dtype, device), low, std::optional<int64_t>(high), generator);
}

}  // namespace torchlite
