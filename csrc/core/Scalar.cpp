#include "core/Scalar.h"

#include "core/ArrayRef.h"
#include "core/Error.h"

namespace torchlite {

std::string to_string(const Scalar& s) {
  switch (s.tag()) {
    case Scalar::Tag::Bool: return s.to_bool() ? "True" : "False";
    case Scalar::Tag::Int: return std::to_string(s.to_long());
    default: return str(s.to_double());
  }
}

std::string to_string(IntArrayRef a) {
  std::string s = "[";
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(a[i]);
  }
  return s + "]";
}

}  // namespace torchlite
