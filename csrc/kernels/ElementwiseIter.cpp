#include "kernels/ElementwiseIter.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "core/CudaHooks.h"
#include "core/DeviceGuard.h"
#include "core/Parallel.h"
#include "core/TensorFactory.h"
#include "dispatch/KernelTable.h"
#include "kernels/Convert.h"
#include "kernels/copy.h"
#include "ops/conj_physical.h"

namespace torchlite {

namespace {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for the C++ type of dtype.
template <typename F>
void visit_dtype(ScalarType dtype, F&& f) {
  switch (dtype) {
    case ScalarType::UInt8: return f(TypeTag<uint8_t>{});
    case ScalarType::Int8: return f(TypeTag<int8_t>{});
    case ScalarType::Int16: return f(TypeTag<int16_t>{});
    case ScalarType::Int32: return f(TypeTag<int32_t>{});
    case ScalarType::Int64: return f(TypeTag<int64_t>{});
    case ScalarType::Half: return f(TypeTag<Half>{});
    case ScalarType::Float: return f(TypeTag<float>{});
    case ScalarType::Double: return f(TypeTag<double>{});
    case ScalarType::Bool: return f(TypeTag<bool>{});
    case ScalarType::BFloat16: return f(TypeTag<BFloat16>{});
    case ScalarType::UInt16: return f(TypeTag<uint16_t>{});
    case ScalarType::UInt32: return f(TypeTag<uint32_t>{});
    case ScalarType::UInt64: return f(TypeTag<uint64_t>{});
    case ScalarType::ComplexFloat: return f(TypeTag<Complex<float>>{});
    case ScalarType::ComplexDouble: return f(TypeTag<Complex<double>>{});
    default: TL_ERROR("undefined dtype");
  }
}

void convert_value(const char* src, ScalarType src_t, char* dst, ScalarType dst_t) {
  visit_dtype(src_t, [&](auto s) {
    using S = typename decltype(s)::type;
    visit_dtype(dst_t, [&](auto d) {
      using D = typename decltype(d)::type;
      *reinterpret_cast<D*>(dst) = convert<D>(*reinterpret_cast<const S*>(src));
    });
  });
}

// Strided walk over `sizes` (any order), calling fn(dst_offset, src_offset) in bytes.
template <typename F>
void strided_walk(IntArrayRef sizes, const int64_t* dst_strides, const int64_t* src_strides, F&& fn) {
  int64_t ndim = static_cast<int64_t>(sizes.size());
  int64_t numel = compute_numel(sizes);
  if (numel == 0) return;
  DimVector counter(ndim, 0);
  int64_t d_off = 0, s_off = 0;
  int64_t inner = ndim ? sizes[ndim - 1] : 1;
  int64_t d_in = ndim ? dst_strides[ndim - 1] : 0, s_in = ndim ? src_strides[ndim - 1] : 0;
  for (int64_t done = 0; done < numel; done += inner) {
    for (int64_t i = 0; i < inner; ++i) fn(d_off + i * d_in, s_off + i * s_in);
    for (int64_t d = ndim - 2; d >= 0; --d) {
      if (++counter[d] < sizes[d]) {
        d_off += dst_strides[d];
        s_off += src_strides[d];
        break;
      }
      d_off -= dst_strides[d] * (sizes[d] - 1);
      s_off -= src_strides[d] * (sizes[d] - 1);
      counter[d] = 0;
    }
  }
}

}  // namespace

void copy_cast_cpu(const Tensor& dst, const Tensor& src) {
  TL_CHECK(dst.device().is_cpu() && src.device().is_cpu(), "copy_cast_cpu: CPU tensors only");
  IntArrayRef sizes = dst.sizes();
  int64_t ndim = dst.dim();
  int64_t s_dim = src.dim();
  DimVector d_strides(ndim), s_strides(ndim, 0);
  for (int64_t i = 0; i < ndim; ++i) d_strides[i] = dst.strides()[i] * dst.element_size();
  for (int64_t i = 0; i < s_dim; ++i) {
    int64_t di = ndim - s_dim + i;
    if (src.sizes()[i] != 1) s_strides[di] = src.strides()[i] * src.element_size();
  }
  char* d = static_cast<char*>(dst.data_ptr());
  const char* s = static_cast<const char*>(src.data_ptr());
  // A transposing copy (src's smallest stride is not along dst's last dim, as when reductions move the
  // reduced dims last): walked in 32 x 32 tiles of that dim and the last one, so reads and writes both
  // stay within a few cache lines (walking dst's rows read src a cache line per element).
  int64_t k = -1;
  if (ndim >= 2 && sizes[ndim - 1] >= 8) {
    const int64_t last = std::abs(s_strides[ndim - 1]);
    for (int64_t i = 0; i < ndim - 1; ++i) {
      const int64_t st = std::abs(s_strides[i]);
      if (sizes[i] >= 8 && st != 0 && st < last && (k < 0 || st < std::abs(s_strides[k]))) k = i;
    }
  }
  visit_dtype(src.scalar_type(), [&](auto st) {
    using S = typename decltype(st)::type;
    visit_dtype(dst.scalar_type(), [&](auto dt) {
      using D = typename decltype(dt)::type;
      if (k < 0) {
        strided_walk(sizes, d_strides.data(), s_strides.data(), [&](int64_t doff, int64_t soff) {
          *reinterpret_cast<D*>(d + doff) = convert<D>(*reinterpret_cast<const S*>(s + soff));
        });
        return;
      }
      constexpr int64_t kTile = 32;
      const int64_t n_k = sizes[k], n_j = sizes[ndim - 1];
      const int64_t dk = d_strides[k], sk = s_strides[k], dj = d_strides[ndim - 1], sj = s_strides[ndim - 1];
      DimVector outer(sizes);  // every other dim, walked for the slabs' base offsets
      outer[k] = 1;
      outer[ndim - 1] = 1;
      std::vector<std::pair<int64_t, int64_t>> bases;
      strided_walk(outer.ref(), d_strides.data(), s_strides.data(),
                   [&](int64_t doff, int64_t soff) { bases.emplace_back(doff, soff); });
      const int64_t tiles_k = (n_k + kTile - 1) / kTile;
      const int64_t ntasks = static_cast<int64_t>(bases.size()) * tiles_k;
      parallel_for(ntasks, std::max<int64_t>(1, kGrainSize / (kTile * n_j)), [&](int64_t b, int64_t e) {
        for (int64_t task = b; task < e; ++task) {
          const auto& base = bases[static_cast<size_t>(task / tiles_k)];
          const int64_t k0 = task % tiles_k * kTile, k1 = std::min(n_k, k0 + kTile);
          for (int64_t j0 = 0; j0 < n_j; j0 += kTile) {
            const int64_t j1 = std::min(n_j, j0 + kTile);
            for (int64_t j = j0; j < j1; ++j)
              for (int64_t i = k0; i < k1; ++i)
                *reinterpret_cast<D*>(d + base.first + i * dk + j * dj) =
                    convert<D>(*reinterpret_cast<const S*>(s + base.second + i * sk + j * sj));
          }
        }
      });
    });
  });
}

namespace {
// Copies into a device: copy_'s CUDA kernel, from a table of its own (registered at load, so the tests'
// emulated devices get its host compilation; dispatch/KernelTable.h).
using CopyKernel = void (*)(const Tensor&, const Tensor&, bool, const Tensor&);
KernelTable<CopyKernel> g_copy_to_device(nullptr, TL_CUDA_KERNEL(&kernels::copy_out_cuda),
                                         &kernels::on_host::copy_out_cuda, /*has_cuda=*/true);
constexpr OpInfo kCopyCast{"copy_", "", "copy_(Tensor self, Tensor src, bool non_blocking=False) -> Tensor"};
}  // namespace

void copy_conjugating(const Tensor& dst, const Tensor& src) {
  Tensor d = make_alias(dst, dst.sizes(), dst.strides(), dst.storage_offset());
  Tensor s = make_alias(src, src.sizes(), src.strides(), src.storage_offset());
  d.impl()->set_conj(false);
  s.impl()->set_conj(false);
  copy_cast(d, is_complex_type(s.scalar_type()) ? conj_physical(s) : s);
}

void copy_cast(const Tensor& dst, const Tensor& src) {
  if (TL_UNLIKELY(dst.is_conj() != src.is_conj())) return copy_conjugating(dst, src);
  if (dst.device().is_cpu() && src.device().is_cpu()) return copy_cast_cpu(dst, src);
  if (dst.device().is_cpu()) return kernels::copy_out_cpu(dst, src, /*non_blocking=*/false, dst);
  const DeviceGuard guard(dst.device());  // called directly, not through an op
  g_copy_to_device.get(kCopyCast, dst.device())(dst, src, /*non_blocking=*/false, dst);
}

Tensor contiguous_as(const Tensor& src, ScalarType dtype) {
  if (src.scalar_type() == dtype && src.is_contiguous()) return src;
  Tensor out = empty_tensor(src.sizes(), dtype, src.device());
  copy_cast(out, src);
  return out;
}

void ElementwiseIter::build(const Tensor& out, std::initializer_list<const Tensor*> inputs, ScalarType dt,
                            ScalarType odt) {
  dtype = dt;
  out_dtype = odt == ScalarType::Undefined ? dt : odt;
  device = out.device();
  noperands = 1 + static_cast<int>(inputs.size());
  TL_CHECK(noperands <= kMaxOperands, "elementwise ops take at most ", kMaxOperands - 1, " tensor inputs");
  int64_t out_ndim = out.dim();
  TL_CHECK(out_ndim <= kMaxDims, "elementwise ops support at most ", kMaxDims, " dims, got ", out_ndim);
  numel = out.numel();
  int64_t itemsize = element_size(dt);
  // PyTorch's memory-overlap rules for the written-to tensor (a fill, with no
  // tensor input, may write an expanded tensor).
  if (inputs.size() > 0) {
    check_no_internal_overlap(out);
    for (const Tensor* in : inputs) check_no_partial_overlap(out, *in);
  }

  // Output: computed into a temporary when its dtype differs.
  Tensor o = out;
  if (out.scalar_type() != out_dtype) {
    out_target = out;
    out_temp = empty_tensor(out.sizes(), out_dtype, out.device());
    o = out_temp;
  }
  ndim = static_cast<int>(out_ndim);
  int64_t out_itemsize = element_size(out_dtype);
  for (int d = 0; d < ndim; ++d) {
    shape[d] = out.sizes()[ndim - 1 - d];
    strides[0][d] = o.strides()[ndim - 1 - d] * out_itemsize;
  }
  data[0] = static_cast<char*>(o.data_ptr());
  keep_alive[0] = o;

  int k = 1;
  for (const Tensor* in : inputs) {
    const Tensor* t = in;
    is_scalar[k] = false;
    if (t->numel() == 1 && t->device().is_cpu() &&
        (t->dim() == 0 || t->scalar_type() != dt || !device.is_cpu())) {
      // One value on the host: convert it once and pass it by value.
      convert_value(static_cast<const char*>(t->data_ptr()), t->scalar_type(), scalar_buf[k], dt);
      is_scalar[k] = true;
      data[k] = scalar_buf[k];
      for (int d = 0; d < ndim; ++d) strides[k][d] = 0;
      ++k;
      continue;
    }
    Tensor src = *t;
    if (src.scalar_type() != dt) src = contiguous_as(src, dt);
    keep_alive[k] = src;
    data[k] = static_cast<char*>(src.data_ptr());
    int64_t sd = src.dim();
    for (int d = 0; d < ndim; ++d) {
      int64_t src_dim = sd - 1 - d;
      strides[k][d] = (src_dim >= 0 && src.sizes()[src_dim] != 1) ? src.strides()[src_dim] * itemsize : 0;
    }
    ++k;
  }

  // Drop size-1 dims, then merge dims that are contiguous for every operand.
  int nd = 0;
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    shape[nd] = shape[d];
    for (int op = 0; op < noperands; ++op) strides[op][nd] = strides[op][d];
    ++nd;
  }
  ndim = nd;
  if (ndim > 1) {
    int prev = 0;
    for (int d = 1; d < ndim; ++d) {
      bool can_merge = true;
      for (int op = 0; op < noperands && can_merge; ++op)
        can_merge = strides[op][prev] * shape[prev] == strides[op][d];
      if (can_merge) {
        shape[prev] *= shape[d];
      } else {
        ++prev;
        shape[prev] = shape[d];
        for (int op = 0; op < noperands; ++op) strides[op][prev] = strides[op][d];
      }
    }
    ndim = prev + 1;
  }
}

bool ElementwiseIter::is_contiguous() const {
  if (ndim > 1) return false;
  if (ndim == 0) return true;
  for (int op = 0; op < noperands; ++op) {
    int64_t itemsize = element_size(op == 0 ? out_dtype : dtype);
    if (!is_scalar[op] && strides[op][0] != itemsize) return false;
  }
  return true;
}

void ElementwiseIter::finish() {
  if (out_target.defined()) copy_cast(out_target, out_temp);
}

}  // namespace torchlite
