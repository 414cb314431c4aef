#pragma once
// Fused optimizer updates (torchlite.optim's fused=True / default CPU path): one pass over each parameter that
// reads its gradient and state and writes the parameter and state in place, instead of one op per term.
// The kernels (kernels/gpu/optim.inc) are written once for both devices; the Python binding (python/PyOptim.cpp)
// runs them over every parameter of a step in one call. The math and its order are PyTorch's single-tensor
// algorithms (Adam/AdamW, SGD with momentum, Adagrad, RMSprop), in the op-math type.
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

struct AdagradArgs {
  double clr, weight_decay, eps;  // clr: this step's lr / (1 + (step - 1) lr_decay)
  bool maximize;
};

struct RmspropArgs {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
};

// The other optimizers' fused updates share one form (torchlite._C._fused_update_): t[0] the parameter, t[1] its
// gradient, t[2...] its state tensors in the order the kernel lists (undefined where unused); s the scalars of
// this parameter's step, computed in Python (bias corrections and the like), in the order the kernel lists.
using FusedUpdateFn = void (*)(const Tensor* t, const double* s);

namespace kernels {
// step: the step count after this step's increment. max_exp_avg_sq is undefined without amsgrad.
void fused_adam_cuda(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor& max_exp_avg_sq, double step, const AdamArgs& args);
// momentum_buffer is undefined without momentum.
void fused_sgd_cuda(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdArgs& args);
void fused_adagrad_cuda(const Tensor& param, const Tensor& grad, const Tensor& state_sum, const AdagradArgs& args);
// grad_avg is undefined unless centered, momentum_buffer unless momentum > 0.
void fused_rmsprop_cuda(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor& grad_avg,
                        const Tensor& momentum_buffer, const RmspropArgs& args);
void fused_adadelta_cuda(const Tensor* t, const double* s);
void fused_adamax_cuda(const Tensor* t, const double* s);
void fused_nadam_cuda(const Tensor* t, const double* s);
void fused_radam_cuda(const Tensor* t, const double* s);
void fused_asgd_cuda(const Tensor* t, const double* s);
void fused_rprop_cuda(const Tensor* t, const double* s);
namespace on_host {
void fused_adam_cuda(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor& max_exp_avg_sq, double step, const AdamArgs& args);
void fused_sgd_cuda(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdArgs& args);
void fused_adagrad_cuda(const Tensor& param, const Tensor& grad, const Tensor& state_sum, const AdagradArgs& args);
void fused_rmsprop_cuda(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor& grad_avg,
                        const Tensor& momentum_buffer, const RmspropArgs& args);
void fused_adadelta_cuda(const Tensor* t, const double* s);
void fused_adamax_cuda(const Tensor* t, const double* s);
void fused_nadam_cuda(const Tensor* t, const double* s);
void fused_radam_cuda(const Tensor* t, const double* s);
void fused_asgd_cuda(const Tensor* t, const double* s);
void fused_rprop_cuda(const Tensor* t, const double* s);
}  // namespace on_host
}  // namespace kernels

}  // namespace torchlite
