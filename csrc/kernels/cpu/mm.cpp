// mm, bmm, addmm and baddbmm on the CPU: meta rules with PyTorch's checks (in
// its order and words), and kernels over the GEMM engine (Gemm.h).
#include <cctype>
#include <string>

#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/addmm.h"
#include "kernels/baddbmm.h"
#include "kernels/bmm.h"
#include "kernels/cpu/Gemm.h"
#include "kernels/mm.h"
#include "ops/expand.h"

namespace torchlite {
namespace {

// The tensor the GEMM writes: `out` itself when it is contiguous, of the compute
// dtype and not an input; else a temporary copied into out afterwards.
Tensor gemm_target(const Tensor& out, ScalarType dtype, std::initializer_list<const Tensor*> inputs) {
  bool direct = out.is_contiguous() && out.scalar_type() == dtype;
  for (const Tensor* t : inputs) direct = direct && !out.is_same(*t);
  return direct ? out : empty_tensor(out.sizes(), dtype, out.device());
}

// beta * self + alpha * a @ b into out (c: out's GEMM target, 3-D views of a/b/c).
void add_product(const char* op, const Tensor& self, const Tensor& a, const Tensor& b, const Tensor& out,
                 const Scalar& beta, const Scalar& alpha, bool batched) {
  ScalarType t = a.scalar_type();
  if (t == ScalarType::Bool) throw_dtype_not_implemented(op, t);
  bool in_place = out.is_same(self);
  Tensor c = gemm_target(out, t, {&a, &b});
  // beta = 0 ignores self (NaN included); for integers beta is cast first (0.5 gives 0).
  bool use_self = is_integral_type(t, false) ? beta.to_long() != 0 : beta.to_complex() != Complex<double>(0);
  if (use_self && !(in_place && c.is_same(out))) copy_cast_cpu(c, self);
  Scalar b_eff = use_self ? beta : Scalar(int64_t(0));
  if (batched) {
    cpu::gemm_batched(op, a, b, c, alpha, b_eff);
  } else {
    cpu::gemm(op, a, b, c, alpha, b_eff);
  }
  if (!c.is_same(out)) copy_cast_cpu(out, c);
}

}  // namespace

// ------------------------------------------------------------------ mm

void kernels::mm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  Tensor c = gemm_target(out, self.scalar_type(), {&self, &mat2});
  cpu::gemm("mm", self, mat2, c, /*alpha=*/1, /*beta=*/0);
  if (!c.is_same(out)) copy_cast_cpu(out, c);
}

// ------------------------------------------------------------------ bmm

void kernels::bmm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  Tensor c = gemm_target(out, self.scalar_type(), {&self, &mat2});
  cpu::gemm_batched("bmm", self, mat2, c, /*alpha=*/1, /*beta=*/0);
  if (!c.is_same(out)) copy_cast_cpu(out, c);
}

// ------------------------------------------------------------------ addmm

void kernels::addmm_out_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                            const Scalar& alpha, const Tensor& out) {
  add_product("addmm", self, mat1, mat2, out, beta, alpha, /*batched=*/false);
}

// ------------------------------------------------------------------ baddbmm

void kernels::baddbmm_out_cpu(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                              const Scalar& alpha, const Tensor& out) {
  add_product("baddbmm", self, batch1, batch2, out, beta, alpha, /*batched=*/true);
}

}  // namespace torchlite
