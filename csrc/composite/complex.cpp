// Compositions for complex numbers: real/imag (views through view_as_real), conj, angle, complex and polar.
#include "composite/Numbers.h"
#include "dispatch/Meta.h"
#include "kernels/angle.h"
#include "kernels/complex.h"
#include "kernels/conj.h"
#include "kernels/imag.h"
#include "kernels/polar.h"
#include "kernels/real.h"
#include "kernels/resolve_conj.h"
#include "ops/_conj.h"
#include "ops/atan2.h"
#include "ops/conj_physical.h"
#include "ops/cos.h"
#include "ops/eq_Tensor.h"
#include "ops/expand.h"
#include "ops/imag.h"
#include "ops/mul_Tensor.h"
#include "ops/neg.h"
#include "ops/real.h"
#include "ops/select_int.h"
#include "ops/sin.h"
#include "ops/stack.h"
#include "ops/to_dtype.h"
#include "ops/view_as_complex.h"
#include "ops/view_as_real.h"
#include "ops/where_self.h"
#include "ops/zeros_like.h"

namespace torchlite {

// A conjugated view's real parts are its memory's: a view of them through the unconjugated alias _conj(self).
Tensor composite::real(const Tensor& self) {
  if (!is_complex_type(self.scalar_type())) return self;
  return select(view_as_real(self.is_conj() ? torchlite::_conj(self) : self), -1, 0);
}

// A conjugated view's imaginary parts are its memory's negated: computed, so that result is not a view (PyTorch
// returns a view with a negative bit, which torchlite does not have).
Tensor composite::imag(const Tensor& self) {
  TL_CHECK(is_complex_type(self.scalar_type()), "imag is not implemented for tensors with non-complex dtypes.");
  if (self.is_conj()) return neg(select(view_as_real(torchlite::_conj(self)), -1, 1));
  return select(view_as_real(self), -1, 1);
}

Tensor composite::conj(const Tensor& self) {
  return is_complex_type(self.scalar_type()) ? torchlite::_conj(self) : self;
}

// The values of a conjugated view, computed: conj_physical of its unconjugated alias (whose values are the
// memory's); the derivative of the pair is the identity.
Tensor composite::resolve_conj(const Tensor& self) {
  return self.is_conj() ? conj_physical(torchlite::_conj(self)) : self;
}

Tensor composite::angle(const Tensor& self) {
  if (is_complex_type(self.scalar_type())) return torchlite::atan2(torchlite::imag(self), torchlite::real(self));
  // atan2(0, x): pi for x < 0, 0 for x > 0, NaN for NaN, with the zero gradient PyTorch gives a real input;
  // 0 at x = +-0 (atan2(0, -0) would be pi).
  const Tensor t = torchlite::atan2(torchlite::zeros_like(self), self);
  return torchlite::where(torchlite::eq(self, number(Scalar(0.0))), number(Scalar(0.0)), t);
}

namespace {

// real + imag * 1j, both of one dtype: float16, float32 or float64 (PyTorch's messages).
Tensor make_complex(const char* op, const Tensor& re, const Tensor& im) {
  const ScalarType a = re.scalar_type(), b = im.scalar_type();
  const auto takes = [](ScalarType t) { return is_floating_type(t) && t != ScalarType::BFloat16; };
  TL_CHECK(takes(a) && takes(b), op, ": expected both inputs to be Half, Float or Double tensors but got ",
           scalar_type_name(a), " and ", scalar_type_name(b));
  TL_CHECK(a == b, op, ": expected object of scalar type ", scalar_type_name(a), " but got scalar type ",
           scalar_type_name(b), " for second argument");
  TL_CHECK(re.device() == im.device(), op, ": expected both inputs on one device, got ", to_string(re.device()),
           " and ", to_string(im.device()));
  // The pairs (re, im) side by side, viewed as complex numbers (float16 pairs in float32: complex64). With
  // inputs that require grad, view_as_complex refuses the complex result (no complex autograd yet).
  DimVector shape = broadcast_shapes({&re, &im});
  const ScalarType parts = a == ScalarType::Half ? ScalarType::Float : a;
  const Tensor pair[2] = {expand(re, shape.ref()), expand(im, shape.ref())};
  return view_as_complex(to(stack(ArrayRef<Tensor>(pair, 2), -1), parts));
}

}  // namespace

Tensor composite::complex(const Tensor& real, const Tensor& imag) { return make_complex("complex", real, imag); }

Tensor composite::polar(const Tensor& abs, const Tensor& angle) {
  const ScalarType a = abs.scalar_type();
  TL_CHECK(a == ScalarType::Float || a == ScalarType::Double, "polar: expected both inputs to be Float or Double "
           "tensors but got ", scalar_type_name(a), " and ", scalar_type_name(angle.scalar_type()));
  return make_complex("polar", mul(abs, cos(angle)), mul(abs, sin(angle)));
}

}  // namespace torchlite
