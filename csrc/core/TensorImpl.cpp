#include "core/TensorImpl.h"

#include "core/Error.h"

namespace torchlite {

static TensorImpl::PyObjReleaseHook g_pyobj_release_hook = nullptr;

void TensorImpl::set_pyobj_release_hook(PyObjReleaseHook hook) { g_pyobj_release_hook = hook; }

std::atomic<int64_t>& TensorImpl::live_counter() {
  static std::atomic<int64_t> count{0};
  return count;
}

TensorImpl::~TensorImpl() { live_counter().fetch_sub(1, std::memory_order_relaxed); }

void TensorImpl::release_last_reference() {
  if (owns_pyobj_ && g_pyobj_release_hook) {
    g_pyobj_release_hook(this);  // hands the tensor back to its Python object
    return;
  }
  delete this;
}

int64_t checked_numel(IntArrayRef sizes) {
  int64_t n = 1;
  bool overflow = false;  // once overflowed, always (as PyTorch: (2**62, 2**62, 0) is refused, (0, 2**62, 2**62) not)
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(n, s, &n);
  TL_CHECK(!overflow, "numel: integer multiplication overflow");
  return n;
}

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  const int64_t n = checked_numel(sizes);  // before any change: a refused geometry leaves the tensor as it was
  sizes_.assign(sizes);
  strides_.assign(strides);
  offset_ = offset;
  numel_ = n;
  refresh_contiguous();
}

void TensorImpl::shallow_copy_from(const TensorImpl& src) {
  if (&src == this) return;
  storage_ = src.storage_;
  sizes_ = src.sizes_;
  strides_ = src.strides_;
  offset_ = src.offset_;
  numel_ = src.numel_;
  dtype_ = src.dtype_;
  device_ = src.device_;
  is_contiguous_ = src.is_contiguous_;
  is_conj_ = src.is_conj_;
}

void TensorImpl::set_contiguous_geometry(IntArrayRef sizes) {
  const int64_t numel = checked_numel(sizes);
  sizes_.assign(sizes);
  strides_.resize(sizes.size());
  int64_t n = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides_[i] = n;
    // Only an empty tensor's strides can overflow here, and they are never used: saturate.
    if (__builtin_mul_overflow(n, sizes[i] > 1 ? sizes[i] : 1, &n)) n = INT64_MAX;
  }
  numel_ = numel;
  offset_ = 0;
  is_contiguous_ = true;
}

void TensorImpl::refresh_contiguous() {
  // PyTorch's rule: size-1 dims may have any stride; an empty tensor is contiguous.
  if (numel_ == 0) {
    is_contiguous_ = true;
    return;
  }
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      is_contiguous_ = false;
      return;
    }
    expected *= sizes_[i];
  }
  is_contiguous_ = true;
}

void TensorImpl::bump_version() { version_counter()->version.fetch_add(1, std::memory_order_relaxed); }

const intrusive_ptr<VersionCounter>& TensorImpl::version_counter() {
  if (!version_) version_ = intrusive_ptr<VersionCounter>::make();
  return version_;
}

}  // namespace torchlite
