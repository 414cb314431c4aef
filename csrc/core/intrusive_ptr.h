#pragma once
// Intrusive reference counting: the count lives in the object, so a raw pointer
// can be turned back into an owning pointer (needed by the Python object slot).
#include <atomic>
#include <cstdint>
#include <utility>

namespace torchlite {

class intrusive_target {
 public:
  intrusive_target() = default;
  intrusive_target(const intrusive_target&) = delete;
  intrusive_target& operator=(const intrusive_target&) = delete;
  uint32_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

 protected:
  virtual ~intrusive_target() = default;
  // Called when the count reaches zero; the default deletes the object.
  // TensorImpl overrides it to hand a C++-owned Python object back to Python.
  virtual void release_last_reference() { delete this; }

 private:
  template <typename T> friend class intrusive_ptr;
  friend void intrusive_incref(intrusive_target* p);
  friend void intrusive_decref(intrusive_target* p);
  mutable std::atomic<uint32_t> refcount_{0};
};

inline void intrusive_incref(intrusive_target* p) { p->refcount_.fetch_add(1, std::memory_order_relaxed); }
inline void intrusive_decref(intrusive_target* p) {
  if (p->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) p->release_last_reference();
}

template <typename T>
class intrusive_ptr {
 public:
  intrusive_ptr() noexcept : p_(nullptr) {}
  intrusive_ptr(std::nullptr_t) noexcept : p_(nullptr) {}
  // Takes a new reference to p.
  explicit intrusive_ptr(T* p) noexcept : p_(p) {
    if (p_) intrusive_incref(p_);
  }
  // Adopts a reference the caller already owns.
  static intrusive_ptr adopt(T* p) noexcept {
    intrusive_ptr r;
    r.p_ = p;
    return r;
  }
  template <typename... Args>
  static intrusive_ptr make(Args&&... args) {
    return intrusive_ptr(new T(std::forward<Args>(args)...));
  }
  intrusive_ptr(const intrusive_ptr& o) noexcept : p_(o.p_) {
    if (p_) intrusive_incref(p_);
  }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U>
  intrusive_ptr(intrusive_ptr<U>&& o) noexcept : p_(o.release()) {}
  intrusive_ptr& operator=(const intrusive_ptr& o) noexcept {
    intrusive_ptr(o).swap(*this);
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& o) noexcept {
    intrusive_ptr(std::move(o)).swap(*this);
    return *this;
  }
  ~intrusive_ptr() {
    if (p_) intrusive_decref(p_);
  }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }
  void reset() noexcept { intrusive_ptr().swap(*this); }
  // Gives up ownership without decrementing.
  T* release() noexcept {
    T* p = p_;
    p_ = nullptr;
    return p;
  }
  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  bool operator==(const intrusive_ptr& o) const { return p_ == o.p_; }
  bool operator!=(const intrusive_ptr& o) const { return p_ != o.p_; }

 private:
  T* p_;
};

}  // namespace torchlite
