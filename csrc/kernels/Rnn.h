#pragma once
// The fused recurrent cells (nn.LSTM's and nn.GRU's step, kernels/gpu/rnn.inc): the shape checks shared by
// the meta functions and the kernels. Gates are (B, G * H) rows of G chunks of H (LSTM: input, forget, cell,
// output; GRU: reset, update, new), states (B, H).
#include "core/Error.h"
#include "core/Tensor.h"

namespace torchlite::rnn {

struct Dims {
  int64_t B = 0, H = 0;
};

inline void check_floating(const char* op, const Tensor& t) {
  const ScalarType s = t.scalar_type();
  TL_CHECK_TYPE(s == ScalarType::Float || s == ScalarType::Double || s == ScalarType::Half ||
                    s == ScalarType::BFloat16,
                op, ": expected a floating tensor, got ", scalar_type_name(s));
}

inline void check_like(const char* op, const char* name, const Tensor& t, const Tensor& like, int64_t B, int64_t W) {
  TL_CHECK(t.dim() == 2 && t.sizes()[0] == B && t.sizes()[1] == W, op, ": expected ", name, " of size [", B, ", ", W,
           "], got ", to_string(t.sizes()));
  TL_CHECK(t.scalar_type() == like.scalar_type(), op, ": expected ", name, " of dtype ",
           scalar_type_name(like.scalar_type()), ", got ", scalar_type_name(t.scalar_type()));
  TL_CHECK(t.device() == like.device(), op, ": expected ", name, " on ", to_string(like.device()), ", got ",
           to_string(t.device()));
}

// gates (B, G * H) and a state (B, H): B and H.
inline Dims check_cell(const char* op, const Tensor& gates, const Tensor& state, int64_t G) {
  check_floating(op, gates);
  TL_CHECK(gates.dim() == 2, op, ": expected 2-D gates (batch, ", G, " * hidden), got ", to_string(gates.sizes()));
  TL_CHECK(state.dim() == 2, op, ": expected a 2-D state (batch, hidden), got ", to_string(state.sizes()));
  Dims d{state.sizes()[0], state.sizes()[1]};
  check_like(op, "gates", gates, state, d.B, G * d.H);
  return d;
}

}  // namespace torchlite::rnn
