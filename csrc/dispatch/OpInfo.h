#pragma once
// Identifies an operator overload in error messages.
namespace torchlite {

struct OpInfo {
  const char* name;      // "add"
  const char* overload;  // "Tensor", or "" for the default overload
  const char* schema;    // the functional schema, as written in native_functions.yaml
};

}  // namespace torchlite
