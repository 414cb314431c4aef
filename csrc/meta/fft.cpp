// Output shapes and argument checks of the FFT kernels (kernels/generic/fft.cpp), shared by all devices.
#include "dispatch/ExactMeta.h"
#include "dispatch/FftShape.h"
#include "kernels/_fft_c2c.h"
#include "kernels/_fft_c2r.h"
#include "kernels/_fft_r2c.h"

namespace torchlite {

namespace {

void check_normalization(int64_t normalization, const char* op) {
  TL_CHECK(normalization >= fft::kNormNone && normalization <= fft::kNormByN, op,
           ": normalization must be 0 (none), 1 (by 1/sqrt(n)) or 2 (by 1/n), got ", normalization);
}

void check_real_input(const Tensor& self, const char* op) {
  ScalarType t = self.scalar_type();
  TL_CHECK(!is_complex_type(t), op, ": Only supports floating-point dtypes, but found: ", scalar_type_name(t));
  TL_CHECK(t == ScalarType::Float || t == ScalarType::Double, op, ": Unsupported dtype ", scalar_type_name(t));
}

void check_complex_input(const Tensor& self, const char* op) {
  ScalarType t = self.scalar_type();
  TL_CHECK(is_complex_type(t), op, ": Only supports complex dtypes, but found: ", scalar_type_name(t));
  TL_CHECK(t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble, op, ": Unsupported dtype ",
           scalar_type_name(t));
}

}  // namespace

TensorMeta meta::fft_c2c_meta(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  (void)forward;
  check_complex_input(self, "_fft_c2c");
  check_normalization(normalization, "_fft_c2c");
  fft::wrap_fft_dims(self, dim, "_fft_c2c");
  return exact_meta(DimVector(self.sizes()), self);
}

TensorMeta meta::fft_r2c_meta(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  check_real_input(self, "_fft_r2c");
  check_normalization(normalization, "_fft_r2c");
  DimVector d = fft::wrap_fft_dims(self, dim, "_fft_r2c");
  TL_CHECK(!d.empty(), "_fft_r2c: must transform at least one axis");
  DimVector sizes(self.sizes());
  if (onesided) sizes[d[d.size() - 1]] = sizes[d[d.size() - 1]] / 2 + 1;
  return exact_meta(std::move(sizes), self, to_complex_type(self.scalar_type()));
}

TensorMeta meta::fft_c2r_meta(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  check_complex_input(self, "_fft_c2r");
  check_normalization(normalization, "_fft_c2r");
  DimVector d = fft::wrap_fft_dims(self, dim, "_fft_c2r");
  TL_CHECK(!d.empty(), "_fft_c2r: must transform at least one axis");
  TL_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified");
  DimVector sizes(self.sizes());
  sizes[d[d.size() - 1]] = last_dim_size;
  return exact_meta(std::move(sizes), self, to_real_type(self.scalar_type()));
}

}  // namespace torchlite
