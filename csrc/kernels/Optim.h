#pragma once
// Fused optimizer updates (torchlite.optim's fused=True / default CPU path): one pass over each parameter that
// reads its gradient and state and writes the parameter and state in place, instead of one op per term.
// The kernels (kernels/gpu/optim.inc) are written once for both devices; the Python binding (python/PyOptim.cpp)
// runs them over every parameter of a step in one call. The math and its order are PyTorch's single-tensor
// algorithms, in the op-math type.
#include "core/Tensor.h"

namespace torchlite {

struct AdamArgs {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled;  // decoupled: AdamW's weight decay
};

struct SgdArgs {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize, first;  // first: the momentum buffer is new (set to the gradient)
};

// The other optimizers' fused updates share one form (torchlite._C._fused_update_): t[0] the parameter, t[1] its
// gradient, t[2...] its state tensors in the order the kernel lists (undefined where unused); s the scalars of
// this parameter's step, computed in Python (bias corrections and the like), in the order the kernel lists.
using FusedUpdateFn = void (*)(const Tensor* t, const double* s);

// The _fused_update_ kinds: X(name, number of tensors, number of scalars), as kernels/gpu/optim.inc lists them.
#define TL_FUSED_UPDATES(X) \
  X(adagrad, 3, 4)          \
  X(rmsprop, 5, 6)          \
  X(adadelta, 4, 5)         \
  X(adamax, 4, 6)           \
  X(nadam, 4, 9)            \
  X(radam, 4, 10)           \
  X(asgd, 3, 5)             \
  X(rprop, 4, 5)
#define TL_DECLARE_FUSED_UPDATE(name, n_tensors, n_scalars) void fused_##name##_cuda(const Tensor* t, const double* s);

namespace kernels {
// torchlite._C._amp_foreach_non_finite_check_and_unscale_'s kernel for one gradient (GradScaler.unscale_):
// grad *= inv_scale[0] in place, and found_inf[0] = 1 if any element of grad was inf or NaN; found_inf and
// inv_scale are one-element float32 tensors on grad's device, read and written there (no synchronization).
void amp_unscale_cuda(const Tensor& grad, const Tensor& found_inf, const Tensor& inv_scale);
// step: the step count after this step's increment. max_exp_avg_sq is undefined without amsgrad.
void fused_adam_cuda(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor& max_exp_avg_sq, double step, const AdamArgs& args);
// momentum_buffer is undefined without momentum.
void fused_sgd_cuda(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdArgs& args);
TL_FUSED_UPDATES(TL_DECLARE_FUSED_UPDATE)
namespace on_host {
void amp_unscale_cuda(const Tensor& grad, const Tensor& found_inf, const Tensor& inv_scale);
void fused_adam_cuda(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor& max_exp_avg_sq, double step, const AdamArgs& args);
void fused_sgd_cuda(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdArgs& args);
TL_FUSED_UPDATES(TL_DECLARE_FUSED_UPDATE)
}  // namespace on_host
}  // namespace kernels

}  // namespace torchlite
