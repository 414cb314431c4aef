#include "core/Generator.h"

#include <mutex>
#include <random>

#include "core/Error.h"

namespace torchlite {

struct GeneratorImpl {
  std::mutex mutex;  // guards seed and offset: ops on several threads take disjoint ranges
  uint64_t seed = kDefaultSeed;
  uint64_t offset = 0;  // the next free block of the stream
  Device device;
};

Generator::Generator(Device device) : impl_(std::make_shared<GeneratorImpl>()) { impl_->device = device; }

Device Generator::device() const { return impl_->device; }

uint64_t Generator::seed() const { return state().seed; }

uint64_t Generator::offset() const { return state().offset; }

PhiloxRange Generator::state() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return PhiloxRange{impl_->seed, impl_->offset};
}

void Generator::set_seed(uint64_t seed) const { set_state(seed, 0); }

uint64_t Generator::seed_nondeterministically() const {
  std::random_device rd;
  uint64_t s = static_cast<uint64_t>(rd()) << 32 | rd();
  set_seed(s);
  return s;
}

void Generator::set_state(uint64_t seed, uint64_t offset) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->seed = seed;
  impl_->offset = offset;
}

void Generator::set_offset(uint64_t offset) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->offset = offset;
}

PhiloxRange Generator::take(uint64_t blocks) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  PhiloxRange r{impl_->seed, impl_->offset};
  impl_->offset += blocks;
  return r;
}

const Generator& default_generator(DeviceType type) {
  static const Generator cpu(Device(DeviceType::CPU));
  static const Generator cuda(Device(DeviceType::CUDA));
  return type == DeviceType::CUDA ? cuda : cpu;
}

const Generator& generator_for(const std::optional<Generator>& g, Device device) {
  if (!g.has_value()) return default_generator(device.type);
  TL_CHECK(g->device().type == device.type, "Expected a '", device_type_name(device.type),
           "' device type for generator but found '", device_type_name(g->device().type), "'");
  return *g;
}

}  // namespace torchlite
