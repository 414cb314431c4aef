#include "dispatch/Meta.h"

#include <algorithm>

#include "autograd/GradMode.h"
#include "dispatch/KernelTable.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/copy.h"

namespace torchlite {

static std::string op_name(const OpInfo& op) {
  std::string s = op.name;
  if (op.overload[0]) s += std::string(".") + op.overload;
  return s;
}

std::atomic<bool> g_gpu_kernels_on_host{false};

void check_emulated_device(const OpInfo& op, Device device) {
  const int current = cuda::current_device();
  // index -1 is a factory's "cuda": the current device
  TL_CHECK(device.index < 0 || device.index == current, op_name(op), ": its CUDA kernel would run on cuda:", current,
           " with its tensors on ", to_string(device), " (no device guard)");
}

void throw_missing_kernel(const OpInfo& op, Device device, const bool* available) {
  std::string have;
  for (int i = 0; i < kNumDeviceTypes; ++i) {
    if (!available[i]) continue;
    if (!have.empty()) have += ", ";
    have += device_type_name(static_cast<DeviceType>(i));
  }
  throw_error(ErrorKind::NotImplemented,
              str("Could not run '", op_name(op), "' with arguments from the '", device_type_name(device.type),
                  "' device: it has kernels for ", have.empty() ? "no device" : have, " only"));
}

void throw_dtype_not_implemented(const char* op, ScalarType dtype) {
  throw_error(ErrorKind::NotImplemented, str("\"", op, "\" not implemented for '", scalar_type_name(dtype), "'"));
}

// Before a write into t (in place, out=): an inference tensor only inside inference mode, and then without
// version bookkeeping (it has none); any other tensor's version moves on.
static void write_check(const Tensor& t) {
  if (TL_UNLIKELY(t.impl()->is_inference())) {
    TL_CHECK(inference_mode_flag(), "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
             "make a clone to get a normal tensor before doing inplace update.See "
             "https://github.com/pytorch/rfcs/pull/17 for more details.");
    return;
  }
  t.bump_version();
}

// A 0-dim CPU tensor may join tensors on any device; anything else must match.
static void check_device(const OpInfo& op, Device expected, const Tensor& t) {
  if (!t.defined() || t.device() == expected || (t.device().is_cpu() && t.dim() == 0)) return;
  TL_ERROR("Expected all tensors to be on the same device, but found at least two devices, ", to_string(expected),
           " and ", to_string(t.device()), "! (in ", op_name(op), ")");
}

Device common_device(const OpInfo& op, std::initializer_list<const Tensor*> tensors) {
  // The device of the first tensor that is not a 0-dim CPU tensor (else of the first tensor).
  Device result;
  bool have = false;
  for (const Tensor* t : tensors) {
    if (!t->defined()) continue;
    if (!have || (result.is_cpu() && !(t->device().is_cpu() && t->dim() == 0))) {
      bool decisive = !(t->device().is_cpu() && t->dim() == 0);
      result = t->device();
      have = true;
      if (decisive) break;
    }
  }
  for (const Tensor* t : tensors) check_device(op, result, *t);
  return result;
}

DimVector broadcast_shapes(std::initializer_list<const Tensor*> tensors) {
  size_t ndim = 0;
  for (const Tensor* t : tensors)
    if (t->defined() && t->sizes().size() > ndim) ndim = t->sizes().size();
  DimVector out(ndim, 1);
  // Letters name the operands as PyTorch does: tensor a, tensor b.
  for (size_t i = 0; i < ndim; ++i) {
    size_t dim_from_end = ndim - 1 - i;
    int64_t size = 1;
    for (const Tensor* t : tensors) {
      if (!t->defined()) continue;
      IntArrayRef s = t->sizes();
      if (dim_from_end >= s.size()) continue;
      int64_t v = s[s.size() - 1 - dim_from_end];
      if (v == size || v == 1) continue;
      if (size == 1) {
        size = v;
        continue;
      }
      TL_ERROR("The size of tensor a (", size, ") must match the size of tensor b (", v,
               ") at non-singleton dimension ", i);
    }
    out[i] = size;
  }
  return out;
}

DimVector broadcast_sizes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    TL_CHECK(x == y || x == 1 || y == 1, "The size of tensor a (", x, ") must match the size of tensor b (", y,
             ") at non-singleton dimension ", k);
    out[k] = x == 1 ? y : x;
  }
  return out;
}

TensorMeta meta_broadcast(const OpInfo& op, std::initializer_list<const Tensor*> tensors, ScalarType dtype) {
  TensorMeta m;
  m.sizes = broadcast_shapes(tensors);
  m.dtype = dtype;
  m.device = common_device(op, tensors);
  return m;
}

static TensorMeta same_as_self(const OpInfo& op, const Tensor& self, std::initializer_list<const Tensor*> others,
                               ScalarType dtype, bool same_device) {
  TensorMeta m;
  m.sizes.assign(self.sizes());
  for (const Tensor* t : others) {
    if (!t->defined()) continue;
    IntArrayRef s = t->sizes();
    bool ok = s.size() <= m.sizes.size();
    for (size_t i = 0; ok && i < s.size(); ++i) {
      int64_t v = s[s.size() - 1 - i];
      ok = v == 1 || v == m.sizes[m.sizes.size() - 1 - i];
    }
    TL_CHECK(ok, op_name(op), ": the shape of the argument ", s, " must be broadcastable to the shape ",
             m.sizes.ref());
  }
  m.dtype = dtype;
  m.device = self.device();
  if (same_device)
    for (const Tensor* t : others) check_device(op, m.device, *t);
  return m;
}

TensorMeta meta_same_as_self(const OpInfo& op, const Tensor& self, std::initializer_list<const Tensor*> others,
                             ScalarType dtype) {
  return same_as_self(op, self, others, dtype, /*same_device=*/true);
}

// copy_ broadcasts src to self's shape from any device.
TensorMeta meta::copy_meta(const Tensor& self, const Tensor& src, bool non_blocking) {
  static constexpr OpInfo kCopy{"copy", "", "copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor"};
  (void)non_blocking;
  return same_as_self(kCopy, self, {&src}, self.scalar_type(), /*same_device=*/false);
}

uint64_t reduction_mask(const Tensor& self, std::optional<IntArrayRef> dim) {
  int64_t ndim = self.dim();
  if (!dim.has_value() || dim->empty()) return ~uint64_t(0);
  uint64_t mask = 0;
  for (int64_t d : *dim) {
    int64_t w = wrap_dim(d, ndim);
    TL_CHECK(!(mask >> w & 1), "dim ", w, " appears multiple times in the list of dims");
    mask |= uint64_t(1) << w;
  }
  return mask;
}

TensorMeta meta_reduction(const OpInfo& op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                          ScalarType dtype) {
  int64_t ndim = self.dim();
  uint64_t mask = reduction_mask(self, dim);
  TensorMeta m;
  for (int64_t i = 0; i < ndim; ++i) {
    bool reduced = mask >> i & 1;
    if (!reduced)
      m.sizes.push_back(self.size(i));
    else if (keepdim)
      m.sizes.push_back(1);
  }
  m.dtype = dtype;
  m.device = self.device();
  (void)op;
  return m;
}

const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::UInt8: return "unsigned char";
    case ScalarType::Int8: return "signed char";
    case ScalarType::Int16: return "short int";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "long int";
    case ScalarType::Half: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float: return "float";
    case ScalarType::Double: return "double";
    default: return scalar_type_name(t);
  }
}

void check_out_dtype(ScalarType expected, const Tensor& out) {
  TL_CHECK(out.scalar_type() == expected, "Expected out tensor to have dtype ", cpp_type_name(expected),
           ", but got ", cpp_type_name(out.scalar_type()), " instead");
}

void prepare_out(const OpInfo& op, const TensorMeta& meta, const Tensor& out) {
  TL_CHECK(out.device().type == meta.device.type,
           op_name(op), ": Expected out tensor to have device ", to_string(meta.device), ", but got ",
           to_string(out.device()), " instead");
  if (meta.exact_dtype) check_out_dtype(meta.dtype, out);
  TL_CHECK(meta.any_target_dtype || can_cast(meta.dtype, out.scalar_type()), "result type ", scalar_type_name(meta.dtype),
           " can't be cast to the desired output type ", scalar_type_name(out.scalar_type()));
  if (!out.sizes().equals(meta.sizes.ref())) resize_tensor(out, meta.sizes.ref());
  write_check(out);
}

void prepare_inplace(const OpInfo& op, const TensorMeta& meta, const Tensor& self) {
  TL_CHECK(self.sizes().equals(meta.sizes.ref()), "output with shape ", self.sizes(),
           " doesn't match the broadcast shape ", meta.sizes.ref());
  TL_CHECK(meta.any_target_dtype || can_cast(meta.dtype, self.scalar_type()), "result type ", scalar_type_name(meta.dtype),
           " can't be cast to the desired output type ", scalar_type_name(self.scalar_type()));
  TL_CHECK(self.device() == meta.device, op_name(op), ": Expected all tensors to be on the same device, but found ",
           to_string(self.device()), " and ", to_string(meta.device));
  write_check(self);
}

void record_view(const Tensor& view, const Tensor& base) {
  TensorImpl* v = view.impl();
  TensorImpl* b = base.impl();
  v->share_version_counter(*b);
  v->set_view_base(b->view_base() ? b->view_base() : base.impl_ptr());
  v->set_view_version(v->version());
  v->set_view_tracked(autograd::is_grad_enabled());
  v->set_inference(b->is_inference());  // a view is an inference tensor exactly when its base is
}

void prepare_inplace_for(const OpInfo& op, const Tensor& result, const Tensor& self) {
  TensorMeta m;
  m.sizes.assign(result.sizes());
  m.dtype = result.scalar_type();
  m.device = result.device();
  prepare_inplace(op, m, self);
}

void copy_result(const OpInfo& op, const Tensor& result, const Tensor& target, bool inplace, bool exact_dtype) {
  TensorMeta m;
  m.sizes.assign(result.sizes());
  m.dtype = result.scalar_type();
  m.device = result.device();
  m.exact_dtype = exact_dtype;
  if (inplace) {
    prepare_inplace(op, m, target);
  } else {
    prepare_out(op, m, target);
  }
  copy_cast(target, result);
}

}  // namespace torchlite
