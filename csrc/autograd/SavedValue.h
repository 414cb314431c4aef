#pragma once
// A value a node saved, as `grad_fn._saved_<name>` shows it to Python.
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "autograd/Node.h"
#include "autograd/SavedVariable.h"
#include "core/Scalar.h"

namespace torchlite::autograd {

struct SavedValue {
  std::variant<std::monostate, Tensor, std::vector<Tensor>, Scalar, int64_t, double, bool, std::vector<int64_t>,
               std::vector<double>, std::string, ScalarType, Device>
      value;
};

inline SavedValue to_saved_value(const SavedVariable& v, const std::shared_ptr<Node>& node) {
  if (!v.was_saved()) return {};
  return {v.unpack(node)};
}
inline SavedValue to_saved_value(const std::vector<SavedVariable>& vs, const std::shared_ptr<Node>& node) {
  std::vector<Tensor> out;
  for (const auto& v : vs) out.push_back(v.unpack(node));
  return {out};
}
template <typename T>
SavedValue to_saved_value(const std::optional<T>& v, const std::shared_ptr<Node>& node) {
  if (!v.has_value()) return {};
  return to_saved_value(*v, node);
}
template <typename T>
SavedValue to_saved_value(const T& v, const std::shared_ptr<Node>&) {
  return {v};
}

// The saved tensors of a node back as the types formulas read.
inline std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& vs) {
  std::vector<Tensor> out;
  out.reserve(vs.size());
  for (const auto& v : vs) out.push_back(v.unpack());
  return out;
}
inline std::vector<std::optional<Tensor>> unpack_optional_list(const std::vector<SavedVariable>& vs) {
  std::vector<std::optional<Tensor>> out;
  out.reserve(vs.size());
  for (const auto& v : vs) {
    Tensor t = v.unpack();
    out.push_back(t.defined() ? std::optional<Tensor>(t) : std::nullopt);
  }
  return out;
}
inline std::optional<Tensor> unpack_optional(const SavedVariable& v) {
  Tensor t = v.unpack();
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

}  // namespace torchlite::autograd
