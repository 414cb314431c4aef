#pragma once
// A reference-counted block of device memory shared by a tensor and its views.
#include <cstddef>
#include <cstring>

#include "core/Allocator.h"
#include "core/intrusive_ptr.h"

namespace torchlite {

class StorageImpl final : public intrusive_target {
 public:
  StorageImpl(size_t nbytes, Device device)
      : allocator_(get_allocator(device)),
        data_(nbytes ? allocator_->allocate(nbytes, device) : nullptr),
        nbytes_(nbytes),
        device_(device) {}
  // Memory owned elsewhere (a NumPy array): `release(context)` runs when the
  // last tensor using it goes away.
  StorageImpl(void* data, size_t nbytes, Device device, void (*release)(void*), void* context)
      : allocator_(nullptr), data_(data), nbytes_(nbytes), device_(device), release_(release), context_(context) {}
  ~StorageImpl() override {
    if (release_) {
      release_(context_);
    } else if (data_) {
      allocator_->deallocate(data_, device_);
    }
  }
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // Memory owned elsewhere: how it is released (null for the allocator's own), and with what.
  using Release = void (*)(void*);
  Release release_fn() const { return release_; }
  void* release_context() const { return context_; }
  // Moves the bytes into `data` (at least nbytes(), owned elsewhere: share_memory_), which every tensor of this
  // storage then reads and writes; the old block is freed, `release(context)` frees the new one.
  void move_to(void* data, Release release, void* context) {
    if (nbytes_) std::memcpy(data, data_, nbytes_);
    if (release_) {
      release_(context_);
    } else if (data_) {
      allocator_->deallocate(data_, device_);
    }
    allocator_ = nullptr;
    data_ = data;
    release_ = release;
    context_ = context;
  }

 private:
  Allocator* allocator_;
  void* data_;
  size_t nbytes_;
  Device device_;
  void (*release_)(void*) = nullptr;
  void* context_ = nullptr;
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace torchlite
