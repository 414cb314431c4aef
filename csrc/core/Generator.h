#pragma once
// A random-number generator's state: (seed, offset) of a counter-based Philox
// stream. The core issue adds the generator itself; the type exists so that the
// schema's `Generator?` arguments have their final C++ shape.
#include <cstdint>

namespace torchlite {

struct Generator {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

}  // namespace torchlite
