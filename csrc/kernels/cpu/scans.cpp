// Scans on the CPU: cumsum, cumprod, cummax, cummin. The scanned dim is moved innermost (Reduce.h's
// rows), each row is scanned in order by one thread (so results never depend on the thread count),
// and the rows are written back through out's own strides.
#include <array>
#include <type_traits>

#include "kernels/Reduce.h"
#include "kernels/cummax.h"
#include "kernels/cummin.h"
#include "kernels/cumprod.h"
#include "kernels/cumsum.h"

namespace torchlite {

using reduce::Rows;

namespace {

// Runs scan(in_row, out_row, n) over every row of self and writes the result (in dtype t) to out: straight
// into out when its rows are contiguous in t (a scan reads x[i] before it writes o[i], so in place is
// safe), else through a temporary. Bool and integers narrower than int64 scanned to int64 (their
// default result dtype) are read as they are, not first copied to an int64 tensor.
template <typename F>
void scan_rows(const char* op, const Tensor& self, int64_t dim, ScalarType t, const Tensor& out, const F& scan) {
  uint64_t mask = uint64_t(1) << wrap_dim(dim, self.dim());
  const Tensor target = reduce::rows_view(out, mask);
  const bool direct = out.scalar_type() == t && target.is_contiguous();
  const ScalarType st = self.scalar_type();
  const bool narrow = t == ScalarType::Int64 && st != t &&
                      (st == ScalarType::Bool || st == ScalarType::UInt8 || st == ScalarType::Int8 ||
                       st == ScalarType::Int16 || st == ScalarType::Int32);
  Rows r = reduce::rows(self, mask, narrow ? st : t);
  Tensor result = direct ? target : empty_tensor(r.in.sizes(), t, self.device());
  dispatch_dtype_and_complex(t, op, [&](auto tag) {
    using T = decltype(tag);
    T* o = result.data<T>();
    auto run = [&](const auto* in) {
      reduce::for_each_row(r.nout, r.row, [&](int64_t k) { scan(in + k * r.row, o + k * r.row, r.row); });
    };
    if constexpr (std::is_same_v<T, int64_t>) {
      if (narrow) {
        switch (st) {
          case ScalarType::Bool: return run(r.in.data<bool>());
          case ScalarType::UInt8: return run(r.in.data<uint8_t>());
          case ScalarType::Int8: return run(r.in.data<int8_t>());
          case ScalarType::Int16: return run(r.in.data<int16_t>());
          default: return run(r.in.data<int32_t>());
        }
      }
    }
    run(r.in.data<T>());
  });
  if (!direct) copy_cast_cpu(target, result);
}

template <bool is_max>
void cum_extreme(const char* op, const Tensor& self, int64_t dim, const Tensor& values, const Tensor& indices) {
  uint64_t mask = uint64_t(1) << wrap_dim(dim, self.dim());
  ScalarType t = self.scalar_type();
  Rows r = reduce::rows(self, mask, t);
  Tensor v = empty_tensor(r.in.sizes(), t, self.device());
  Tensor idx = empty_tensor(r.in.sizes(), ScalarType::Int64, self.device());
  dispatch_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    using op_t = opmath_t<T>;
    const T* in = r.in.data<T>();
    T* vo = v.data<T>();
    int64_t* io = idx.data<int64_t>();
    reduce::for_each_row(r.nout, r.row, [&](int64_t k) {
      const T* x = in + k * r.row;
      T* vr = vo + k * r.row;
      int64_t* ir = io + k * r.row;
      if (r.row == 0) return;
      op_t best = static_cast<op_t>(x[0]);
      int64_t at = 0;
      for (int64_t i = 0; i < r.row; ++i) {
        op_t y = static_cast<op_t>(x[i]);
        // Ties and later NaNs take the latest index (as PyTorch); after a NaN only NaN replaces it.
        if (reduce::is_nan(y) || (!reduce::is_nan(best) && (is_max ? y >= best : y <= best))) {
          best = y;
          at = i;
        }
        vr[i] = x[at];
        ir[i] = at;
      }
    });
  });
  copy_cast_cpu(reduce::rows_view(values, mask), v);
  copy_cast_cpu(reduce::rows_view(indices, mask), idx);
}

}  // namespace

namespace {

// A running accumulation (double for floating dtypes, Complex<double> for complex ones, int64 for integers) from
// `init` with `combine`.
template <typename Combine>
void accumulate_rows(const char* op, const Tensor& self, int64_t dim, ScalarType t, const Tensor& out, int init,
                     const Combine& combine) {
  scan_rows(op, self, dim, t, out, [&](const auto* x, auto* o, int64_t n) {
    using T = std::remove_reference_t<decltype(*o)>;  // the result's dtype (x may be narrower)
    using acc_t = reduce::sum_acc_t<T>;
    acc_t acc = init;
    for (int64_t i = 0; i < n; ++i) {
      acc = combine(acc, static_cast<acc_t>(static_cast<opmath_t<T>>(x[i])));
      o[i] = convert<T>(acc);
    }
  });
}

}  // namespace

// cumsum and cumprod accumulate in out's dtype (the result's, dtype='s, an out= target's or, in place,
// self's), which may not be bool, as PyTorch.
void kernels::cumsum_out_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  reduce::check_scan_inplace_dtype(self, dtype, out);
  if (out.scalar_type() == ScalarType::Bool) throw_dtype_not_implemented("cumsum_out_cpu", ScalarType::Bool);
  accumulate_rows("cumsum", self, dim, out.scalar_type(), out, 0, [](auto a, auto b) { return a + b; });
}

void kernels::cumprod_out_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  reduce::check_scan_inplace_dtype(self, dtype, out);
  if (out.scalar_type() == ScalarType::Bool) throw_dtype_not_implemented("cumprod_out_cpu", ScalarType::Bool);
  accumulate_rows("cumprod", self, dim, out.scalar_type(), out, 1, [](auto a, auto b) { return a * b; });
}

void kernels::cummax_out_cpu(const Tensor& self, int64_t dim, const Tensor& values, const Tensor& indices) {
  cum_extreme<true>("cummax", self, dim, values, indices);
}

void kernels::cummin_out_cpu(const Tensor& self, int64_t dim, const Tensor& values, const Tensor& indices) {
  cum_extreme<false>("cummin", self, dim, values, indices);
}

}  // namespace torchlite
