// torchlite._C._fused_adam_, _fused_sgd_ and _fused_update_ (the other optimizers' updates, one form for
// all): one call per optimizer step runs
// the fused update kernels (kernels/Optim.h) over every parameter of a param group. The optimizers
// (torchlite/optim) call them when every tensor of the group qualifies (dense, contiguous, one floating dtype
// and device per parameter) and fall back to their op-by-op updates otherwise. Written to the parameters and
// states in place, with their version counters bumped as the in-place ops would.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "core/CudaHooks.h"
#include "core/Error.h"
#include "core/TensorFactory.h"
#include "core/TensorImpl.h"
#include "dispatch/KernelTable.h"
#include "kernels/Optim.h"
#include "python/Errors.h"
#include "python/PyTensor.h"

namespace py = pybind11;

namespace torchlite::python {
namespace {

std::vector<Tensor> tensors(const py::list& list, const char* what, bool allow_none) {
  std::vector<Tensor> out;
  out.reserve(list.size());
  for (const py::handle& h : list) {
    if (h.is_none()) {
      TL_CHECK_TYPE(allow_none, "fused optimizer step: ", what, " must be Tensors, got None");
      out.emplace_back();
      continue;
    }
    TL_CHECK_TYPE(is_tensor(h.ptr()), "fused optimizer step: ", what, " must be Tensors, got ",
                  Py_TYPE(h.ptr())->tp_name);
    out.push_back(unwrap(h.ptr()));
  }
  return out;
}

void check_like(const Tensor& p, const Tensor& t, const char* what) {
  if (!t.defined()) return;
  TL_CHECK(t.is_contiguous() && p.is_contiguous(), "fused optimizer step: ", what, " and the parameter must be "
           "contiguous");
  TL_CHECK(t.sizes().equals(p.sizes()) && t.scalar_type() == p.scalar_type() && t.device() == p.device(),
           "fused optimizer step: ", what, " must match its parameter's size ", to_string(p.sizes()), ", dtype ",
           scalar_type_name(p.scalar_type()), " and device ", to_string(p.device()));
}

void bump(const Tensor& t) {
  if (t.defined()) t.impl()->bump_version();
}

// The kernel for p's device (cuda is nullptr in a build without CUDA); the host compilation on the CPU and on
// the emulated CUDA device, whose tensors live in host memory.
template <typename Fn>
Fn pick(const Tensor& p, Fn host, Fn cuda) {
  if (p.device().is_cpu() || cuda::emulated()) return host;
  TL_CHECK(cuda != nullptr, "fused optimizer step: this build of torchlite has no CUDA kernels");
  return cuda;
}

// Increments a state step (a one-element float32 or float64 CPU tensor) and returns its new value.
double increment_step(const Tensor& s) {
  const ScalarType st = s.scalar_type();
  TL_CHECK(s.numel() == 1 && s.device().is_cpu() && (st == ScalarType::Float || st == ScalarType::Double),
           "fused optimizer step: a step must be a one-element float32 or float64 CPU tensor");
  const double step = st == ScalarType::Float ? static_cast<double>(*s.data<float>() += 1.0f)
                                              : (*s.data<double>() += 1.0);
  bump(s);
  return step;
}

void fused_adam(const py::list& params, const py::list& grads, const py::list& exp_avgs, const py::list& exp_avg_sqs,
                const py::list& max_exp_avg_sqs, const py::list& steps, double lr, double beta1, double beta2,
                double weight_decay, double eps, bool amsgrad, bool maximize, bool decoupled) {
  const auto p = tensors(params, "params", false), g = tensors(grads, "grads", false);
  const auto m = tensors(exp_avgs, "exp_avgs", false), v = tensors(exp_avg_sqs, "exp_avg_sqs", false);
  const auto vmax = tensors(max_exp_avg_sqs, "max_exp_avg_sqs", true), s = tensors(steps, "state_steps", false);
  const size_t n = p.size();
  TL_CHECK_VALUE(g.size() == n && m.size() == n && v.size() == n && s.size() == n &&
                     (vmax.empty() || vmax.size() == n),
                 "fused optimizer step: expected lists of ", n, " tensors");
  const AdamArgs args{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled};
  for (size_t i = 0; i < n; ++i) {
    check_like(p[i], g[i], "grad");
    check_like(p[i], m[i], "exp_avg");
    check_like(p[i], v[i], "exp_avg_sq");
    const Tensor vm = amsgrad ? vmax.at(i) : Tensor();
    TL_CHECK(!amsgrad || vm.defined(), "fused optimizer step: amsgrad needs max_exp_avg_sqs");
    check_like(p[i], vm, "max_exp_avg_sq");
    const double step = increment_step(s[i]);
    auto fn = pick<decltype(&kernels::on_host::fused_adam_cuda)>(p[i], &kernels::on_host::fused_adam_cuda,
                                                                  TL_CUDA_KERNEL(&kernels::fused_adam_cuda));
    {
      py::gil_scoped_release nogil;
      fn(p[i], g[i], m[i], v[i], vm, step, args);
    }
    bump(p[i]);
    bump(m[i]);
    bump(v[i]);
    bump(vm);
  }
}

// Returns the momentum buffers (new ones made here, as clones of the gradients, where a state had None).
py::list fused_sgd(const py::list& params, const py::list& grads, const py::list& momentum_buffers, double lr,
                   double momentum, double dampening, double weight_decay, bool nesterov, bool maximize) {
  const auto p = tensors(params, "params", false), g = tensors(grads, "grads", false);
  auto bufs = tensors(momentum_buffers, "momentum_buffers", true);
  const size_t n = p.size();
  TL_CHECK_VALUE(g.size() == n && (bufs.empty() || bufs.size() == n), "fused optimizer step: expected lists of ",
                 n, " tensors");
  py::list out;
  for (size_t i = 0; i < n; ++i) {
    check_like(p[i], g[i], "grad");
    Tensor buf = momentum != 0 && !bufs.empty() ? bufs[i] : Tensor();
    const bool first = momentum != 0 && !buf.defined();
    if (first) buf = empty_tensor(p[i].sizes(), p[i].scalar_type(), p[i].device());
    check_like(p[i], buf, "momentum_buffer");
    const SgdArgs args{lr, momentum, dampening, weight_decay, nesterov, maximize, first};
    auto fn = pick<decltype(&kernels::on_host::fused_sgd_cuda)>(p[i], &kernels::on_host::fused_sgd_cuda,
                                                                 TL_CUDA_KERNEL(&kernels::fused_sgd_cuda));
    {
      py::gil_scoped_release nogil;
      fn(p[i], g[i], buf, args);
    }
    bump(p[i]);
    if (!first) bump(buf);
    out.append(buf.defined() ? py::reinterpret_steal<py::object>(wrap(buf)) : py::none());
  }
  return out;
}

// The updates of _fused_update_ (kernels/Optim.h's TL_FUSED_UPDATES): each kernel's number of tensors (the
// parameter, its gradient, then states) and of scalars.
struct UpdateKind {
  const char* name;
  size_t n_tensors, n_scalars;
  FusedUpdateFn host, cuda;
};
#define TL_UPDATE_KIND(name, n_tensors, n_scalars) \
  {#name, n_tensors, n_scalars, &kernels::on_host::fused_##name##_cuda, TL_CUDA_KERNEL(&kernels::fused_##name##_cuda)},
const UpdateKind kUpdates[] = {TL_FUSED_UPDATES(TL_UPDATE_KIND)};
#undef TL_UPDATE_KIND
constexpr size_t kMaxUpdateTensors = 5;

void fused_update(const std::string& kind, const py::list& operands, const py::list& scalars) {
  const UpdateKind* k = nullptr;
  for (const UpdateKind& u : kUpdates) {
    if (kind == u.name) k = &u;
  }
  TL_CHECK_VALUE(k != nullptr, "_fused_update_: unknown update '", kind, "'");
  TL_CHECK_VALUE(operands.size() == k->n_tensors, "_fused_update_ ", kind, ": expected ", k->n_tensors,
                 " lists of tensors (params, grads, states), got ", operands.size());
  std::vector<std::vector<Tensor>> lists;
  for (size_t j = 0; j < k->n_tensors; ++j) {
    TL_CHECK_TYPE(py::isinstance<py::list>(operands[j]), "_fused_update_ ", kind, ": operand ", j, " must be a list");
    lists.push_back(tensors(operands[j].cast<py::list>(), j == 0 ? "params" : j == 1 ? "grads" : "states", j >= 2));
  }
  const size_t n = lists[0].size();
  const auto values = scalars.cast<std::vector<std::vector<double>>>();
  bool sized = values.size() == n;
  for (const auto& l : lists) sized = sized && l.size() == n;
  for (const auto& v : values) sized = sized && v.size() == k->n_scalars;
  TL_CHECK_VALUE(sized, "_fused_update_ ", kind, ": expected lists of ", n, " tensors and ", n, " lists of ",
                 k->n_scalars, " scalars");
  for (size_t i = 0; i < n; ++i) {
    Tensor t[kMaxUpdateTensors];
    for (size_t j = 0; j < k->n_tensors; ++j) {
      t[j] = lists[j][i];
      if (j > 0) check_like(t[0], t[j], j == 1 ? "grad" : "a state");
    }
    const FusedUpdateFn fn = pick<FusedUpdateFn>(t[0], k->host, k->cuda);
    {
      py::gil_scoped_release nogil;
      fn(t, values[i].data());
    }
    for (size_t j = 0; j < k->n_tensors; ++j) {
      if (j != 1) bump(t[j]);
    }
  }
}

// PyTorch's torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale): every gradient
// multiplied by inv_scale in place, one pass each, and found_inf set to 1 if any had an inf or NaN.
void amp_unscale(const py::list& grads, py::handle found_inf_h, py::handle inv_scale_h) {
  const char* op = "_amp_foreach_non_finite_check_and_unscale_";
  TL_CHECK_TYPE(is_tensor(found_inf_h.ptr()) && is_tensor(inv_scale_h.ptr()), op,
                ": found_inf and inv_scale must be Tensors");
  const Tensor found_inf = unwrap(found_inf_h.ptr()), inv_scale = unwrap(inv_scale_h.ptr());
  TL_CHECK(found_inf.numel() == 1 && found_inf.scalar_type() == ScalarType::Float, op,
           ": found_inf must be a one-element float32 tensor, got ", scalar_type_name(found_inf.scalar_type()),
           " of size ", to_string(found_inf.sizes()));
  TL_CHECK(inv_scale.numel() == 1 && inv_scale.scalar_type() == ScalarType::Float, op,
           ": inv_scale must be a one-element float32 tensor, got ", scalar_type_name(inv_scale.scalar_type()),
           " of size ", to_string(inv_scale.sizes()));
  TL_CHECK(inv_scale.device() == found_inf.device(), op, ": found_inf and inv_scale must be on one device, got ",
           to_string(found_inf.device()), " and ", to_string(inv_scale.device()));
  for (const Tensor& g : tensors(grads, "grads", false)) {
    TL_CHECK(g.device() == found_inf.device(), op, ": expected every gradient on ", to_string(found_inf.device()),
             ", got one on ", to_string(g.device()));
    TL_CHECK(g.is_contiguous(), op, ": expected contiguous gradients");
    const auto fn = pick<void (*)(const Tensor&, const Tensor&, const Tensor&)>(
        g, &kernels::on_host::amp_unscale_cuda, TL_CUDA_KERNEL(&kernels::amp_unscale_cuda));
    {
      py::gil_scoped_release nogil;
      fn(g, found_inf, inv_scale);
    }
    bump(g);
  }
  bump(found_inf);
}

}  // namespace

void init_optim(py::module_& m) {
  m.def("_fused_adam_", &fused_adam, py::arg("params"), py::arg("grads"), py::arg("exp_avgs"),
        py::arg("exp_avg_sqs"), py::arg("max_exp_avg_sqs"), py::arg("state_steps"), py::arg("lr"), py::arg("beta1"),
        py::arg("beta2"), py::arg("weight_decay"), py::arg("eps"), py::arg("amsgrad"), py::arg("maximize"),
        py::arg("decoupled_weight_decay"),
        "Adam's (AdamW's with decoupled_weight_decay) update of every parameter in place, one fused pass each; "
        "increments each state step first.");
  m.def("_fused_sgd_", &fused_sgd, py::arg("params"), py::arg("grads"), py::arg("momentum_buffers"), py::arg("lr"),
        py::arg("momentum"), py::arg("dampening"), py::arg("weight_decay"), py::arg("nesterov"), py::arg("maximize"),
        "SGD's update of every parameter in place, one fused pass each; returns the momentum buffers (new ones "
        "where None was given).");
  m.def("_amp_foreach_non_finite_check_and_unscale_", &amp_unscale, py::arg("grads"), py::arg("found_inf"),
        py::arg("inv_scale"),
        "Multiplies every gradient by inv_scale in place (one fused pass each) and sets found_inf to 1 if any "
        "had an inf or NaN (GradScaler.unscale_).");
  m.def("_fused_update_", &fused_update, py::arg("kind"), py::arg("operands"), py::arg("scalars"),
        "The fused update `kind` (adagrad, rmsprop, adadelta, adamax, nadam, radam, asgd, rprop) of every "
        "parameter in place, one pass each: operands are the lists of params, grads and each state, scalars one "
        "list per parameter (kernels/gpu/optim.inc lists both).");
}

}  // namespace torchlite::python
