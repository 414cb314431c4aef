#include "stage/Conj.h"

#include "core/TensorFactory.h"
#include "ops/resolve_conj.h"

namespace torchlite::conj_view {

Tensor resolved(const Tensor& t) { return has_bit(t) ? resolve_conj(t) : t; }

std::optional<Tensor> resolved(const std::optional<Tensor>& t) {
  if (!has_bit(t)) return t;
  return resolve_conj(*t);
}

std::vector<Tensor> resolved(ArrayRef<Tensor> ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(resolved(t));
  return out;
}

std::vector<std::optional<Tensor>> resolved(ArrayRef<std::optional<Tensor>> ts) {
  std::vector<std::optional<Tensor>> out;
  out.reserve(ts.size());
  for (const std::optional<Tensor>& t : ts) out.push_back(resolved(t));
  return out;
}

Tensor out_value(const Tensor& out) {
  return has_bit(out) ? empty_tensor({0}, out.scalar_type(), out.device()) : out;
}

}  // namespace torchlite::conj_view
