#pragma once
// The tensor object: storage, geometry, dtype, device, version counter, view
// base, the autograd-meta slot and the Python-object slot.
#include <atomic>
#include <cstdint>
#include <memory>

#include "core/ArrayRef.h"
#include "core/Device.h"
#include "core/ScalarType.h"
#include "core/Storage.h"
#include "core/intrusive_ptr.h"

namespace torchlite {

// Shared by a tensor, its views and its detach()ed aliases; bumped by every
// in-place or out= write. Created lazily: a tensor nobody wrote to or viewed has none.
struct VersionCounter final : intrusive_target {
  std::atomic<uint32_t> version{0};
};

// Filled in by the autograd issue; the slot exists now so the layout is final.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
};

// Inference mode (torchlite.inference_mode), per thread. Tensors made while it is on are inference
// tensors: no version bookkeeping, and outside inference mode they may not be written in place or
// saved for backward (autograd checks).
inline bool& inference_mode_flag() {
  static thread_local bool enabled = false;
  return enabled;
}

// The product of `sizes`, refused with PyTorch's RuntimeError "numel: integer multiplication overflow" when it
// does not fit int64 (an expanded view's sizes, e.g. expand(2**32, 2**32)). Every geometry goes through it.
int64_t checked_numel(IntArrayRef sizes);

class TensorImpl final : public intrusive_target {
 public:
  TensorImpl(Storage storage, ScalarType dtype, Device device)
      : storage_(std::move(storage)), dtype_(dtype), device_(device), is_inference_(inference_mode_flag()) {
    live_counter().fetch_add(1, std::memory_order_relaxed);
  }
  ~TensorImpl() override;
  // How many TensorImpls exist now (leak tests).
  static int64_t live_count() { return live_counter().load(std::memory_order_relaxed); }

  // geometry
  IntArrayRef sizes() const { return sizes_.ref(); }
  IntArrayRef strides() const { return strides_.ref(); }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return offset_; }
  bool is_contiguous() const { return is_contiguous_; }
  void set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  void set_contiguous_geometry(IntArrayRef sizes);  // strides recomputed, offset 0

  // dtype, device, data
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  const Storage& storage() const { return storage_; }
  void set_storage(Storage s) { storage_ = std::move(s); }
  // `x.data = y`: x takes y's storage, geometry, dtype and device; x keeps its identity, version
  // counter, autograd meta and Python object (PyTorch's set_data).
  void shallow_copy_from(const TensorImpl& src);
  char* data() const {
    return static_cast<char*>(storage_->data()) + offset_ * element_size(dtype_);
  }

  // versions and views
  uint32_t version() const { return version_ ? version_->version.load(std::memory_order_relaxed) : 0; }
  void bump_version();
  const intrusive_ptr<VersionCounter>& version_counter();  // creates it on first use
  void share_version_counter(TensorImpl& other) { version_ = other.version_counter(); }
  const intrusive_ptr<TensorImpl>& view_base() const { return view_base_; }
  void set_view_base(intrusive_ptr<TensorImpl> base) { view_base_ = std::move(base); }
  // A view: the version at which its autograd history was last made current. A view whose base was
  // written in place since (the shared version moved on) is stale: autograd regenerates its history.
  // Views made under no_grad are not tracked (PyTorch's views made in no-grad mode do not follow their base).
  void set_view_version(uint32_t v) { view_version_ = v; }
  void set_view_tracked(bool tracked) { view_tracked_ = tracked; }
  bool view_is_stale() const { return view_tracked_ && version() != view_version_; }
  bool is_inference() const { return is_inference_; }
  void set_inference(bool v) { is_inference_ = v; }

  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool v) { is_wrapped_number_ = v; }

  // The conjugate bit (complex dtypes only): the tensor's values are the complex conjugates of the memory it
  // views (`conj()` returns such a view; `resolve_conj()` computes it). Views of it inherit the bit
  // (make_alias); every kernel reads memory as it is, so the generated ops resolve conjugated inputs first
  // (stage/Conj.h) and write conjugated targets through copy_, which alone reads the bit itself.
  bool is_conj() const { return is_conj_; }
  void set_conj(bool v) { is_conj_ = v; }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) { autograd_meta_ = std::move(m); }

  // Python object slot: one C++ tensor is one Python object. When owns_pyobj is
  // true, C++ keeps the Python object alive (a subclass instance, or one with
  // attributes, whose last Python reference went away while C++ still held the tensor).
  void* pyobj() const { return pyobj_; }
  void set_pyobj(void* obj) { pyobj_ = obj; }
  bool owns_pyobj() const { return owns_pyobj_; }
  void set_owns_pyobj(bool v) { owns_pyobj_ = v; }

  // Installed by the Python bindings: called instead of deleting the tensor when
  // the last C++ reference goes away while C++ owns its Python object.
  using PyObjReleaseHook = void (*)(TensorImpl*);
  static void set_pyobj_release_hook(PyObjReleaseHook hook);

 private:
  void release_last_reference() override;
  void refresh_contiguous();
  static std::atomic<int64_t>& live_counter();

  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  Device device_;
  bool is_contiguous_ = true;
  bool is_wrapped_number_ = false;
  bool owns_pyobj_ = false;
  bool view_tracked_ = false;
  bool is_inference_ = false;
  bool is_conj_ = false;
  uint32_t view_version_ = 0;
  intrusive_ptr<VersionCounter> version_;
  intrusive_ptr<TensorImpl> view_base_;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  void* pyobj_ = nullptr;
};

}  // namespace torchlite
