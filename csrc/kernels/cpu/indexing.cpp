// The indexing ops on the CPU: their meta rules (checks with PyTorch's messages,
// result shapes) and kernels. Every kernel is one walk (IndexWalk.h) over the
// shape the op iterates, with the operands' strides laid out in that shape: the
// indexed operand gets stride 0 along the indexed dim, and the index value times
// its real stride is added per element. Index values are checked (and negative
// ones wrapped where PyTorch wraps them) before anything is written.
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/DeviceGuard.h"
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/Convert.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/_index.h"
#include "dispatch/KernelTable.h"
#include "kernels/IndexWalk.h"
#include "kernels/CountNonzero.h"
#include "kernels/gather.h"
#include "kernels/index_add.h"
#include "kernels/index_copy.h"
#include "kernels/index_fill_int_Scalar.h"
#include "kernels/index_fill_int_Tensor.h"
#include "kernels/index_put.h"
#include "kernels/index_select.h"
#include "kernels/masked_fill_Scalar.h"
#include "kernels/masked_fill_Tensor.h"
#include "kernels/masked_scatter.h"
#include "kernels/masked_select.h"
#include "kernels/nonzero.h"
#include "kernels/scatter_add.h"
#include "kernels/scatter_reduce.h"
#include "kernels/scatter_reduce_two.h"
#include "kernels/scatter_src.h"
#include "kernels/scatter_value.h"
#include "kernels/scatter_value_reduce.h"
#include "kernels/take.h"

namespace torchlite {

using namespace index_walk;

namespace {

// out[i] = src[i + idx[i] * dim_stride] over a walk of (out, src with 0 along the dim, idx).
void gather_walk(const Walk& w, const Tensor& out, const Tensor& src, const Tensor& idx, int64_t dim_stride,
                 const char* op) {
  dispatch_dtype_and_complex(src.scalar_type(), op, [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    const T* s = src.data<T>();
    const int64_t* ix = idx.data<int64_t>();
    walk(w, /*parallel=*/true, [&](const int64_t* off, int64_t n, const int64_t* step) {
      for (int64_t k = 0; k < n; ++k)
        o[off[0] + k * step[0]] = s[off[1] + k * step[1] + ix[off[2] + k * step[2]] * dim_stride];
    });
  });
}

// ---------------------------------------------------------------- scatter family

// self (copied into out) combined with src (or value) at the positions index gives along dim.
void scatter_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const Scalar* value,
                  Reduce reduce, bool include_self, const Tensor& out, const char* op) {
  ScalarType t = self.scalar_type();
  if (reduce == Reduce::Mean && t == ScalarType::Bool) throw_dtype_not_implemented("scatter_reduce (mean)", t);
  if ((reduce == Reduce::Max || reduce == Reduce::Min) && is_complex_type(t)) {
    throw_dtype_not_implemented(reduce == Reduce::Max ? "scatter_reduce (amax)" : "scatter_reduce (amin)", t);
  }
  int64_t d = wrap_dim(dim, ndim_1d(self));
  into(out, t, false, [&](const Tensor& o) {
    if (!o.is_same(self)) copy_cast_cpu(o, self);
    if (index.numel() == 0) return;
    DimVector os = sizes_1d(o), ost = strides_1d(o);
    int64_t n = os[d], odim = ost[d];
    Tensor idx = checked_index(index, n, false, [&](int64_t v) { out_of_bounds(ErrorKind::Runtime, "", v, d, n); });
    DimVector is = sizes_1d(idx), ist = contiguous_strides(is.ref());
    ost[d] = 0;
    DimVector srt = src ? strides_1d(*src) : zeros_dims(is.size());
    Walk w = make_walk(is.ref(), {ost.ref(), srt.ref(), ist.ref()});
    dispatch_dtype_and_complex(t, op, [&](auto tag) {
      using T = decltype(tag);
      using op_t = opmath_t<T>;
      T* po = o.data<T>();
      const T* ps = src ? src->data<T>() : nullptr;
      const T val = value ? scalar_as<T>(*value) : T();
      const int64_t* ix = idx.data<int64_t>();
      auto each = [&](const auto& combine) {
        walk_scatter(w, d, [&](const int64_t* off, int64_t cnt, const int64_t* step) {
          for (int64_t k = 0; k < cnt; ++k) {
            T& dst = po[off[0] + k * step[0] + ix[off[2] + k * step[2]] * odim];
            combine(dst, ps ? ps[off[1] + k * step[1]] : val);
          }
        });
      };
      if (!include_self) {
        op_t init = op_t(0);
        if (reduce == Reduce::Prod) init = op_t(1);
        if constexpr (std::is_floating_point_v<op_t>) {
          if (reduce == Reduce::Max) init = -std::numeric_limits<op_t>::infinity();
          if (reduce == Reduce::Min) init = std::numeric_limits<op_t>::infinity();
        } else if constexpr (!is_complex_v<op_t>) {
          if (reduce == Reduce::Max) init = std::numeric_limits<op_t>::lowest();
          if (reduce == Reduce::Min) init = std::numeric_limits<op_t>::max();
        }
        const T first = convert<T>(init);
        each([&](T& dst, T) { dst = first; });
      }
      switch (reduce) {
        case Reduce::None: each([](T& dst, T v) { dst = v; }); break;
        case Reduce::Sum:
        case Reduce::Mean:
          each([](T& dst, T v) { dst = convert<T>(static_cast<op_t>(dst) + static_cast<op_t>(v)); });
          break;
        case Reduce::Prod:
          each([](T& dst, T v) { dst = convert<T>(static_cast<op_t>(dst) * static_cast<op_t>(v)); });
          break;
        case Reduce::Max:  // refused for complex numbers above
          if constexpr (!is_complex_v<op_t>) {
            each([](T& dst, T v) {
              op_t a = static_cast<op_t>(dst), b = static_cast<op_t>(v);
              dst = convert<T>((a != a || a > b) ? a : b);  // NaN propagates
            });
          }
          break;
        case Reduce::Min:
          if constexpr (!is_complex_v<op_t>) {
            each([](T& dst, T v) {
              op_t a = static_cast<op_t>(dst), b = static_cast<op_t>(v);
              dst = convert<T>((a != a || a < b) ? a : b);
            });
          }
          break;
      }
      if (reduce != Reduce::Mean) return;
      // mean: divide each position by the number of values it received (plus one for self's own).
      Tensor count = empty_tensor(os.ref(), ScalarType::Int64);
      int64_t* pc = count.data<int64_t>();
      for (int64_t i = 0; i < count.numel(); ++i) pc[i] = include_self ? 1 : 0;
      DimVector cst = contiguous_strides(os.ref());
      int64_t cdim = cst[d];
      DimVector cit = cst;
      cit[d] = 0;
      Walk wc = make_walk(is.ref(), {cit.ref(), ist.ref()});
      walk(wc, false, [&](const int64_t* off, int64_t cnt, const int64_t* step) {
        for (int64_t k = 0; k < cnt; ++k) ++pc[off[0] + k * step[0] + ix[off[1] + k * step[1]] * cdim];
      });
      DimVector ofull = strides_1d(o);
      Walk wd = make_walk(os.ref(), {ofull.ref(), cst.ref()});
      walk(wd, true, [&](const int64_t* off, int64_t cnt, const int64_t* step) {
        for (int64_t k = 0; k < cnt; ++k) {
          int64_t c = pc[off[1] + k * step[1]];
          if (c <= 1) continue;
          T& dst = po[off[0] + k * step[0]];
          if constexpr (std::is_integral_v<op_t>) {
            int64_t a = static_cast<int64_t>(dst), q = a / c;
            if (a % c != 0 && (a < 0) != (c < 0)) --q;  // floor division, as PyTorch's integer mean
            dst = convert<T>(q);
          } else {
            dst = convert<T>(static_cast<op_t>(dst) / static_cast<op_t>(c));
          }
        }
      });
    });
  });
}

// ---------------------------------------------------------------- index_add / index_copy / index_fill

// out = self, then out[.., index[i], ..] (op)= source[.., i, ..] along dim, over source's shape.
template <typename Combine>
void index_source_impl(const Tensor& self, int64_t d, const Tensor& idx, const Tensor& source, const Tensor& out,
                       const char* op, const Combine& make_combine) {
  into(out, self.scalar_type(), false, [&](const Tensor& o) {
    if (!o.is_same(self)) copy_cast_cpu(o, self);
    if (idx.numel() == 0) return;
    DimVector ss = sizes_1d(source), sst = strides_1d(source), ost = strides_1d(o);
    int64_t odim = ost[d];
    ost[d] = 0;
    DimVector ist = along_dim(ss.size(), d);
    Walk w = make_walk(ss.ref(), {ost.ref(), sst.ref(), ist.ref()});
    dispatch_dtype_and_complex(self.scalar_type(), op, [&](auto tag) {
      using T = decltype(tag);
      T* po = o.data<T>();
      const T* ps = source.data<T>();
      const int64_t* ix = idx.data<int64_t>();
      auto combine = make_combine(T{});
      walk_scatter(w, d, [&](const int64_t* off, int64_t cnt, const int64_t* step) {
        for (int64_t k = 0; k < cnt; ++k)
          combine(po[off[0] + k * step[0] + ix[off[2] + k * step[2]] * odim], ps[off[1] + k * step[1]]);
      });
    });
  });
}

void index_fill_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const Tensor& out) {
  int64_t d = wrap_dim(dim, ndim_1d(self));
  into(out, self.scalar_type(), false, [&](const Tensor& o) {
    if (!o.is_same(self)) copy_cast_cpu(o, self);
    DimVector os = sizes_1d(o), ost = strides_1d(o);
    int64_t n = os[d], odim = ost[d];
    Tensor idx = checked_index(index, n, true, [&](int64_t v) { out_of_bounds(ErrorKind::Index, "", v, d, n); });
    os[d] = idx.numel();
    ost[d] = 0;
    DimVector ist = along_dim(os.size(), d);
    Walk w = make_walk(os.ref(), {ost.ref(), ist.ref()});
    dispatch_dtype_and_complex(self.scalar_type(), "index_fill", [&](auto tag) {
      using T = decltype(tag);
      T* po = o.data<T>();
      const T v = scalar_as<T>(value);
      const int64_t* ix = idx.data<int64_t>();
      walk(w, true, [&](const int64_t* off, int64_t cnt, const int64_t* step) {
        for (int64_t k = 0; k < cnt; ++k) po[off[0] + k * step[0] + ix[off[1] + k * step[1]] * odim] = v;
      });
    });
  });
}

// ---------------------------------------------------------------- nonzero and masks

// The coordinates of t's nonzero entries, in row-major order, into the (count, t.dim()) int64 array out.
void nonzero_fill(const Tensor& t, int64_t* out) {
  const int64_t nd = t.dim();
  DimVector s = sizes_1d(t), st = strides_1d(t);
  Walk w = make_walk(s.ref(), {st.ref()});
  int64_t pos = 0;
  dispatch_dtype_and_complex(t.scalar_type(), "nonzero", [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    walk(w, false, [&](const int64_t* off, int64_t n, const int64_t* step) {
      for (int64_t k = 0; k < n; ++k, ++pos) {
        if (!nonzero_value(p[off[0] + k * step[0]])) continue;
        int64_t rem = pos;
        for (int64_t j = nd - 1; j >= 0; --j) {
          out[j] = rem % t.sizes()[j];
          rem /= t.sizes()[j];
        }
        out += nd;
      }
    });
  });
}

// ---------------------------------------------------------------- advanced indexing

}  // namespace

int64_t kernels::count_nonzero_cpu(const Tensor& t) {
  int64_t c = 0;
  DimVector s = sizes_1d(t), st = strides_1d(t);
  Walk w = make_walk(s.ref(), {st.ref()});
  dispatch_dtype_and_complex(t.scalar_type(), "nonzero", [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    walk(w, false, [&](const int64_t* off, int64_t n, const int64_t* step) {
      for (int64_t k = 0; k < n; ++k) c += nonzero_value(p[off[0] + k * step[0]]);
    });
  });
  return c;
}

// With build=false only the checks and the result shape (bool masks are counted, not expanded).
AdvancedIndex index_walk::plan_index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, bool build) {
  Tensor base = self;
  // Each entry: an integer index for one dim (or none), after expanding bool masks.
  std::vector<std::optional<Tensor>> idx;
  std::vector<DimVector> shapes;  // the shapes that broadcast (a mask counts as its count)
  int64_t consumed = 0;
  for (const auto& entry : indices) {
    if (!entry.has_value() || !entry->defined()) {
      idx.emplace_back(std::nullopt);
      ++consumed;
      continue;
    }
    // Index values are read on the host: an index on a CUDA device is copied here first (the result's
    // offsets go back to self's device below). Without build, an integer index gives only its dtype and
    // shape: no copy (the metas call this, and the CUDA kernels check the values on the device).
    const bool mask = entry->scalar_type() == ScalarType::Bool || entry->scalar_type() == ScalarType::UInt8;
    const Tensor t = entry->device().is_cpu() || (!build && !mask) ? *entry : contiguous_on_host(*entry);
    ScalarType st = t.scalar_type();
    if (st == ScalarType::Bool || st == ScalarType::UInt8) {
      if (t.dim() == 0) {
        // A 0-dim mask adds a dim of size 1, kept (True) or emptied (False).
        DimVector s(base.sizes()), str(base.strides());
        s.insert(consumed, 1);
        str.insert(consumed, 1);
        base = make_alias(base, s.ref(), str.ref(), base.storage_offset());
        bool keep = item(t).to_bool();
        Tensor k = empty_tensor(IntArrayRef(int64_t(keep ? 1 : 0)), ScalarType::Int64);
        if (keep) k.data<int64_t>()[0] = 0;
        idx.emplace_back(k);
        shapes.push_back(DimVector{keep ? 1 : 0});
        ++consumed;
        continue;
      }
      for (int64_t j = 0; j < t.dim(); ++j) {
        int64_t at = consumed + j;
        TL_CHECK_INDEX(at < base.dim(), "too many indices for tensor of dimension ", self.dim(), " (got ",
                       consumed + t.dim(), ")");
        TL_CHECK_INDEX(t.sizes()[j] == base.sizes()[at], "The shape of the mask ", t.sizes(), " at index ", j,
                       " does not match the shape of the indexed tensor ", base.sizes(), " at index ", at);
      }
      int64_t count = kernels::count_nonzero_cpu(t);  // t is on the host
      if (build) {
        Tensor nz = empty_tensor(DimVector{count, t.dim()}.ref(), ScalarType::Int64);
        if (count > 0) nonzero_fill(t, nz.data<int64_t>());
        for (int64_t j = 0; j < t.dim(); ++j)
          idx.emplace_back(make_alias(nz, IntArrayRef(count), IntArrayRef(t.dim()), nz.storage_offset() + j));
      } else {
        for (int64_t j = 0; j < t.dim(); ++j) idx.emplace_back(t);  // placeholders, shape from `shapes`
      }
      shapes.push_back(DimVector{count});
      consumed += t.dim();
      continue;
    }
    TL_CHECK_INDEX(st == ScalarType::Int64 || st == ScalarType::Int32,
                   "tensors used as indices must be long, int, byte or bool tensors");
    idx.emplace_back(t);
    shapes.push_back(DimVector(t.sizes()));
    ++consumed;
  }
  TL_CHECK_INDEX(consumed <= base.dim(), "too many indices for tensor of dimension ", base.dim(), " (got ", consumed,
                 ")");
  while (static_cast<int64_t>(idx.size()) < base.dim()) idx.emplace_back(std::nullopt);

  // Broadcast the index shapes.
  DimVector bshape;
  for (const DimVector& s : shapes) {
    size_t n = std::max(bshape.size(), s.size());
    DimVector r(n);
    bool ok = true;
    for (size_t k = 0; k < n; ++k) {
      int64_t a = k < n - bshape.size() ? 1 : bshape[k - (n - bshape.size())];
      int64_t b = k < n - s.size() ? 1 : s[k - (n - s.size())];
      ok = ok && (a == b || a == 1 || b == 1);
      r[k] = a == 1 ? b : a;
    }
    if (!ok) {
      std::string all;
      for (size_t k = 0; k < shapes.size(); ++k) all += (k ? ", " : "") + to_string(shapes[k].ref());
      TL_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ", all);
    }
    bshape = r;
  }

  // Where the broadcast dims go: in place of the indexed dims when those are adjacent, else first.
  const int64_t nd = base.dim();
  int64_t first = -1, last = -1;
  for (int64_t k = 0; k < nd; ++k) {
    if (!idx[k].has_value()) continue;
    if (first < 0) first = k;
    last = k;
  }
  bool adjacent = true;
  for (int64_t k = first; first >= 0 && k <= last; ++k) adjacent = adjacent && idx[k].has_value();
  AdvancedIndex a;
  a.base = base;
  const int64_t nb = static_cast<int64_t>(bshape.size());
  int64_t insert_at = (first >= 0 && adjacent) ? first : 0;
  auto push_rest = [&](int64_t from, int64_t to) {
    for (int64_t k = from; k < to; ++k) {
      if (idx[k].has_value()) continue;
      a.result.push_back(base.sizes()[k]);
      a.src_strides.push_back(base.strides()[k]);
      a.lin_strides.push_back(0);
    }
  };
  DimVector bstrides = contiguous_strides(bshape.ref());
  auto push_broadcast = [&]() {
    for (int64_t k = 0; k < nb; ++k) {
      a.result.push_back(bshape[k]);
      a.src_strides.push_back(0);
      a.lin_strides.push_back(bstrides[k]);
    }
  };
  push_rest(0, insert_at);
  a.first_broadcast = static_cast<int64_t>(a.result.size());
  a.num_broadcast = nb;
  push_broadcast();
  push_rest(insert_at, nd);
  if (!build) return a;

  // lin = sum over indexed dims of (wrapped index) * stride.
  a.lin = empty_tensor(bshape.ref(), ScalarType::Int64);
  int64_t* pl = a.lin.data<int64_t>();
  const int64_t nl = a.lin.numel();
  for (int64_t i = 0; i < nl; ++i) pl[i] = 0;
  for (int64_t k = 0; k < nd; ++k) {
    if (!idx[k].has_value()) continue;
    const Tensor& t = *idx[k];
    DimVector es = expanded_strides(t, bshape.ref());
    Tensor view = make_alias(t, bshape.ref(), es.ref(), t.storage_offset());
    const int64_t n = base.sizes()[k], stride = base.strides()[k];
    Tensor v = checked_index(view, n, true, [&](int64_t bad) { out_of_bounds(ErrorKind::Index, "", bad, k, n); });
    const int64_t* pv = v.data<int64_t>();
    for (int64_t i = 0; i < nl; ++i) pl[i] += pv[i] * stride;
  }
  if (!base.device().is_cpu()) {
    Tensor on_device = empty_tensor(a.lin.sizes(), ScalarType::Int64, base.device());
    copy_cast(on_device, a.lin);
    a.lin = on_device;
  }
  return a;
}

// ---------------------------------------------------------------- index_select

void kernels::index_select_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  int64_t d = wrap_dim(dim, ndim_1d(self));
  DimVector sst = strides_1d(self);
  int64_t n = sizes_1d(self)[d], sdim = sst[d];
  Tensor idx = checked_index(index, n, false, [](int64_t) { TL_CHECK_INDEX(false, "index out of range in self"); });
  sst[d] = 0;
  into(out, self.scalar_type(), false, [&](const Tensor& o) {
    DimVector os = sizes_1d(o), ost = strides_1d(o);
    DimVector ist = along_dim(os.size(), d);
    Walk w = make_walk(os.ref(), {ost.ref(), sst.ref(), ist.ref()});
    gather_walk(w, o, self, idx, sdim, "index_select");
  });
}

// ---------------------------------------------------------------- gather

void kernels::gather_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/,
                             const Tensor& out) {
  if (index.numel() == 0) return;
  int64_t d = wrap_dim(dim, ndim_1d(self));
  DimVector sst = strides_1d(self);
  int64_t n = sizes_1d(self)[d], sdim = sst[d];
  Tensor idx = checked_index(index, n, false, [&](int64_t v) { out_of_bounds(ErrorKind::Runtime, "", v, d, n); });
  sst[d] = 0;
  into(out, self.scalar_type(), false, [&](const Tensor& o) {
    DimVector is = sizes_1d(idx), ost = strides_1d(o), ist = contiguous_strides(is.ref());
    Walk w = make_walk(is.ref(), {ost.ref(), sst.ref(), ist.ref()});
    gather_walk(w, o, self, idx, sdim, "gather");
  });
}

// ---------------------------------------------------------------- scatter

void kernels::scatter_src_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                  const Tensor& out) {
  scatter_impl(self, dim, index, &src, nullptr, Reduce::None, true, out, "scatter");
}
void kernels::scatter_value_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                    const Tensor& out) {
  scatter_impl(self, dim, index, nullptr, &value, Reduce::None, true, out, "scatter");
}
void kernels::scatter_reduce_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                     std::string_view reduce, const Tensor& out) {
  scatter_impl(self, dim, index, &src, nullptr, legacy_reduce(reduce), true, out, "scatter");
}
void kernels::scatter_value_reduce_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                           std::string_view reduce, const Tensor& out) {
  scatter_impl(self, dim, index, nullptr, &value, legacy_reduce(reduce), true, out, "scatter");
}
void kernels::scatter_add_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                  const Tensor& out) {
  scatter_impl(self, dim, index, &src, nullptr, Reduce::Sum, true, out, "scatter_add");
}
void kernels::scatter_reduce_two_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                         std::string_view reduce, bool include_self, const Tensor& out) {
  scatter_impl(self, dim, index, &src, nullptr, two_reduce(reduce), include_self, out, "scatter_reduce");
}

// ---------------------------------------------------------------- index_add / index_copy / index_fill

void kernels::index_add_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                                const Scalar& alpha, const Tensor& out) {
  int64_t d = wrap_dim(dim, ndim_1d(self));
  int64_t n = sizes_1d(self)[d];
  Tensor idx = checked_index(index, n, false, [&](int64_t v) { out_of_bounds(ErrorKind::Runtime, "", v, d, n); });
  index_source_impl(self, d, idx, source, out, "index_add", [&](auto tag) {
    using T = decltype(tag);
    using op_t = opmath_t<T>;
    const op_t a = scalar_as<op_t>(alpha);
    return [a](T& dst, T v) { dst = convert<T>(static_cast<op_t>(dst) + a * static_cast<op_t>(v)); };
  });
}

void kernels::index_copy_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                                 const Tensor& out) {
  int64_t d = wrap_dim(dim, ndim_1d(self));
  int64_t n = sizes_1d(self)[d];
  Tensor idx = checked_index(index, n, false,
                             [&](int64_t v) { out_of_bounds(ErrorKind::Index, "index_copy_(): ", v, d, n); });
  index_source_impl(self, d, idx, source, out, "index_copy", [](auto tag) {
    using T = decltype(tag);
    return [](T& dst, T v) { dst = v; };
  });
}

void kernels::index_fill_int_Scalar_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                            const Tensor& out) {
  index_fill_impl(self, dim, index, value, out);
}
void kernels::index_fill_int_Tensor_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value,
                                            const Tensor& out) {
  index_fill_impl(self, dim, index, item(value), out);
}

// ---------------------------------------------------------------- take

void kernels::take_out_cpu(const Tensor& self, const Tensor& index, const Tensor& out) {
  if (index.numel() == 0) return;
  const int64_t n = self.numel();
  TL_CHECK_INDEX(n > 0, "take(): tried to take from an empty tensor");
  Tensor idx = checked_index(index, n, true, [&](int64_t v) {
    TL_CHECK_INDEX(false, "out of range: tried to access index ", v, " on a tensor of ", n, " elements.");
  });
  Tensor flat = contiguous_as(self, self.scalar_type());
  into(out, self.scalar_type(), false, [&](const Tensor& o) {
    DimVector os = sizes_1d(o), ost = strides_1d(o), ist = contiguous_strides(os.ref());
    DimVector zero = zeros_dims(os.size());
    Walk w = make_walk(os.ref(), {ost.ref(), zero.ref(), ist.ref()});
    gather_walk(w, o, flat, idx, 1, "take");
  });
}

// ---------------------------------------------------------------- nonzero

void kernels::nonzero_out_cpu(const Tensor& self, const Tensor& out) {
  into(out, ScalarType::Int64, true, [&](const Tensor& o) {
    if (o.numel() > 0) nonzero_fill(self, o.data<int64_t>());
  });
}

// ---------------------------------------------------------------- masked_fill / masked_select / masked_scatter

namespace {
void masked_fill_impl(const Tensor& self, const Tensor& mask, const Scalar& value, const Tensor& out) {
  into(out, self.scalar_type(), false, [&](const Tensor& o) {
    DimVector ost(o.strides()), sst = expanded_strides(self, o.sizes()), mst = expanded_strides(mask, o.sizes());
    Walk w = make_walk(o.sizes(), {ost.ref(), sst.ref(), mst.ref()});
    dispatch_dtype_and_complex(self.scalar_type(), "masked_fill", [&](auto tag) {
      using T = decltype(tag);
      const T v = scalar_as<T>(value);
      const T* ps = self.data<T>();
      const bool* pm = mask.data<bool>();
      T* po = o.data<T>();
      walk(w, true, [&](const int64_t* off, int64_t n, const int64_t* step) {
        for (int64_t k = 0; k < n; ++k)
          po[off[0] + k * step[0]] = pm[off[2] + k * step[2]] ? v : ps[off[1] + k * step[1]];
      });
    });
  });
}
}  // namespace

void kernels::masked_fill_Scalar_out_cpu(const Tensor& self, const Tensor& mask, const Scalar& value,
                                         const Tensor& out) {
  masked_fill_impl(self, mask, value, out);
}
void kernels::masked_fill_Tensor_out_cpu(const Tensor& self, const Tensor& mask, const Tensor& value,
                                         const Tensor& out) {
  masked_fill_impl(self, mask, item(value), out);
}

void kernels::masked_select_out_cpu(const Tensor& self, const Tensor& mask, const Tensor& out) {
  DimVector shape = broadcast_shapes({&self, &mask});
  DimVector sst = expanded_strides(self, shape.ref()), mst = expanded_strides(mask, shape.ref());
  Walk w = make_walk(shape.ref(), {sst.ref(), mst.ref()});
  into(out, self.scalar_type(), true, [&](const Tensor& o) {
    dispatch_dtype_and_complex(self.scalar_type(), "masked_select", [&](auto tag) {
      using T = decltype(tag);
      const T* ps = self.data<T>();
      const bool* pm = mask.data<bool>();
      T* po = o.data<T>();
      walk(w, false, [&](const int64_t* off, int64_t n, const int64_t* step) {
        for (int64_t k = 0; k < n; ++k)
          if (pm[off[1] + k * step[1]]) *po++ = ps[off[0] + k * step[0]];
      });
    });
  });
}

void kernels::masked_scatter_out_cpu(const Tensor& self, const Tensor& mask, const Tensor& source,
                                     const Tensor& out) {
  into(out, self.scalar_type(), false, [&](const Tensor& o) {
    DimVector shape = sizes_1d(o), ost = strides_1d(o);
    DimVector mst = o.dim() == 0 ? DimVector{0} : expanded_strides(mask, o.sizes());
    Walk w = make_walk(shape.ref(), {ost.ref(), mst.ref()});
    const bool* pm = mask.data<bool>();
    int64_t count = 0;
    walk(w, false, [&](const int64_t* off, int64_t n, const int64_t* step) {
      for (int64_t k = 0; k < n; ++k) count += pm[off[1] + k * step[1]];
    });
    TL_CHECK(count <= source.numel(), "Number of elements of source < number of ones in mask");
    if (!o.is_same(self)) copy_cast_cpu(o, self);
    Tensor src = contiguous_as(source, source.scalar_type());
    dispatch_dtype_and_complex(self.scalar_type(), "masked_scatter", [&](auto tag) {
      using T = decltype(tag);
      const T* ps = src.data<T>();
      T* po = o.data<T>();
      walk(w, false, [&](const int64_t* off, int64_t n, const int64_t* step) {
        for (int64_t k = 0; k < n; ++k)
          if (pm[off[1] + k * step[1]]) po[off[0] + k * step[0]] = *ps++;
      });
    });
  });
}

// ---------------------------------------------------------------- _index / index_put

void kernels::_index_out_cpu(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& out) {
  AdvancedIndex a = plan_index(self, indices, /*build=*/true);
  into(out, self.scalar_type(), false, [&](const Tensor& o) {
    DimVector ost = o.dim() == 0 ? DimVector{} : DimVector(o.strides());
    Walk w = make_walk(a.result.ref(), {ost.ref(), a.src_strides.ref(), a.lin_strides.ref()});
    gather_walk(w, o, a.base, a.lin, 1, "index");
  });
}

void kernels::index_put_out_cpu(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                                bool accumulate, const Tensor& out) {
  into(out, self.scalar_type(), false, [&](const Tensor& o) {
    // Check every index before the first write.
    AdvancedIndex a = plan_index(o, indices, /*build=*/true);
    if (!o.is_same(self)) copy_cast_cpu(o, self);
    DimVector vst = expanded_strides(values, a.result.ref());
    Walk w = make_walk(a.result.ref(), {a.src_strides.ref(), vst.ref(), a.lin_strides.ref()});
    dispatch_dtype_and_complex(self.scalar_type(), "index_put", [&](auto tag) {
      using T = decltype(tag);
      using op_t = opmath_t<T>;
      T* po = a.base.data<T>();
      const T* pv = values.data<T>();
      const int64_t* pl = a.lin.data<int64_t>();
      // In order on one thread: duplicate indices write (or add) in a fixed order.
      walk(w, false, [&](const int64_t* off, int64_t n, const int64_t* step) {
        for (int64_t k = 0; k < n; ++k) {
          T& dst = po[off[0] + k * step[0] + pl[off[2] + k * step[2]]];
          T v = pv[off[1] + k * step[1]];
          dst = accumulate ? convert<T>(static_cast<op_t>(dst) + static_cast<op_t>(v)) : v;
        }
      });
    });
  });
}

}  // namespace torchlite
