#pragma once
// Hand-written CUDA kernels are written once, in kernels/gpu/*.inc, against a Backend:
//  - Backend::for_each(n, f) calls f(i) for i in [0, n), each call independent of the others (one CUDA
//    thread per i: f must not depend on the order, and two calls must not write the same element unless
//    the kernel says how); for_each(n, f, work) says that each call does about `work` elements of work,
//    which the host uses to share the calls among its threads;
//  - Backend::map(n, src, dst, f) sets dst[i] = f(src[i]) over dense arrays (vector accesses on CUDA);
//  - Backend::to_host(dst, src, nbytes) reads device memory into host memory.
// Each .inc is compiled twice: by nvcc into kernels::<name> with CudaBackend (kernels/cuda/Backend.cuh),
// and by the C++ compiler into kernels::on_host::<name> with HostBackend (below), which runs on CPU
// tensors. Tests switch the CPU dispatch to the on_host kernels (torchlite._C._set_gpu_kernels_on_host) and
// compare them with the CPU kernels and NumPy, so the CUDA kernels' logic is checked without a GPU.
//
// f is a `[=] TL_HOST_DEVICE` lambda: it captures only raw pointers and plain values (no Tensor), and
// calls only TL_HOST_DEVICE functions.
#include <cstdint>
#include <cstring>

#include "core/Macros.h"
#include "core/Parallel.h"
#include "core/Tensor.h"

namespace torchlite::gpu {

struct HostBackend {
  static constexpr bool is_cuda = false;

  template <typename F>
  static void for_each(int64_t n, const F& f) {
    parallel_for(n, kGrainSize, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) f(i);
    });
  }

  // The same, for calls that each do about `work` elements' worth of work (a row, a plane): the threads
  // split the indices into shares of about kGrainSize elements, not kGrainSize indices.
  template <typename F>
  static void for_each(int64_t n, const F& f, int64_t work) {
    const int64_t grain = work > 0 && work < kGrainSize ? kGrainSize / work : 1;
    parallel_for(n, grain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) f(i);
    });
  }

  // dst[i] = f(src[i]) for i in [0, n), both arrays dense.
  template <typename S, typename D, typename F>
  static void map(int64_t n, const S* src, D* dst, const F& f) {
    for_each(n, [=](int64_t i) { dst[i] = f(src[i]); });
  }

  static void to_host(void* dst, const void* src, size_t nbytes) {
    if (nbytes) std::memcpy(dst, src, nbytes);
  }
  static void copy_device(void* dst, const void* src, size_t nbytes) {  // within one device
    if (nbytes) std::memcpy(dst, src, nbytes);
  }
};

// Sizes and strides of up to kMaxDims dims, passed by value to the kernels.
constexpr int kMaxDims = 16;

struct Geometry {
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};  // in elements

  // The offset (in elements) of the element with row-major linear index i.
  TL_HOST_DEVICE int64_t offset(int64_t i) const {
    if (ndim == 1) return i * strides[0];  // no division (i < sizes[0]): most geometries fold to one dim
    int64_t off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t s = sizes[d];
      off += (i % s) * strides[d];
      i /= s;
    }
    return off;
  }
};

// dst's geometry and src's broadcast to dst's sizes, with size-1 dims dropped and dims that are
// contiguous in both merged (a dense copy becomes one dim).
inline void pair_geometry(const Tensor& dst, const Tensor& src, Geometry& gd, Geometry& gs) {
  const int64_t nd = dst.dim(), sd = src.dim();
  TL_CHECK(nd <= kMaxDims, "CUDA kernels support at most ", kMaxDims, " dims, got ", nd);
  int n = 0;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t size = dst.size(d);
    if (size == 1) continue;
    const int64_t s = d - (nd - sd);
    const int64_t ss = s >= 0 && src.size(s) != 1 ? src.stride(s) : 0;
    if (n > 0 && gd.strides[n - 1] == dst.stride(d) * size && gs.strides[n - 1] == ss * size) {
      gd.sizes[n - 1] *= size;
      gs.sizes[n - 1] *= size;
      gd.strides[n - 1] = dst.stride(d);
      gs.strides[n - 1] = ss;
      continue;
    }
    gd.sizes[n] = gs.sizes[n] = size;
    gd.strides[n] = dst.stride(d);
    gs.strides[n] = ss;
    ++n;
  }
  gd.ndim = gs.ndim = n;
}

inline size_t nbytes(const Tensor& t) { return static_cast<size_t>(t.numel() * t.element_size()); }

// One tensor's geometry (for reading or writing it by linear index).
inline Geometry geometry_of(const Tensor& t) {
  Geometry g, unused;
  pair_geometry(t, t, g, unused);
  return g;
}

}  // namespace torchlite::gpu

// The wrapper that compiles a kernels/gpu/*.inc for the host includes this first.
#define TL_GPU_KERNELS_BEGIN \
  namespace torchlite::kernels::on_host {  \
  using Backend = ::torchlite::gpu::HostBackend;
#define TL_GPU_KERNELS_END }
