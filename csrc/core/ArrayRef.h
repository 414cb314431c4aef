#pragma once
// Non-owning views of contiguous arrays (sizes, strides, tensor lists) and a
// small vector that keeps up to 6 dims inline.
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace torchlite {

template <typename T>
class ArrayRef {
 public:
  constexpr ArrayRef() : data_(nullptr), size_(0) {}
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
  constexpr ArrayRef(std::initializer_list<T> il) : data_(il.begin()), size_(il.size()) {}
  template <size_t N>
  constexpr ArrayRef(const T (&arr)[N]) : data_(arr), size_(N) {}
  template <size_t N>  // a backward node's grad_input_mask passed as a bool[N] argument
  constexpr ArrayRef(const std::array<T, N>& arr) : data_(arr.data()), size_(N) {}
  explicit ArrayRef(const T& one) : data_(&one), size_(1) {}

  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool equals(ArrayRef other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (!(data_[i] == other.data_[i])) return false;
    return true;
  }

 private:
  const T* data_;
  size_t size_;
};

using IntArrayRef = ArrayRef<int64_t>;

// "[2, 3]" as PyTorch prints shapes in error messages.
std::string to_string(IntArrayRef a);

// A vector of int64 with inline storage for the common case of <= 6 dims.
class DimVector {
 public:
  static constexpr size_t kInline = 6;
  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { assign(n, value); }
  DimVector(IntArrayRef a) { assign(a); }
  DimVector(std::initializer_list<int64_t> il) { assign(IntArrayRef(il.begin(), il.size())); }
  DimVector(const DimVector& o) { assign(o.ref()); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.ref());
    return *this;
  }
  DimVector(DimVector&& o) noexcept { move_from(o); }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) {
      release();
      move_from(o);
    }
    return *this;
  }
  ~DimVector() { release(); }

  void assign(size_t n, int64_t value) {
    resize(n);
    for (size_t i = 0; i < n; ++i) data_[i] = value;
  }
  void assign(IntArrayRef a) {
    resize(a.size());
    if (a.size()) std::memmove(data_, a.data(), a.size() * sizeof(int64_t));
  }
  void resize(size_t n) {
    if (n > cap_) grow(n);
    size_ = n;
  }
  void push_back(int64_t v) {
    if (size_ == cap_) grow(cap_ * 2);
    data_[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    push_back(0);
    for (size_t i = size_ - 1; i > pos; --i) data_[i] = data_[i - 1];
    data_[pos] = v;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) data_[i] = data_[i + 1];
    --size_;
  }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data_[i]; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t* begin() { return data_; }
  int64_t* end() { return data_ + size_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  IntArrayRef ref() const { return IntArrayRef(data_, size_); }
  operator IntArrayRef() const { return ref(); }

 private:
  void grow(size_t n) {
    size_t cap = n < 2 * cap_ ? 2 * cap_ : n;
    auto* p = new int64_t[cap];
    if (size_) std::memcpy(p, data_, size_ * sizeof(int64_t));
    release();
    data_ = p;
    cap_ = cap;
  }
  void release() {
    if (data_ != inline_) delete[] data_;
    data_ = inline_;
    cap_ = kInline;
  }
  void move_from(DimVector& o) {
    if (o.data_ == o.inline_) {
      data_ = inline_;
      cap_ = kInline;
      size_ = o.size_;
      std::memcpy(inline_, o.inline_, size_ * sizeof(int64_t));
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.data_ = o.inline_;
      o.cap_ = kInline;
    }
    o.size_ = 0;
  }

  int64_t inline_[kInline];
  int64_t* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = kInline;
};

}  // namespace torchlite
