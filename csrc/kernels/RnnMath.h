#pragma once
// The per-element math of the fused LSTM cell and its gradient, shared by the step kernels (kernels/gpu/rnn.inc,
// both devices) and the CPU layer loop (kernels/generic/lstm_layer.cpp), so that both round alike. O is the
// op-math type (float for half and bfloat16).
#include "core/Macros.h"
#include "kernels/ScalarMath.h"

namespace torchlite::rnn_math {

template <typename O>
TL_HOST_DEVICE inline O sigmoid(O x) {
  return O(1) / (O(1) + scalar_math::exp(-x));
}

// tanh without a libm call on the host, so that the cell loops vectorize (the host's float exp is
// vectorizable): the odd series to x^15 below |x| = 1/4 (relative error < 2e-13), else 1 - 2 / (e^{2|x|} + 1)
// with x's sign (a few ulps); NaN stays NaN, and +-inf gives +-1. CUDA uses its own tanh.
template <typename O>
TL_HOST_DEVICE inline O tanh(O x) {
#ifdef __CUDA_ARCH__
  return scalar_math::tanh(x);
#else
  const O a = x < O(0) ? -x : x;
  const O x2 = x * x;
  O p = O(-929569.0 / 638512875.0);
  p = p * x2 + O(21844.0 / 6081075.0);
  p = p * x2 + O(-1382.0 / 155925.0);
  p = p * x2 + O(62.0 / 2835.0);
  p = p * x2 + O(-17.0 / 315.0);
  p = p * x2 + O(2.0 / 15.0);
  p = p * x2 + O(-1.0 / 3.0);
  const O small = x + x * x2 * p;
  const O big = O(1) - O(2) / (scalar_math::exp(O(2) * a) + O(1));
  return a < O(0.25) ? small : (x < O(0) ? -big : big);
#endif
}

// One hidden unit's step from its four pre-activation gates (input, forget, cell, output) and previous cell
// state: the activations (kept for the backward), the new cell state and the new hidden state.
template <typename O>
struct LstmStep {
  O i, f, g, o, c, h;
};

template <typename O>
TL_HOST_DEVICE inline LstmStep<O> lstm_step(O gi, O gf, O gg, O go, O cx) {
  LstmStep<O> s;
  s.i = sigmoid(gi);
  s.f = sigmoid(gf);
  s.g = tanh(gg);
  s.o = sigmoid(go);
  s.c = s.f * cx + s.i * s.g;
  s.h = s.o * tanh(s.c);
  return s;
}

// Its gradient: of the four gates and of cx, from those of h (gh) and c (gc), the activations and cy.
template <typename O>
struct LstmStepGrad {
  O i, f, g, o, cx;
};

template <typename O>
TL_HOST_DEVICE inline LstmStepGrad<O> lstm_step_backward(O gh, O gc, O cx, O cy, O i, O f, O g, O o) {
  const O tc = tanh(cy);
  const O dc = gc + gh * o * (O(1) - tc * tc);
  LstmStepGrad<O> d;
  d.i = dc * g * i * (O(1) - i);
  d.f = dc * cx * f * (O(1) - f);
  d.g = dc * i * (O(1) - g * g);
  d.o = gh * tc * o * (O(1) - o);
  d.cx = dc * f;
  return d;
}

}  // namespace torchlite::rnn_math
