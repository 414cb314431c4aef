#pragma once
// Tensor: a handle to a TensorImpl. It carries metadata accessors only; every
// operator is a free function (torchlite::add(a, b)), declared in its own header
// under generated/ops/, so adding an op never recompiles code that uses Tensor.
#include <cstdint>

#include "core/Error.h"
#include "core/TensorImpl.h"

namespace torchlite {

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl_ptr() const { return impl_; }

  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t dim() const { return impl_->dim(); }
  int64_t size(int64_t d) const { return impl_->sizes()[wrap_dim(d)]; }
  int64_t stride(int64_t d) const { return impl_->strides()[wrap_dim(d)]; }
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  int64_t element_size() const { return torchlite::element_size(impl_->dtype()); }
  Device device() const { return impl_->device(); }
  bool is_cuda() const { return impl_->device().is_cuda(); }
  bool is_wrapped_number() const { return impl_->is_wrapped_number(); }
  bool is_conj() const { return impl_->is_conj(); }  // a lazily conjugated view (TensorImpl::is_conj)
  void* data_ptr() const { return impl_->data(); }
  template <typename T>
  T* data() const { return reinterpret_cast<T*>(impl_->data()); }

  uint32_t version() const { return impl_->version(); }
  void bump_version() const { impl_->bump_version(); }
  bool is_view() const { return static_cast<bool>(impl_->view_base()); }
  bool requires_grad() const {
    auto* m = impl_->autograd_meta();
    return m && m->requires_grad();
  }

  // Wraps a possibly negative dim into [0, dim()), or raises IndexError as PyTorch does.
  int64_t wrap_dim(int64_t d) const;

  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

 private:
  intrusive_ptr<TensorImpl> impl_;
};

// "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
int64_t wrap_dim(int64_t d, int64_t ndim);

}  // namespace torchlite
