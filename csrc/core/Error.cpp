#include "core/Error.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace torchlite {

void detail::str_append(std::string& s, double v) {
  char buf[32];
  if (std::isnan(v)) {
    s.append("nan");
  } else if (std::isinf(v)) {
    s.append(v > 0 ? "inf" : "-inf");
  } else {
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    // Shortest representation that round-trips, like Python's repr.
    for (int prec = 1; prec <= 17; ++prec) {
      char tmp[32];
      std::snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
      if (std::strtod(tmp, nullptr) == v) {
        std::snprintf(buf, sizeof(buf), "%s", tmp);
        break;
      }
    }
    s.append(buf);
  }
}

void throw_error(ErrorKind kind, std::string msg) { throw Error(kind, std::move(msg)); }

void throw_kernel_error(const char* msg) { throw KernelError(ErrorKind::Runtime, msg); }

}  // namespace torchlite
