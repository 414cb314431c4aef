// The views that change the dtype (dispatch: {any: ...}): Tensor.view(dtype), view_as_real, view_as_complex.
// Each is an alias of self's storage with another dtype and a geometry counted in the new element size. And
// _conj, the view with the conjugate bit flipped.
#include "core/TensorFactory.h"
#include "core/TensorImpl.h"
#include "kernels/_conj.h"
#include "kernels/view_as_complex.h"
#include "kernels/view_as_real.h"
#include "kernels/view_dtype.h"

namespace torchlite {

namespace {

// An alias of base's storage as `dtype` with the given geometry (in elements of dtype).
Tensor alias_as(const Tensor& base, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  TensorImpl* b = base.impl();
  auto impl = intrusive_ptr<TensorImpl>::make(b->storage(), dtype, b->device());
  impl->set_geometry(sizes, strides, offset);
  impl->set_inference(b->is_inference());
  return Tensor(std::move(impl));
}

}  // namespace

Tensor kernels::conj_view_any(const Tensor& self) {
  Tensor view = make_alias(self, self.sizes(), self.strides(), self.storage_offset());
  if (is_complex_type(self.scalar_type())) view.impl()->set_conj(!self.is_conj());
  return view;
}

Tensor kernels::view_dtype_any(const Tensor& self, ScalarType dtype) {
  const ScalarType from = self.scalar_type();
  if (from == dtype) return make_alias(self, self.sizes(), self.strides(), self.storage_offset());
  TL_CHECK(!self.is_conj(), "torch.Tensor.view is not supported for conjugate view tensors when converting to a "
           "different dtype.");
  const int64_t old_size = element_size(from), new_size = element_size(dtype);
  if (old_size == new_size) return alias_as(self, dtype, self.sizes(), self.strides(), self.storage_offset());
  const char* a = scalar_type_name(from);
  const char* b = scalar_type_name(dtype);
  TL_CHECK(self.dim() > 0, "self.dim() cannot be 0 to view ", a, " as ", b, " (different element sizes)");
  const int64_t last = self.dim() - 1;
  TL_CHECK(self.strides()[last] == 1, "self.stride(-1) must be 1 to view ", a, " as ", b,
           " (different element sizes), but got ", self.strides()[last]);
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset();
  if (new_size > old_size) {  // merge `ratio` elements of the last dim into one
    const int64_t ratio = new_size / old_size;
    TL_CHECK(sizes[last] % ratio == 0, "self.size(-1) must be divisible by ", ratio, " to view ", a, " as ", b,
             " (different element sizes), but got ", sizes[last]);
    TL_CHECK(offset % ratio == 0, "self.storage_offset() must be divisible by ", ratio, " to view ", a, " as ", b,
             " (different element sizes), but got ", offset);
    for (int64_t i = 0; i < last; ++i) {
      TL_CHECK(strides[i] % ratio == 0, "self.stride(", i, ") must be divisible by ", ratio, " to view ", a, " as ",
               b, " (different element sizes), but got ", strides[i]);
      strides[i] /= ratio;
    }
    sizes[last] /= ratio;
    offset /= ratio;
  } else {  // split each element of the last dim into `ratio`
    const int64_t ratio = old_size / new_size;
    for (int64_t i = 0; i < last; ++i) strides[i] *= ratio;
    sizes[last] *= ratio;
    offset *= ratio;
  }
  return alias_as(self, dtype, sizes.ref(), strides.ref(), offset);
}

Tensor kernels::view_as_real_any(const Tensor& self) {
  TL_CHECK(is_complex_type(self.scalar_type()), "view_as_real is only supported for complex tensors");
  TL_CHECK(!self.is_conj(), "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the resulting tensor "
           "will NOT alias the original.");
  DimVector sizes(self.sizes()), strides(self.strides());
  for (auto& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  return alias_as(self, to_real_type(self.scalar_type()), sizes.ref(), strides.ref(), self.storage_offset() * 2);
}

Tensor kernels::view_as_complex_any(const Tensor& self) {
  const ScalarType t = self.scalar_type();
  TL_CHECK(t == ScalarType::Float || t == ScalarType::Double,
           "view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: ",
           scalar_type_name(t));
  TL_CHECK(self.dim() > 0 && self.sizes()[self.dim() - 1] == 2, "Tensor must have a last dimension of size 2");
  TL_CHECK(self.strides()[self.dim() - 1] == 1, "Tensor must have a last dimension with stride 1");
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes.resize(sizes.size() - 1);
  strides.resize(strides.size() - 1);
  for (size_t i = 0; i < strides.size(); ++i)
    TL_CHECK(strides[i] % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension");
  for (auto& s : strides) s /= 2;
  TL_CHECK(self.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  return alias_as(self, to_complex_type(t), sizes.ref(), strides.ref(), self.storage_offset() / 2);
}

}  // namespace torchlite
