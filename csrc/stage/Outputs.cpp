#include "stage/Outputs.h"

#include "core/Error.h"
#include "core/TensorFactory.h"

#include "autograd/GradMode.h"
#include "kernels/ElementwiseIter.h"

namespace torchlite {

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

void check_out_dtype(ScalarType expected, const Tensor& out) {
  TL_CHECK(out.scalar_type() == expected, "Expected out tensor to have dtype ", cpp_type_name(expected),
           ", but got ", cpp_type_name(out.scalar_type()), " instead");
}

void check_write_overlap(const Tensor& out, bool internal_ok) {
  if (!internal_ok) check_no_internal_overlap(out);
}

void check_input_overlap(const Tensor& out, const Tensor& in, bool strict) {
  if (!in.defined()) return;
  if (!strict) return check_no_partial_overlap(out, in);
  const MemOverlap o = mem_overlap(out, in);
  TL_CHECK(o != MemOverlap::Full && o != MemOverlap::Partial, "unsupported operation: some elements of the input "
           "tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before "
           "performing the operation.");
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
