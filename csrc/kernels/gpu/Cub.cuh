#pragma once
// Glue between the hand-written CUDA kernels (kernels/gpu/*.inc, compiled by nvcc) and CUB, the CUDA
// toolkit's device-wide algorithms (scans, radix sorts). Include it only under __CUDACC__: CUB does not
// compile for the host, so the .inc files keep their generic algorithm for the host build
// (kernels/gpu/Backend.h) and call CUB only in their CUDA build.
//  - run(): a CUB algorithm's two calls (the first asks how much temporary storage it needs; the
//    storage is a torchlite tensor, so it comes from the caching device allocator), with errors checked;
//  - RowOf / row_keys(): the row of each element of `nout` rows of `n` contiguous elements, as scan keys
//    (a segmented scan is cub::DeviceScan::InclusiveScanByKey over them);
//  - aligned_bytes(): where a second buffer carved from one allocation may start;
//  - bits_for(): how many low bits hold the values 0..m-1 (the bits a radix sort needs to look at);
//  - order_key(): an element as an unsigned integer that orders as kernels/RowOrder.h orders values, so
//    that a stable radix sort of the keys (with positions as values) is RowOrder's sort; from_key(): the
//    element back from its key, where only one element has that key;
//  - RowStart: the first element of row r (segment offsets for cub::DeviceSegmentedSort).
// Everything runs on the legacy default stream (stream 0), as kernels/cuda/Backend.cuh's launches do.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include "core/Error.h"
#include "core/Half.h"
#include "core/TensorFactory.h"

namespace torchlite::gpu::cub_glue {

inline void check(cudaError_t err, const char* what) {
  TL_CHECK(err == cudaSuccess, "CUDA error in ", what, ": ", cudaGetErrorString(err));
}

// call(void* temp, size_t& temp_bytes) -> cudaError_t, a CUB device algorithm: called once to size its
// temporary storage and once to run. The storage is released (to the caching allocator) on return; work
// queued after on stream 0 runs after the algorithm, so the allocator may hand it out again at once.
template <class Call>
void run(const char* what, Device device, const Call& call) {
  size_t bytes = 0;
  check(call(nullptr, bytes), what);
  const int64_t size = static_cast<int64_t>(bytes > 0 ? bytes : 1);
  Tensor temp = empty_tensor(IntArrayRef(size), ScalarType::UInt8, device);
  check(call(temp.data_ptr(), bytes), what);
  check(cudaGetLastError(), what);
}

// The row of element i among rows of n contiguous elements (in 32 bits when every index fits: 64-bit
// division costs several times more).
struct RowOf {
  int64_t n;
  bool narrow;
  __host__ __device__ int64_t operator()(int64_t i) const {
    return narrow ? static_cast<int64_t>(static_cast<uint32_t>(i) / static_cast<uint32_t>(n)) : i / n;
  }
};

using RowKeys = thrust::transform_iterator<RowOf, thrust::counting_iterator<int64_t>>;

// The first element of row r among rows of n contiguous elements.
struct RowStart {
  int64_t n;
  __host__ __device__ int64_t operator()(int64_t r) const { return r * n; }
};

// Scan keys for `total` elements in rows of n (n > 0): equal exactly within a row.
inline RowKeys row_keys(int64_t total, int64_t n) {
  const bool narrow = total <= static_cast<int64_t>(UINT32_MAX);
  return RowKeys(thrust::counting_iterator<int64_t>(0), RowOf{n, narrow});
}

// n bytes rounded up to a multiple of 256 (where a second buffer carved from one allocation starts).
inline int64_t aligned_bytes(int64_t n) { return (n + 255) / 256 * 256; }

// The number of low bits that hold every value in [0, m) (0 when m <= 1).
inline int bits_for(uint64_t m) {
  if (m <= 1) return 0;
  int b = 0;
  while (b < 64 && ((m - 1) >> b) != 0) ++b;
  return b;
}

// The unsigned integer type of T's width (bool: uint8).
template <typename T>
using radix_key_t = std::conditional_t<sizeof(T) == 1, uint8_t,
                                 std::conditional_t<sizeof(T) == 2, uint16_t,
                                                    std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

// v as an unsigned integer whose order is RowOrder.h's order of values: ascending, -0.0 equal to 0.0,
// every NaN equal and above +inf (the all-ones key); descending: the complement (NaN first). Equal
// values have equal keys, so a stable sort keeps them in position order, as RowOrder's ties.
template <typename T>
__host__ __device__ inline radix_key_t<T> order_key(T v, bool descending) {
  using K = radix_key_t<T>;
  constexpr int kBits = 8 * sizeof(K);
  constexpr K kSign = static_cast<K>(K(1) << (kBits - 1));
  K k;
  if constexpr (std::is_same_v<T, bool>) {
    k = v ? 1 : 0;
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    k = static_cast<K>(v);
  } else if constexpr (std::is_integral_v<T>) {
    k = static_cast<K>(static_cast<K>(v) ^ kSign);  // two's complement: flipping the sign bit orders it
  } else {
    K bits;
    K inf;  // the bits of +inf: above them (sign cleared) is NaN
    if constexpr (std::is_same_v<T, Half>) {
      bits = v.x;
      inf = 0x7c00u;
    } else if constexpr (std::is_same_v<T, BFloat16>) {
      bits = v.x;
      inf = 0x7f80u;
    } else if constexpr (std::is_same_v<T, float>) {
      memcpy(&bits, &v, sizeof(bits));
      inf = 0x7f800000u;
    } else {
      static_assert(std::is_same_v<T, double>, "order_key: unsupported type");
      memcpy(&bits, &v, sizeof(bits));
      inf = 0x7ff0000000000000ull;
    }
    const K magnitude = static_cast<K>(bits & ~kSign);
    if (magnitude > inf) k = static_cast<K>(~K(0));       // NaN (any sign or payload): the largest
    else if (magnitude == 0) k = kSign;                    // -0.0 and 0.0: equal
    else if (bits & kSign) k = static_cast<K>(~bits);      // negative: larger magnitude first
    else k = static_cast<K>(bits | kSign);                 // positive: above every negative
  }
  return descending ? static_cast<K>(~k) : k;
}

// Sets v to the value whose order_key(v, descending) is key and returns true, when only one value has
// that key; false for the key of zero (-0.0 and 0.0 share it) and of NaN (every NaN shares it), whose
// value must be read from the input.
template <typename T>
__host__ __device__ inline bool from_key(radix_key_t<T> key, bool descending, T& v) {
  using K = radix_key_t<T>;
  constexpr int kBits = 8 * sizeof(K);
  constexpr K kSign = static_cast<K>(K(1) << (kBits - 1));
  const K k = descending ? static_cast<K>(~key) : key;
  if constexpr (std::is_same_v<T, bool>) {
    v = k != 0;
    return true;
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    v = static_cast<T>(k);
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    v = static_cast<T>(static_cast<K>(k ^ kSign));
    return true;
  } else {
    if (k == static_cast<K>(~K(0)) || k == kSign) return false;  // NaN, or zero of either sign
    const K bits = (k & kSign) ? static_cast<K>(k & ~kSign) : static_cast<K>(~k);  // positive : negative
    if constexpr (std::is_same_v<T, Half>) {
      v = Half::from_bits(bits);
    } else if constexpr (std::is_same_v<T, BFloat16>) {
      v = BFloat16::from_bits(bits);
    } else {
      memcpy(&v, &bits, sizeof(bits));
    }
    return true;
  }
}

}  // namespace torchlite::gpu::cub_glue
