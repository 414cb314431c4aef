// torchlite._C's sparse COO primitives (sparse/Coo.h), which torchlite/_sparse.py builds the Python API on:
// sparse_coo_tensor, Tensor.is_sparse, _indices, _values, coalesce, to_dense, and the parts' replacement that
// zero_() and _coalesced_() need.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vector>

#include "core/Error.h"
#include "python/PyTensor.h"
#include "sparse/Coo.h"

namespace py = pybind11;

namespace torchlite::python {
namespace {

const Tensor& tensor_arg(const py::handle& h, const char* op, const char* what) {
  TL_CHECK_TYPE(is_tensor(h.ptr()), op, ": ", what, " must be a Tensor, got ", Py_TYPE(h.ptr())->tp_name);
  return unwrap(h.ptr());
}

py::object wrap_obj(Tensor t) { return py::reinterpret_steal<py::object>(wrap(std::move(t))); }

}  // namespace

void init_sparse(py::module_& m) {
  m.def("_sparse_coo_tensor", [](py::handle indices, py::handle values, std::vector<int64_t> size, bool coalesced,
                                 bool check_bounds) {
    const char* op = "sparse_coo_tensor";
    return wrap_obj(sparse::make_coo(op, tensor_arg(indices, op, "indices"), tensor_arg(values, op, "values"),
                                     IntArrayRef(size), coalesced, check_bounds));
  }, py::arg("indices"), py::arg("values"), py::arg("size"), py::arg("coalesced"), py::arg("check_bounds"),
     "A sparse COO tensor of `size` over int64 indices (sparse_dim, nnz) and values (nnz, *dense sizes), which "
     "it shares; check_bounds checks that every index lies within size.");
  m.def("_is_sparse", [](py::handle t) { return sparse::is_sparse(tensor_arg(t, "is_sparse", "self")); },
        "Whether the tensor is a sparse COO tensor.");
  m.def("_sparse_parts", [](py::handle t) {
    const sparse::CooParts& p = sparse::parts(tensor_arg(t, "_indices", "self"), "_indices");
    return py::make_tuple(wrap_obj(p.indices), wrap_obj(p.values), p.coalesced);
  }, "(indices, values, coalesced) of a sparse COO tensor: its own tensors, not copies.");
  m.def("_sparse_set_parts", [](py::handle t, py::handle indices, py::handle values, bool coalesced) {
    const char* op = "sparse";
    const Tensor& self = tensor_arg(t, op, "self");
    sparse::CooParts& p = sparse::parts(self, op);
    // Checked as a new tensor of self's size, dtype and device would be.
    const Tensor check = sparse::make_coo(op, tensor_arg(indices, op, "indices"), tensor_arg(values, op, "values"),
                                          self.sizes(), coalesced, /*check_bounds=*/false);
    const sparse::CooParts& q = sparse::parts(check);
    TL_CHECK(q.values.scalar_type() == self.scalar_type() && q.values.device() == self.device(), op,
             ": new values must keep the tensor's dtype and device");
    TL_CHECK(q.indices.size(0) == p.indices.size(0), op, ": new indices must keep the sparse_dim ",
             p.indices.size(0));
    p.indices = q.indices;
    p.values = q.values;
    p.coalesced = coalesced;
  }, "Replaces a sparse tensor's indices, values and coalesced flag in place (zero_, _coalesced_).");
  m.def("_sparse_to_dense", [](py::handle t) { return wrap_obj(sparse::to_dense(tensor_arg(t, "to_dense", "self"))); },
        "The dense tensor of a sparse COO tensor (duplicate indices summed).");
  m.def("_sparse_clone", [](py::handle t) { return wrap_obj(sparse::clone(tensor_arg(t, "clone", "self"))); },
        "A sparse tensor with copies of the indices and values.");
}

}  // namespace torchlite::python
