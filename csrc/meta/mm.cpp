// Output shapes and checks of the matrix products (mm, bmm, addmm, baddbmm), shared by all devices.
#include <cctype>
#include <string>

#include "dispatch/ExactMeta.h"
#include "kernels/addmm.h"
#include "kernels/baddbmm.h"
#include "kernels/bmm.h"
#include "kernels/mm.h"
#include "ops/expand.h"

namespace torchlite {

namespace {

// "float", "double", "long": the lower-case dtype names of some of PyTorch's messages.
std::string lower_name(ScalarType t) {
  std::string s = scalar_type_name(t);
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

void check_same_device(const Tensor& a, const Tensor& b) {
  TL_CHECK(a.device() == b.device(), "Expected all tensors to be on the same device, but found at least two "
           "devices, ", to_string(a.device()), " and ", to_string(b.device()), "!");
}

// bmm's checks, shared with baddbmm.
void check_bmm(const Tensor& batch1, const Tensor& batch2) {
  TL_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TL_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  int64_t bs = batch1.size(0), k = batch1.size(2);
  TL_CHECK(batch2.size(0) == bs && batch2.size(1) == k, "Expected size for first two dimensions of batch2 tensor to "
           "be: [", bs, ", ", k, "] but got: [", batch2.size(0), ", ", batch2.size(1), "].");
  TL_CHECK(batch1.scalar_type() == batch2.scalar_type(), "expected scalar type ", scalar_type_name(batch1.scalar_type()),
           " but found ", scalar_type_name(batch2.scalar_type()));
  check_same_device(batch1, batch2);
}

}  // namespace

TensorMeta meta::mm_meta(const Tensor& self, const Tensor& mat2) {
  TL_CHECK(self.dim() == 2, "self must be a matrix");
  TL_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TL_CHECK(self.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", self.size(0), "x",
           self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  TL_CHECK(self.scalar_type() == mat2.scalar_type(), "expected m1 and m2 to have the same dtype, but got: ",
           lower_name(self.scalar_type()), " != ", lower_name(mat2.scalar_type()));
  check_same_device(self, mat2);
  return exact_meta({self.size(0), mat2.size(1)}, self);
}

TensorMeta meta::bmm_meta(const Tensor& self, const Tensor& mat2) {
  check_bmm(self, mat2);
  return exact_meta({self.size(0), self.size(1), mat2.size(2)}, self);
}

TensorMeta meta::addmm_meta(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                            const Scalar& alpha) {
  TL_CHECK(self.scalar_type() == mat2.scalar_type(), "self and mat2 must have the same dtype, but got ",
           scalar_type_name(self.scalar_type()), " and ", scalar_type_name(mat2.scalar_type()));
  TL_CHECK(mat1.scalar_type() == mat2.scalar_type(), "mat1 and mat2 must have the same dtype, but got ",
           scalar_type_name(mat1.scalar_type()), " and ", scalar_type_name(mat2.scalar_type()));
  TL_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  TL_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  TL_CHECK(mat1.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", mat1.size(0), "x",
           mat1.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  check_same_device(self, mat1);
  check_same_device(mat1, mat2);
  int64_t sizes[2] = {mat1.size(0), mat2.size(1)};
  expand(self, IntArrayRef(sizes, 2));  // PyTorch's broadcast check and message
  return exact_meta({sizes[0], sizes[1]}, mat1);
}

TensorMeta meta::baddbmm_meta(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                              const Scalar& alpha) {
  int64_t sizes[3] = {batch1.size(0), batch1.size(1), batch2.size(2)};
  expand(self, IntArrayRef(sizes, 3));  // PyTorch's broadcast check and message come first
  TL_CHECK(self.scalar_type() == batch1.scalar_type(), "Input dtypes must be the same, got: input ",
           lower_name(self.scalar_type()), ", batch1: ", lower_name(batch1.scalar_type()), ", batch2: ",
           lower_name(batch2.scalar_type()));
  check_bmm(batch1, batch2);
  check_same_device(self, batch1);
  return exact_meta({sizes[0], sizes[1], sizes[2]}, batch1);
}

}  // namespace torchlite
