#pragma once
// The fused scaled-dot-product attention (kernels/gpu/attention.inc): the shape checks shared by the meta
// functions and the kernels. query (B, L, E), key (B, S, E), value (B, S, Ev), an optional additive floating
// mask (B, L, S) of any strides (an expanded (L, S) mask stays unmaterialized; another dtype than the query's
// is converted first), the output (B, L, Ev) and each query
// row's log-sum-exp (B, L) of its scaled, masked scores, in the op-math dtype (float for half and bfloat16).
#include <initializer_list>
#include <optional>

#include "core/Error.h"
#include "core/Tensor.h"

namespace torchlite::attention {

struct Dims {
  int64_t B = 0, L = 0, S = 0, E = 0, Ev = 0;
};

inline ScalarType lse_dtype(ScalarType t) { return t == ScalarType::Double ? ScalarType::Double : ScalarType::Float; }

inline void check_sized(const char* op, const char* name, const Tensor& t, const Tensor& like,
                        std::initializer_list<int64_t> sizes) {
  TL_CHECK(t.sizes().equals(IntArrayRef(sizes)), op, ": expected ", name, " of size ", to_string(IntArrayRef(sizes)),
           ", got ", to_string(t.sizes()));
  TL_CHECK(t.device() == like.device(), op, ": expected ", name, " on ", to_string(like.device()), ", got ",
           to_string(t.device()));
}

inline Dims check(const char* op, const Tensor& query, const Tensor& key, const Tensor& value,
                  const std::optional<Tensor>& attn_mask) {
  const ScalarType s = query.scalar_type();
  TL_CHECK_TYPE(s == ScalarType::Float || s == ScalarType::Double || s == ScalarType::Half ||
                    s == ScalarType::BFloat16,
                op, ": expected a floating query, got ", scalar_type_name(s));
  TL_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3, op, ": expected 3-D query, key and value "
           "(batch, length, features), got ", to_string(query.sizes()), ", ", to_string(key.sizes()), " and ",
           to_string(value.sizes()));
  Dims d{query.size(0), query.size(1), key.size(1), query.size(2), value.size(2)};
  check_sized(op, "key", key, query, {d.B, d.S, d.E});
  check_sized(op, "value", value, query, {d.B, d.S, d.Ev});
  TL_CHECK(key.scalar_type() == s && value.scalar_type() == s, op, ": expected query, key and value of one dtype, "
           "got ", scalar_type_name(s), ", ", scalar_type_name(key.scalar_type()), " and ",
           scalar_type_name(value.scalar_type()));
  if (attn_mask && attn_mask->defined()) {
    check_sized(op, "attn_mask", *attn_mask, query, {d.B, d.L, d.S});
    TL_CHECK(is_floating_type(attn_mask->scalar_type()), op, ": expected a floating attn_mask, got ",
             scalar_type_name(attn_mask->scalar_type()));
  }
  return d;
}

}  // namespace torchlite::attention
