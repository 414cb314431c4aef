#pragma once
// Identifies an operator overload in error messages.
#include <string>

namespace torchlite {

struct OpInfo {
  const char* name;      // "add"
  const char* overload;  // "Tensor", or "" for the default overload
  const char* schema;    // the functional schema, as written in native_functions.yaml
};

// "add.Tensor", or "neg" for a default overload: how messages name the op.
inline std::string op_name(const OpInfo& op) {
  std::string s = op.name;
  if (op.overload[0]) s += std::string(".") + op.overload;
  return s;
}

}  // namespace torchlite
