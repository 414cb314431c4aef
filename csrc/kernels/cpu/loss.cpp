// The negative log-likelihood loss on the CPU (nll_loss_forward, nll_loss_backward): one pass over the
// targets, reading one element of `self` per target (no one-hot, no log-probabilities copied), summed in
// double in target order, so results do not depend on the thread count. Geometry and checks:
// kernels/NllLoss.h. cross_entropy for class indices: the log_softmax kernel then nll_loss_forward's, and
// one fused backward pass, c * (exp(log_probs) - one_hot) with c the target's weighted upstream gradient.
#include <algorithm>

#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "kernels/Convert.h"
#include "kernels/Dispatch.h"
#include "kernels/ElementwiseIter.h"
#include "core/Macros.h"
#include "kernels/NllLoss.h"
#include "kernels/ScalarMath.h"
#include "kernels/_cross_entropy_backward.h"
#include "kernels/_cross_entropy_forward.h"
#include "kernels/_log_softmax.h"
#include "kernels/nll_loss_backward.h"
#include "kernels/nll_loss_forward.h"

namespace torchlite {

namespace {

// The weight of class t (1 without weights), as double.
template <typename T>
double class_weight(const T* w, int64_t t) {
  return w ? static_cast<double>(static_cast<opmath_t<T>>(w[t])) : 1.0;
}

void check_target(int64_t t, int64_t c, int64_t ignore_index) {
  TL_CHECK_INDEX(t == ignore_index || (t >= 0 && t < c), nll::out_of_bounds(t));
}

}  // namespace

void kernels::nll_loss_forward_out_cpu(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                       int64_t reduction, int64_t ignore_index, const Tensor& output,
                                       const Tensor& total_weight) {
  const nll::Geometry g = nll::check(self, target, weight);
  dispatch_floating(self.scalar_type(), "nll_loss_out_frame", [&](auto tag) {
    using T = decltype(tag);
    const Tensor x = contiguous_as(self, self.scalar_type());
    const Tensor tg = contiguous_as(target, ScalarType::Int64);
    const Tensor w = weight ? contiguous_as(*weight, self.scalar_type()) : Tensor();
    const T* xp = x.data<T>();
    const int64_t* tp = tg.data<int64_t>();
    const T* wp = w.defined() ? w.data<T>() : nullptr;
    const int64_t count = g.count();
    Tensor per = reduction == nll::kNone ? empty_tensor(output.sizes(), self.scalar_type(), self.device()) : Tensor();
    T* pp = per.defined() ? per.data<T>() : nullptr;
    double loss = 0, total = 0;
    for (int64_t k = 0; k < count; ++k) {
      const int64_t t = tp[k];
      check_target(t, g.c, ignore_index);
      const int64_t n = k / g.s, s = k % g.s;
      double l = 0;
      if (t != ignore_index) {
        const double wt = class_weight(wp, t);
        l = -wt * static_cast<double>(static_cast<opmath_t<T>>(xp[(n * g.c + t) * g.s + s]));
        total += wt;
      }
      if (pp) pp[k] = convert<T>(l);
      loss += l;
    }
    if (per.defined()) {
      copy_cast_cpu(output, per);
      total_weight.data<T>()[0] = convert<T>(0.0);  // as PyTorch, which sums no weights without a reduction
      return;
    }
    output.data<T>()[0] = convert<T>(reduction == nll::kMean ? loss / total : loss);
    total_weight.data<T>()[0] = convert<T>(total);
  });
}

void kernels::nll_loss_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                        const Tensor& total_weight, const Tensor& grad_input) {
  const nll::Geometry g = nll::check(self, target, weight);
  dispatch_floating(self.scalar_type(), "nll_loss_backward_out_frame", [&](auto tag) {
    using T = decltype(tag);
    using op_t = opmath_t<T>;
    Tensor gi = grad_input.is_contiguous() ? grad_input : empty_tensor(grad_input.sizes(), grad_input.scalar_type());
    T* zero = gi.data<T>();
    parallel_for(gi.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      std::fill(zero + begin, zero + end, convert<T>(0.0));
    });
    const Tensor tg = contiguous_as(target, ScalarType::Int64);
    const Tensor go = contiguous_as(grad_output, self.scalar_type());
    const Tensor w = weight ? contiguous_as(*weight, self.scalar_type()) : Tensor();
    const int64_t* tp = tg.data<int64_t>();
    const T* gp = go.data<T>();
    const T* wp = w.defined() ? w.data<T>() : nullptr;
    T* out = gi.data<T>();
    const op_t scale = reduction == nll::kMean ? op_t(1) / static_cast<op_t>(item(total_weight).to_double()) : op_t(1);
    for (int64_t k = 0; k < g.count(); ++k) {
      const int64_t t = tp[k];
      check_target(t, g.c, ignore_index);
      if (t == ignore_index) continue;
      const int64_t n = k / g.s, s = k % g.s;
      const op_t go_k = static_cast<op_t>(gp[reduction == nll::kNone ? k : 0]);
      const op_t wt = wp ? static_cast<op_t>(wp[t]) : op_t(1);
      out[(n * g.c + t) * g.s + s] = static_cast<T>(-wt * go_k * scale);
    }
    if (!gi.is_same(grad_input)) copy_cast_cpu(grad_input, gi);
  });
}

void kernels::cross_entropy_forward_out_cpu(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            int64_t ignore_index, const Tensor& output, const Tensor& log_probs,
                                            const Tensor& total_weight) {
  nll::check(self, target, weight);
  kernels::log_softmax_out_cpu(self, self.dim() == 1 ? 0 : 1, /*half_to_float=*/false, log_probs);
  kernels::nll_loss_forward_out_cpu(log_probs, target, weight, reduction, ignore_index, output, total_weight);
}

namespace {

// out[i] = coef * exp(y[i]): a row of the class dim (contiguous), vectorized.
template <typename T>
TL_CPU_MULTIVERSION void scaled_exp_row(const T* y, T* out, int64_t n, opmath_t<T> coef) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(coef * scalar_math::exp(static_cast<opmath_t<T>>(y[i])));
}

}  // namespace

void kernels::cross_entropy_backward_out_cpu(const Tensor& grad_output, const Tensor& log_probs, const Tensor& target,
                                             const std::optional<Tensor>& weight, int64_t reduction,
                                             int64_t ignore_index, const Tensor& total_weight,
                                             const Tensor& grad_input) {
  const nll::Geometry g = nll::check(log_probs, target, weight);
  dispatch_floating(log_probs.scalar_type(), "cross_entropy_backward", [&](auto tag) {
    using T = decltype(tag);
    using op_t = opmath_t<T>;
    const ScalarType dt = log_probs.scalar_type();
    const Tensor y = contiguous_as(log_probs, dt);
    const Tensor tg = contiguous_as(target, ScalarType::Int64);
    const Tensor go = contiguous_as(grad_output, dt);
    const Tensor w = weight ? contiguous_as(*weight, dt) : Tensor();
    Tensor gi = grad_input.is_contiguous() ? grad_input : empty_tensor(grad_input.sizes(), dt);
    const int64_t* tp = tg.data<int64_t>();
    for (int64_t k = 0; k < g.count(); ++k) check_target(tp[k], g.c, ignore_index);
    const T* yp = y.data<T>();
    const T* gp = go.data<T>();
    const T* wp = w.defined() ? w.data<T>() : nullptr;
    T* out = gi.data<T>();
    const bool none = reduction == nll::kNone;
    const op_t scale = reduction == nll::kMean ? op_t(1) / static_cast<op_t>(item(total_weight).to_double()) : op_t(1);
    // Target k's weighted upstream gradient, 0 where ignored.
    auto coef = [&](int64_t k) {
      const int64_t t = tp[k];
      if (t == ignore_index) return op_t(0);
      return (wp ? static_cast<op_t>(wp[t]) : op_t(1)) * static_cast<op_t>(gp[none ? k : 0]) * scale;
    };
    const int64_t c = g.c, s = g.s;
    parallel_for(g.n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c * s, 1)), [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) {
        const T* yn = yp + n * c * s;
        T* on = out + n * c * s;
        if (s == 1) {
          scaled_exp_row(yn, on, c, coef(n));
        } else {
          for (int64_t j = 0; j < c; ++j)
            for (int64_t i = 0; i < s; ++i)
              on[j * s + i] = static_cast<T>(coef(n * s + i) * scalar_math::exp(static_cast<op_t>(yn[j * s + i])));
        }
        for (int64_t i = 0; i < s; ++i) {  // minus the one-hot
          const int64_t t = tp[n * s + i];
          if (t != ignore_index)
            on[t * s + i] = static_cast<T>(static_cast<op_t>(on[t * s + i]) - coef(n * s + i));
        }
      }
    });
    if (!gi.is_same(grad_input)) copy_cast_cpu(grad_input, gi);
  });
}

}  // namespace torchlite
