#include "core/TensorFactory.h"

#include "core/CudaHooks.h"
#include "core/SharedMemory.h"

#include <cstring>
#include <limits>
#include <utility>

namespace torchlite {

int64_t wrap_dim(int64_t d, int64_t ndim) {
  int64_t n = ndim > 0 ? ndim : 1;  // a 0-dim tensor accepts dim 0 and -1
  TL_CHECK_INDEX(d >= -n && d < n, "Dimension out of range (expected to be in range of [", -n, ", ", n - 1,
                 "], but got ", d, ")");
  return d < 0 ? d + n : d;
}

int64_t Tensor::wrap_dim(int64_t d) const { return torchlite::wrap_dim(d, dim()); }

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t n = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = n;
    // Only an empty tensor's strides can overflow here, and they are never used: saturate.
    if (__builtin_mul_overflow(n, sizes[i] > 1 ? sizes[i] : 1, &n)) n = INT64_MAX;
  }
  return strides;
}

int64_t compute_numel(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s != 0 && n > std::numeric_limits<int64_t>::max() / s) {
      TL_ERROR("Storage size calculation overflowed with sizes=", sizes);
    }
    n *= s;
  }
  return n;
}

void check_wrapped_number_fits(const char* op, const Tensor& t, ScalarType dtype) {
  if (t.defined() && t.is_wrapped_number()) check_scalar_fits(op, item(t), dtype);
}

bool storage_nbytes_needed(IntArrayRef sizes, IntArrayRef strides, int64_t offset, int64_t itemsize,
                           int64_t* nbytes) {
  *nbytes = 0;
  for (int64_t s : sizes)
    if (s == 0) return true;
  int64_t extent = offset;  // the last element's index, then the element count
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t term;
    if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &term) || __builtin_add_overflow(extent, term, &extent))
      return false;
  }
  return !__builtin_add_overflow(extent, int64_t{1}, &extent) && !__builtin_mul_overflow(extent, itemsize, nbytes);
}

void check_sizes_nonnegative(const char* op, IntArrayRef sizes) {
  for (int64_t s : sizes) {
    TL_CHECK(s >= 0, op, "(): Trying to create tensor with negative dimension ", s, ": ", sizes);
  }
}

static Storage make_storage(int64_t numel, ScalarType dtype, Device device) {
  int64_t itemsize = element_size(dtype);
  TL_CHECK(numel <= std::numeric_limits<int64_t>::max() / itemsize,
           "Storage size calculation overflowed: ", numel, " elements of ", itemsize, " bytes");
  return Storage::make(static_cast<size_t>(numel * itemsize), device);
}

// A new tensor's device: "cuda" without an index is the current CUDA device, as in PyTorch (a tensor's
// device always has its index, so "cuda" and "cuda:0" tensors meet on one device).
static Device concrete(Device device) {
  if (device.is_cuda() && device.index < 0) device.index = static_cast<int8_t>(cuda::current_device());
  return device;
}

Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  check_sizes_nonnegative("empty", sizes);
  device = concrete(device);
  int64_t numel = compute_numel(sizes);
  auto impl = intrusive_ptr<TensorImpl>::make(make_storage(numel, dtype, device), dtype, device);
  impl->set_contiguous_geometry(sizes);
  return Tensor(std::move(impl));
}

Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  check_sizes_nonnegative("empty_strided", sizes);
  device = concrete(device);
  TL_CHECK(sizes.size() == strides.size(), "empty_strided: mismatch in length of strides and shape");
  int64_t extent = 1;  // elements needed: 1 + sum (size-1)*stride
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TL_CHECK(strides[i] >= 0, "empty_strided: negative strides are not supported, got ", strides);
    if (sizes[i] == 0) empty = true;
    extent += (sizes[i] - 1) * strides[i];
  }
  auto impl = intrusive_ptr<TensorImpl>::make(make_storage(empty ? 0 : extent, dtype, device), dtype, device);
  impl->set_geometry(sizes, strides, 0);
  return Tensor(std::move(impl));
}

Tensor empty_like_tensor(const Tensor& t) { return empty_tensor(t.sizes(), t.scalar_type(), t.device()); }

Tensor make_alias(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  TensorImpl* b = base.impl();
  auto impl = intrusive_ptr<TensorImpl>::make(b->storage(), b->dtype(), b->device());
  impl->set_geometry(sizes, strides, storage_offset);
  impl->set_inference(b->is_inference());
  impl->set_conj(b->is_conj());  // a view of a conjugated view is one too
  return Tensor(std::move(impl));
}

Tensor scalar_to_tensor(const Scalar& s, bool wrapped) {
  ScalarType dtype = s.type();
  Tensor t = empty_tensor({}, dtype);
  switch (dtype) {
    case ScalarType::Bool: *t.data<bool>() = s.to_bool(); break;
    case ScalarType::Int64: *t.data<int64_t>() = s.to_long(); break;
    case ScalarType::ComplexDouble: *t.data<Complex<double>>() = s.to_complex(); break;
    default: *t.data<double>() = s.to_double(); break;
  }
  t.impl()->set_wrapped_number(wrapped);
  return t;
}

Scalar item(const Tensor& t) {
  TL_CHECK(t.numel() == 1, "a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
  const char* p = static_cast<const char*>(t.data_ptr());
  alignas(16) char host[16];
  if (t.device().is_cuda()) {  // one element copied to the host (this waits for the device)
    cuda::memcpy(host, p, static_cast<size_t>(t.element_size()), /*non_blocking=*/false);
    p = host;
  }
  switch (t.scalar_type()) {
    case ScalarType::Bool: return Scalar(*reinterpret_cast<const bool*>(p));
    case ScalarType::UInt8: return Scalar(int64_t(*reinterpret_cast<const uint8_t*>(p)));
    case ScalarType::Int8: return Scalar(int64_t(*reinterpret_cast<const int8_t*>(p)));
    case ScalarType::Int16: return Scalar(int64_t(*reinterpret_cast<const int16_t*>(p)));
    case ScalarType::Int32: return Scalar(int64_t(*reinterpret_cast<const int32_t*>(p)));
    case ScalarType::Int64: return Scalar(*reinterpret_cast<const int64_t*>(p));
    case ScalarType::Half: return Scalar(double(float(*reinterpret_cast<const Half*>(p))));
    case ScalarType::BFloat16: return Scalar(double(float(*reinterpret_cast<const BFloat16*>(p))));
    case ScalarType::Float: return Scalar(double(*reinterpret_cast<const float*>(p)));
    case ScalarType::Double: return Scalar(*reinterpret_cast<const double*>(p));
    case ScalarType::UInt16: return Scalar(int64_t(*reinterpret_cast<const uint16_t*>(p)));
    case ScalarType::UInt32: return Scalar(int64_t(*reinterpret_cast<const uint32_t*>(p)));
    // Past int64's max it wraps to a negative int64; Python's item() converts it back (PyTensor.cpp).
    case ScalarType::UInt64: return Scalar(static_cast<int64_t>(*reinterpret_cast<const uint64_t*>(p)));
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble: {  // a conjugated view's value is its memory's conjugate
      Complex<double> z = t.scalar_type() == ScalarType::ComplexFloat
                              ? Complex<double>(*reinterpret_cast<const Complex<float>*>(p))
                              : *reinterpret_cast<const Complex<double>*>(p);
      if (t.is_conj()) z = Complex<double>(z.real(), -z.imag());
      return Scalar(z);
    }
    default: TL_ERROR("item(): undefined dtype");
  }
}

void resize_tensor(const Tensor& t, IntArrayRef sizes) {
  check_sizes_nonnegative("resize_", sizes);
  TensorImpl* impl = t.impl();
  int64_t numel = compute_numel(sizes);
  size_t needed = static_cast<size_t>(numel * element_size(impl->dtype()));
  const bool grows = needed > impl->storage()->nbytes();
  // checked before the geometry changes: a refused resize leaves the tensor as it was
  TL_CHECK(!grows || is_resizable(*impl->storage()), "Trying to resize storage that is not resizable");
  impl->set_contiguous_geometry(sizes);
  if (grows) impl->set_storage(make_storage(numel, impl->dtype(), impl->device()));
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  DimVector order;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1) order.push_back(d);
  // Sort the dims by stride, innermost first (insertion sort: few dims).
  for (size_t i = 1; i < order.size(); ++i)
    for (size_t j = i; j > 0 && t.strides()[order[j]] < t.strides()[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
  int64_t expected = 1;
  for (size_t i = 0; i < order.size(); ++i) {
    if (t.strides()[order[i]] != expected) return false;
    expected *= t.sizes()[order[i]];
  }
  return true;
}

bool has_internal_overlap(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] > 1 && t.strides()[d] == 0) return true;
  return false;
}

void check_no_internal_overlap(const Tensor& out) {
  TL_CHECK(!has_internal_overlap(out), "unsupported operation: more than one element of the written-to tensor "
           "refers to a single memory location. Please clone() the tensor before performing the operation.");
}

void check_no_partial_overlap(const Tensor& out, const Tensor& in) {
  TL_CHECK(mem_overlap(out, in) != MemOverlap::Partial, "unsupported operation: some elements of the input "
           "tensor and the written-to tensor refer to a single memory location. Please clone() the tensor "
           "before performing the operation.");
}

MemOverlap mem_overlap(const Tensor& a, const Tensor& b) {
  if (a.is_same(b)) return MemOverlap::Full;
  if (a.numel() == 0 || b.numel() == 0) return MemOverlap::No;
  if (a.impl()->storage().get() != b.impl()->storage().get()) return MemOverlap::No;
  if (!is_non_overlapping_and_dense(a) || !is_non_overlapping_and_dense(b)) return MemOverlap::TooHard;
  const char* a0 = static_cast<const char*>(a.data_ptr());
  const char* b0 = static_cast<const char*>(b.data_ptr());
  const char* a1 = a0 + a.numel() * a.element_size();
  const char* b1 = b0 + b.numel() * b.element_size();
  if (a0 == b0 && a1 == b1)
    return a.strides().equals(b.strides()) && a.sizes().equals(b.sizes()) ? MemOverlap::Full : MemOverlap::Partial;
  return a0 < b1 && b0 < a1 ? MemOverlap::Partial : MemOverlap::No;
}

}  // namespace torchlite
