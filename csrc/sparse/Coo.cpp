#include "sparse/Coo.h"

#include <memory>
#include <string>

#include "core/Error.h"
#include "core/TensorFactory.h"
#include "ops/add.h"
#include "ops/amax.h"
#include "ops/amin.h"
#include "ops/cat.h"
#include "ops/clone.h"
#include "ops/contiguous.h"
#include "ops/index_add.h"
#include "ops/mul.h"
#include "ops/reshape.h"
#include "ops/select.h"
#include "ops/zeros.h"

namespace torchlite::sparse {

namespace {

void release_parts(void* p) { delete static_cast<CooParts*>(p); }

std::string sizes_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// Each value's row in the dense tensor viewed as (prod(size[:sparse_dim]), *dense sizes).
Tensor linear_index(const Tensor& indices, IntArrayRef size) {
  const int64_t sd = indices.size(0);
  if (sd == 1) return select(indices, 0, 0);
  Tensor lin;
  int64_t stride = 1;
  for (int64_t d = sd - 1; d >= 0; --d) {
    const Tensor term = stride == 1 ? select(indices, 0, d)
                                    : mul(select(indices, 0, d), scalar_to_tensor(Scalar(stride), true));
    lin = lin.defined() ? torchlite::add(lin, term) : term;
    stride *= size[d];
  }
  return lin;
}

// The dense tensor's shape with its sparse dims flattened into one: (prod(size[:sparse_dim]), *dense sizes).
DimVector flat_shape(const Tensor& t, int64_t sd) {
  DimVector s;
  int64_t rows = 1;
  for (int64_t d = 0; d < sd; ++d) rows *= t.sizes()[d];
  s.push_back(rows);
  for (int64_t d = sd; d < t.dim(); ++d) s.push_back(t.sizes()[d]);
  return s;
}

}  // namespace

bool is_sparse(const TensorImpl& t) {
  const Storage& s = t.storage();
  return s && s->release_fn() == &release_parts;
}

CooParts& parts(const Tensor& t, const char* op) {
  TL_CHECK(is_sparse(t), op, ": expected a sparse COO tensor, got a dense (strided) one");
  return *static_cast<CooParts*>(t.impl()->storage()->release_context());
}

Tensor make_coo(const char* op, const Tensor& indices, const Tensor& values, IntArrayRef size, bool coalesced,
                bool check_bounds) {
  TL_CHECK(!is_sparse(indices) && !is_sparse(values), op, ": indices and values must be dense tensors");
  TL_CHECK(indices.scalar_type() == ScalarType::Int64, op, ": indices must be an int64 tensor, got ",
           scalar_type_name(indices.scalar_type()));
  TL_CHECK(indices.dim() == 2, op, ": indices must be sparse_dim x nnz, but got: ", sizes_str(indices.sizes()));
  TL_CHECK(values.dim() >= 1, op, ": values must have at least one dimension (nnz), got a 0-dim tensor");
  TL_CHECK(indices.device() == values.device(), op, ": indices and values must be on one device, got ",
           to_string(indices.device()), " and ", to_string(values.device()));
  const int64_t sd = indices.size(0), nnz = indices.size(1), dd = values.dim() - 1;
  TL_CHECK(indices.size(1) == values.size(0), op, ": indices and values must have same nnz, but got nnz from ",
           "indices: ", nnz, ", nnz from values: ", values.size(0));
  TL_CHECK(static_cast<int64_t>(size.size()) == sd + dd, op, ": number of dimensions must be sparse_dim (", sd,
           ") + dense_dim (", dd, "), but got ", size.size());
  for (int64_t d = 0; d < dd; ++d) {
    if (size[sd + d] == values.size(1 + d)) continue;
    DimVector want{nnz}, got;
    for (int64_t k = 0; k < dd; ++k) want.push_back(size[sd + k]);
    for (int64_t k = 0; k <= dd; ++k) got.push_back(values.size(k));
    TL_ERROR(op, ": values has incorrect size, expected ", sizes_str(want.ref()), ", got ", sizes_str(got.ref()));
  }
  check_sizes_nonnegative(op, size);
  (void)checked_numel(size);
  if (check_bounds && nnz > 0) {
    const DimVector dims{1};
    const Tensor lo = amin(indices, dims.ref()), hi = amax(indices, dims.ref());
    for (int64_t d = 0; d < sd; ++d) {
      const int64_t l = item(select(lo, 0, d)).to_long(), h = item(select(hi, 0, d)).to_long();
      TL_CHECK(l >= 0, op, ": found negative index ", l, " for dim ", d);
      TL_CHECK(h < size[d], op, ": size is inconsistent with indices: for dim ", d, ", size is ", size[d],
               " but found index ", h);
    }
  }
  const DimVector one{1};
  auto p = std::make_unique<CooParts>();
  p->indices = indices;
  p->values = values;
  p->coalesced = coalesced;
  p->zero = zeros(one.ref(), values.scalar_type(), values.device());
  void* data = p->zero.impl()->data();
  const Device device = values.device();
  const ScalarType dtype = values.scalar_type();
  auto storage = intrusive_ptr<StorageImpl>::make(data, element_size(dtype), device, &release_parts, p.get());
  p.release();  // the storage owns it now
  auto impl = intrusive_ptr<TensorImpl>::make(std::move(storage), dtype, device);
  const DimVector strides(size.size(), 0);
  impl->set_geometry(size, strides.ref(), 0);
  return Tensor(std::move(impl));
}

Tensor to_dense(const Tensor& t) {
  (void)parts(t, "to_dense");
  Tensor out = zeros(t.sizes(), t.scalar_type(), t.device());
  add_to_dense_(out, t);
  return out;
}

void add_to_dense_(const Tensor& dense, const Tensor& sparse) {
  const CooParts& p = parts(sparse, "add");
  TL_CHECK(dense.sizes().equals(sparse.sizes()), "add: expected a dense and a sparse tensor of one size, got ",
           sizes_str(dense.sizes()), " and ", sizes_str(sparse.sizes()));
  if (p.indices.size(1) == 0) return;
  const int64_t sd = p.indices.size(0);
  const DimVector flat = flat_shape(dense, sd);
  const Tensor lin = linear_index(p.indices, dense.sizes());
  if (dense.is_contiguous()) {
    index_add_(reshape(dense, flat.ref()), 0, lin, p.values);
  } else {
    Tensor tmp = zeros(flat.ref(), dense.scalar_type(), dense.device());
    index_add_(tmp, 0, lin, p.values);
    add_(dense, reshape(tmp, dense.sizes()));
  }
}

Tensor add(const Tensor& a, const Tensor& b) {
  const bool sa = is_sparse(a), sb = is_sparse(b);
  if (!sa && !sb) return torchlite::add(a, b);
  TL_CHECK(a.sizes().equals(b.sizes()), "add: expected tensors of one size, got ", sizes_str(a.sizes()), " and ",
           sizes_str(b.sizes()));
  TL_CHECK(a.scalar_type() == b.scalar_type() && a.device() == b.device(),
           "add: expected a sparse tensor and another of one dtype on one device, got ",
           scalar_type_name(a.scalar_type()), " on ", to_string(a.device()), " and ",
           scalar_type_name(b.scalar_type()), " on ", to_string(b.device()));
  if (sa && sb) {
    const CooParts &pa = parts(a), &pb = parts(b);
    TL_CHECK(pa.indices.size(0) == pb.indices.size(0), "add: expected sparse tensors of one sparse_dim, got ",
             pa.indices.size(0), " and ", pb.indices.size(0));
    const Tensor idx[2] = {pa.indices, pb.indices};
    const Tensor val[2] = {pa.values, pb.values};
    return make_coo("add", cat(ArrayRef<Tensor>(idx, 2), 1), cat(ArrayRef<Tensor>(val, 2), 0), a.sizes(),
                    /*coalesced=*/false, /*check_bounds=*/false);
  }
  Tensor out = contiguous(torchlite::clone(sa ? b : a));
  add_to_dense_(out, sa ? a : b);
  return out;
}

Tensor clone(const Tensor& t) {
  const CooParts& p = parts(t, "clone");
  return make_coo("clone", torchlite::clone(p.indices), torchlite::clone(p.values), t.sizes(), p.coalesced,
                  /*check_bounds=*/false);
}

}  // namespace torchlite::sparse
