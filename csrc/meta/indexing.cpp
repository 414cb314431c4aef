// Output shapes of the indexing ops (gather, scatter, index_*, take, nonzero, masked_*, x[i]) and their argument
// checks, shared by all devices.
#include "dispatch/Meta.h"
#include "core/DeviceGuard.h"
#include "dispatch/KernelTable.h"
#include "kernels/CountNonzero.h"
#include "kernels/IndexWalk.h"
#include "kernels/_index.h"
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

// The metas' count (the result's size), on the tensor's device: a table of its own (registered at load), so
// that the tests' modes reach the CUDA kernel compiled for the host (dispatch/KernelTable.h).
using CountKernel = int64_t (*)(const Tensor&);
KernelTable<CountKernel> g_count_nonzero(&kernels::count_nonzero_cpu, TL_CUDA_KERNEL(&kernels::count_nonzero_cuda),
                                         &kernels::on_host::count_nonzero_cuda, /*has_cuda=*/true);
constexpr OpInfo kCountNonzero{"count_nonzero", "", "count_nonzero(Tensor self) -> int"};

int64_t count_nonzero(const Tensor& t) {
  const DeviceGuard guard(t.device());  // called by metas, not through an op
  return g_count_nonzero.get(kCountNonzero, t.device())(t);
}


// An out= target must have t's dtype exactly, as PyTorch requires of these ops.
TensorMeta meta_like(const Tensor& t, IntArrayRef sizes) {
  TensorMeta m;
  m.sizes.assign(sizes);
  m.dtype = t.scalar_type();
  m.device = t.device();
  m.exact_dtype = true;
  return m;
}

void check_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  int64_t d = wrap_dim(dim, ndim_1d(self));
  if (index.numel() != 0) TL_CHECK(is_int_index(index), "scatter(): Expected dtype int32/int64 for index");
  if (src) TL_CHECK(src->scalar_type() == self.scalar_type(), "scatter(): Expected self.dtype to be equal to src.dtype");
  if (index.numel() == 0) return;
  TL_CHECK(ndim_1d(index) == ndim_1d(self), "Index tensor must have the same number of dimensions as self tensor");
  DimVector is = sizes_1d(index), ss = sizes_1d(self);
  for (int64_t k = 0; k < static_cast<int64_t>(is.size()); ++k) {
    bool bad = k != d && is[k] > ss[k];
    if (src) bad = bad || is[k] > (src->dim() == 0 ? 1 : src->size(k));
    if (bad) {
      if (src)
        TL_ERROR("Expected index ", index.sizes(), " to be no larger than self ", self.sizes(), " apart from dimension ",
                 d, " and to be no larger size than src ", src->sizes());
      TL_ERROR("Expected index ", index.sizes(), " to be no larger than self ", self.sizes(), " apart from dimension ",
               d);
    }
  }
}

void check_index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  int64_t d = wrap_dim(dim, ndim_1d(self));
  TL_CHECK_INDEX(index.dim() <= 1, "index_add_(): Index is supposed to be a vector, but got dim: ", index.dim(),
                 " with type: ", scalar_type_name(index.scalar_type()), " and size: ", index.sizes());
  TL_CHECK(is_int_index(index), "index_add_(): Expected dtype int32/int64 for index but got: ",
           scalar_type_name(index.scalar_type()));
  TL_CHECK(self.scalar_type() == source.scalar_type(), "index_add_(): self (", scalar_type_name(self.scalar_type()),
           ") and source (", scalar_type_name(source.scalar_type()), ") must have the same scalar type");
  TL_CHECK(d == 0 || d < source.dim(), "index_add_(): Indexing dim ", d,
           " is out of bounds of the source tensor with dim ", source.dim());
  int64_t ns = source.dim() == 0 ? 1 : source.size(d);
  TL_CHECK(index.numel() == ns, "index_add_(): Number of indices (", index.numel(),
           ") should be equal to source.size(dim): (", ns, "), for dim: ", d);
  // PyTorch compares the shapes without dim, or whole when either is 0-dim.
  DimVector a(self.sizes()), b(source.sizes());
  bool same = true;
  if (self.dim() != 0 && source.dim() != 0) {
    same = d < self.dim() && d < source.dim();
    if (same) {
      a.erase(d);
      b.erase(d);
    }
  }
  same = same && a.ref().equals(b.ref());
  TL_CHECK(same, "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = ",
           self.sizes(), " source.shape = ", source.sizes());
}

void check_index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  int64_t d = wrap_dim(dim, ndim_1d(self));
  TL_CHECK_INDEX(index.dim() < 2, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  int64_t n = index.numel();
  if (source.dim() == 0) {
    TL_CHECK_INDEX(n == 1, "index_copy_(): When source is scalar, index should have one element (got ", n, ")");
  } else if (source.dim() != self.dim() && self.dim() != 0) {
    TL_CHECK_INDEX(false, "index_copy_(): When source and destination are not scalars, their dimensionality must "
                   "match. Source dimensionality (", source.dim(), "), destination dimensionality (", self.dim(), ")");
  }
  TL_CHECK(index.scalar_type() == ScalarType::Int64, "index_copy_(): Expected a long tensor for index, but got ",
           scalar_type_name(index.scalar_type()));
  TL_CHECK(self.scalar_type() == source.scalar_type(),
           "index_copy_(): self and source expected to have the same dtype, but got (self) ",
           scalar_type_name(self.scalar_type()), " and (source) ", scalar_type_name(source.scalar_type()));
  DimVector a, b;
  for (int64_t k = 0; k < self.dim(); ++k)
    if (k != d) a.push_back(self.sizes()[k]);
  for (int64_t k = 0; k < source.dim(); ++k)
    if (k != d) b.push_back(source.sizes()[k]);
  if (!a.ref().equals(b.ref())) {
    auto join = [](const DimVector& v) {
      std::string s;
      for (size_t k = 0; k < v.size(); ++k) s += (k ? " " : "") + std::to_string(v[k]);
      return s;
    };
    TL_ERROR("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
             join(a), " at dimension ", d, " and source slice shape: ", join(b), " at dimension 0.");
  }
  TL_CHECK_INDEX(source.dim() == 0 || n == source.size(d), "index_copy_(): Number of indices (", n,
                 ") should be equal to source.size(dim) (", source.dim() == 0 ? 1 : source.size(d), ")");
}

void check_index_fill(const Tensor& self, int64_t dim, const Tensor& index) {
  wrap_dim(dim, ndim_1d(self));
  TL_CHECK_INDEX(index.scalar_type() == ScalarType::Int64, "index_fill_(): Expected dtype int64 for index.");
  TL_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
}

}  // namespace

TensorMeta meta::index_select_meta(const Tensor& self, int64_t dim, const Tensor& index) {
  TL_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TL_CHECK(is_int_index(index), "index_select(): Expected dtype int32 or int64 for index");
  int64_t d = wrap_dim(dim, ndim_1d(self));
  if (self.dim() == 0) {
    TL_CHECK(index.numel() == 1, "index_select(): Index to scalar can have only 1 value, got ", index.numel(),
             " value(s)");
    return meta_like(self, self.sizes());
  }
  DimVector s(self.sizes());
  s[d] = index.numel();
  return meta_like(self, s.ref());
}

TensorMeta meta::gather_meta(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  int64_t d = wrap_dim(dim, ndim_1d(self));
  if (index.numel() != 0) {
    TL_CHECK(is_int_index(index), "gather(): Expected dtype int32/int64 for index");
    TL_CHECK(ndim_1d(index) == ndim_1d(self), "Index tensor must have the same number of dimensions as input tensor");
    DimVector is = sizes_1d(index), ss = sizes_1d(self);
    for (int64_t k = 0; k < static_cast<int64_t>(is.size()); ++k)
      TL_CHECK(k == d || is[k] <= ss[k], "Size does not match at dimension ", k, " expected index ", index.sizes(),
               " to be no larger than self ", self.sizes(), " apart from dimension ", d);
  }
  return meta_like(self, index.sizes());
}

TensorMeta meta::scatter_src_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter(self, dim, index, &src);
  return meta_like(self, self.sizes());
}

TensorMeta meta::scatter_value_meta(const Tensor& self, int64_t dim, const Tensor& index, const Scalar&) {
  check_scatter(self, dim, index, nullptr);
  return meta_like(self, self.sizes());
}

TensorMeta meta::scatter_reduce_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                     std::string_view reduce) {
  check_scatter(self, dim, index, &src);
  legacy_reduce(reduce);
  return meta_like(self, self.sizes());
}

TensorMeta meta::scatter_value_reduce_meta(const Tensor& self, int64_t dim, const Tensor& index, const Scalar&,
                                           std::string_view reduce) {
  check_scatter(self, dim, index, nullptr);
  legacy_reduce(reduce);
  return meta_like(self, self.sizes());
}

TensorMeta meta::scatter_add_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter(self, dim, index, &src);
  return meta_like(self, self.sizes());
}

TensorMeta meta::scatter_reduce_two_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                         std::string_view reduce, bool) {
  check_scatter(self, dim, index, &src);
  two_reduce(reduce);
  return meta_like(self, self.sizes());
}

TensorMeta meta::index_add_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                                const Scalar&) {
  check_index_add(self, dim, index, source);
  return meta_like(self, self.sizes());
}

TensorMeta meta::index_copy_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  check_index_copy(self, dim, index, source);
  return meta_like(self, self.sizes());
}

TensorMeta meta::index_fill_int_Scalar_meta(const Tensor& self, int64_t dim, const Tensor& index, const Scalar&) {
  check_index_fill(self, dim, index);
  return meta_like(self, self.sizes());
}

TensorMeta meta::index_fill_int_Tensor_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor&) {
  check_index_fill(self, dim, index);
  return meta_like(self, self.sizes());
}

TensorMeta meta::take_meta(const Tensor& self, const Tensor& index) {
  TL_CHECK(index.scalar_type() == ScalarType::Int64, "take(): Expected a long tensor for index, but got ",
           scalar_type_name(index.scalar_type()));
  return meta_like(self, index.sizes());
}

TensorMeta meta::nonzero_meta(const Tensor& self) {
  TensorMeta m;
  m.sizes = DimVector{count_nonzero(self), self.dim()};
  m.dtype = ScalarType::Int64;
  m.device = self.device();
  m.exact_dtype = true;
  return m;
}

TensorMeta meta::masked_fill_Scalar_meta(const Tensor& self, const Tensor& mask, const Scalar&) {
  return meta_like(self, broadcast_shapes({&self, &mask}).ref());
}

TensorMeta meta::masked_fill_Tensor_meta(const Tensor& self, const Tensor& mask, const Tensor&) {
  return meta_like(self, broadcast_shapes({&self, &mask}).ref());
}

TensorMeta meta::masked_select_meta(const Tensor& self, const Tensor& mask) {
  TL_CHECK(mask.scalar_type() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  DimVector shape = broadcast_shapes({&self, &mask});
  int64_t total = compute_numel(shape.ref());
  int64_t count = total == 0 ? 0 : count_nonzero(mask) * (total / mask.numel());
  return meta_like(self, DimVector{count}.ref());
}

TensorMeta meta::masked_scatter_meta(const Tensor& self, const Tensor& mask, const Tensor& source) {
  TL_CHECK(mask.scalar_type() == ScalarType::Bool, "masked_scatter_ only supports boolean masks, but got mask with "
           "dtype ", scalar_type_name(mask.scalar_type()));
  TL_CHECK(self.scalar_type() == source.scalar_type(), "masked_scatter: expected self and source to have same dtypes "
           "but got", scalar_type_name(self.scalar_type()), " and ", scalar_type_name(source.scalar_type()));
  return meta_like(self, broadcast_shapes({&self, &mask}).ref());
}

TensorMeta meta::_index_meta(const Tensor& self, ArrayRef<std::optional<Tensor>> indices) {
  return meta_like(self, plan_index(self, indices, /*build=*/false).result.ref());
}

TensorMeta meta::index_put_meta(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                                bool) {
  TL_CHECK(values.scalar_type() == self.scalar_type(), "Index put requires the source and destination dtypes match, "
           "got ", scalar_type_name(self.scalar_type()), " for the destination and ",
           scalar_type_name(values.scalar_type()), " for the source.");
  DimVector result = plan_index(self, indices, /*build=*/false).result;
  bool ok = values.dim() <= static_cast<int64_t>(result.size());
  for (int64_t k = 0; ok && k < values.dim(); ++k) {
    int64_t v = values.sizes()[values.dim() - 1 - k], r = result[result.size() - 1 - k];
    ok = v == r || v == 1;
  }
  TL_CHECK(ok, "shape mismatch: value tensor of shape ", values.sizes(),
           " cannot be broadcast to indexing result of shape ", result.ref());
  return meta_like(self, self.sizes());
}

}  // namespace torchlite
