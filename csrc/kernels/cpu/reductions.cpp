// Reductions on the CPU: prod, amax/amin, max/min (whole and along a dim, with indices), argmax/argmin,
// aminmax, all/any, var/std (and with the mean), norm. Each lays its input out as rows (Reduce.h) and
// reduces every row in one thread, or one long row in fixed blocks, so results do not depend on the
// thread count. Floating sums accumulate pairwise in double.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "kernels/all.h"
#include "kernels/all_dim.h"
#include "kernels/all_dims.h"
#include "kernels/amax.h"
#include "kernels/amin.h"
#include "kernels/aminmax.h"
#include "kernels/any.h"
#include "kernels/any_dim.h"
#include "kernels/any_dims.h"
#include "kernels/argmax.h"
#include "kernels/argmin.h"
#include "kernels/Reduce.h"
#include "kernels/max.h"
#include "kernels/max_dim.h"
#include "kernels/min.h"
#include "kernels/min_dim.h"
#include "kernels/norm.h"
#include "kernels/prod.h"
#include "kernels/prod_dim_int.h"
#include "kernels/std_correction.h"
#include "kernels/std_mean_correction.h"
#include "kernels/var_correction.h"
#include "kernels/var_mean_correction.h"

namespace torchlite {

using reduce::Rows;
using reduce::mask_of;
using reduce::whole_empty;

namespace {

// ------------------------------------------------------------------ prod

template <typename T>
void prod_rows(const Rows& r, const Tensor& result) {
  using acc_t = reduce::sum_acc_t<T>;
  const T* in = r.in.data<T>();
  T* out = result.data<T>();
  reduce::for_each_row(r.nout, r.row, [&](int64_t o) {
    const T* x = in + o * r.row;
    acc_t p = reduce::reduce_row<acc_t>(
        r.row,
        [&](int64_t b, int64_t n) {
          acc_t a = 1;
          for (int64_t i = b; i < b + n; ++i) a *= static_cast<acc_t>(static_cast<opmath_t<T>>(x[i]));
          return a;
        },
        [](acc_t a, acc_t b) { return a * b; });
    out[o] = convert<T>(p);
  });
}

void prod_impl(const Tensor& self, uint64_t mask, ScalarType t, const Tensor& out) {
  Rows r = reduce::rows(self, mask, t);
  Tensor result = reduce::target_for(out, t);
  dispatch_dtype_and_complex(t, "prod", [&](auto tag) { prod_rows<decltype(tag)>(r, result); });
  reduce::finish(out, result);
}

// ------------------------------------------------------------------ max / min

template <bool is_max, typename T>
struct Extreme {
  using op_t = opmath_t<T>;
  // The better of a (earlier) and b: NaN wins, ties keep a.
  static op_t pick(op_t a, op_t b) {
    if (reduce::is_nan(a)) return a;
    if (reduce::is_nan(b)) return b;
    return (is_max ? b > a : b < a) ? b : a;
  }
  // A block with 16-byte vectors (GCC/Clang vector extensions): four accumulators of branch-free
  // selects, which compile to packed compares and blends, and NaN tracked in a mask that wins at
  // the end. T == op_t only; n >= kLanes.
  static constexpr int kVec = 16 / sizeof(T);
  static constexpr int kLanes = 4 * kVec;
  static op_t lanes_of_block(const T* x, int64_t n) {
    typedef T V __attribute__((vector_size(16)));
    V acc[4], v[4];
    std::memcpy(acc, x, sizeof acc);
    auto nan = acc[0] != acc[0];
    for (int k = 1; k < 4; ++k) nan |= acc[k] != acc[k];
    int64_t i = kLanes;
    for (; i + kLanes <= n; i += kLanes) {
      std::memcpy(v, x + i, sizeof v);
      for (int k = 0; k < 4; ++k) {
        acc[k] = (is_max ? v[k] > acc[k] : v[k] < acc[k]) ? v[k] : acc[k];
        nan |= v[k] != v[k];
      }
    }
    T lanes[kLanes];
    std::memcpy(lanes, acc, sizeof lanes);
    op_t best = lanes[0];
    for (int k = 1; k < kLanes; ++k) best = (is_max ? lanes[k] > best : lanes[k] < best) ? lanes[k] : best;
    for (int k = 0; k < kVec; ++k)
      if (nan[k]) return std::numeric_limits<op_t>::quiet_NaN();
    for (; i < n; ++i) best = pick(best, x[i]);
    return best;
  }
  static op_t of_row(const T* x, int64_t n) {
    return reduce::reduce_row<op_t>(
        n,
        [&](int64_t b, int64_t len) {
          if constexpr (std::is_same_v<T, op_t> && std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
            if (len >= kLanes) return lanes_of_block(x + b, len);
          }
          op_t best = static_cast<op_t>(x[b]);
          for (int64_t i = b + 1; i < b + len; ++i) {
            if (reduce::is_nan(best)) break;
            best = pick(best, static_cast<op_t>(x[i]));
          }
          return best;
        },
        pick);
  }
  // (value, index) of the first best element; NaN counts as best.
  static std::pair<op_t, int64_t> arg_of_row(const T* x, int64_t n) {
    using P = std::pair<op_t, int64_t>;
    auto better = [](const P& a, const P& b) {
      if (reduce::is_nan(a.first)) return a;
      if (reduce::is_nan(b.first)) return b;
      return (is_max ? b.first > a.first : b.first < a.first) ? b : a;
    };
    return reduce::reduce_row<P>(
        n,
        [&](int64_t b, int64_t len) {
          P best{static_cast<op_t>(x[b]), b};
          for (int64_t i = b + 1; i < b + len && !reduce::is_nan(best.first); ++i) {
            op_t v = static_cast<op_t>(x[i]);
            if (reduce::is_nan(v) || (is_max ? v > best.first : v < best.first)) best = P{v, i};
          }
          return best;
        },
        better);
  }
};

template <bool is_max>
void extreme_impl(const char* op, const Tensor& self, uint64_t mask, const Tensor& out) {
  ScalarType t = self.scalar_type();
  Rows r = reduce::rows(self, mask, t);
  Tensor result = reduce::target_for(out, t);
  dispatch_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = r.in.data<T>();
    T* o = result.data<T>();
    reduce::for_each_row(r.nout, r.row, [&](int64_t k) {
      o[k] = static_cast<T>(Extreme<is_max, T>::of_row(in + k * r.row, r.row));
    });
  });
  reduce::finish(out, result);
}

// values (may be undefined) and indices of the best element of each row.
template <bool is_max>
void arg_extreme_impl(const char* op, const Tensor& self, uint64_t mask, const Tensor& values,
                      const Tensor& indices) {
  ScalarType t = self.scalar_type();
  Rows r = reduce::rows(self, mask, t);
  Tensor v = values.defined() ? reduce::target_for(values, t) : Tensor();
  Tensor idx = reduce::target_for(indices, ScalarType::Int64);
  dispatch_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = r.in.data<T>();
    T* vo = v.defined() ? v.data<T>() : nullptr;
    int64_t* io = idx.data<int64_t>();
    reduce::for_each_row(r.nout, r.row, [&](int64_t k) {
      auto best = Extreme<is_max, T>::arg_of_row(in + k * r.row, r.row);
      if (vo) vo[k] = static_cast<T>(best.first);
      io[k] = best.second;
    });
  });
  if (v.defined()) reduce::finish(values, v);
  reduce::finish(indices, idx);
}

template <bool is_max>
void amax_impl(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, const Tensor& out) {
  extreme_impl<is_max>(op, self, reduce::check_amax(op, self, dim, out), out);
}

template <bool is_max>
void argmax_impl(const char* op, const Tensor& self, std::optional<int64_t> dim, const Tensor& out) {
  arg_extreme_impl<is_max>(op, self, reduce::check_argmax(op, self, dim), Tensor(), out);
}

template <bool is_max>
void max_dim_impl(const char* op, const Tensor& self, int64_t dim, const Tensor& values, const Tensor& indices) {
  arg_extreme_impl<is_max>(op, self, reduce::check_max_dim(op, self, dim), values, indices);
}

// ------------------------------------------------------------------ all / any

template <bool is_all>
void logical_impl(const char* op, const Tensor& self, uint64_t mask, const Tensor& out) {
  reduce::check_logical_out(op, out);
  ScalarType t = self.scalar_type();
  Rows r = reduce::rows(self, mask, t);
  Tensor result = reduce::target_for(out, ScalarType::Bool);
  dispatch_dtype_and_complex(t, op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = r.in.data<T>();
    bool* o = result.data<bool>();
    reduce::for_each_row(r.nout, r.row, [&](int64_t k) {
      const T* x = in + k * r.row;
      o[k] = reduce::reduce_row<bool>(
          r.row,
          [&](int64_t b, int64_t n) {
            for (int64_t i = b; i < b + n; ++i) {
              bool nz = static_cast<opmath_t<T>>(x[i]) != opmath_t<T>(0);
              if (is_all ? !nz : nz) return !is_all;
            }
            return is_all;
          },
          [](bool a, bool b) { return is_all ? (a && b) : (a || b); });
    });
  });
  reduce::finish(out, result);
}

// ------------------------------------------------------------------ var / std

// Complex rows: the variance is the mean squared modulus of the deviations (var(re) + var(im), a real number),
// the mean complex, as PyTorch.
void complex_var_mean(const Rows& r, double c, bool take_sqrt, const Tensor& var_out, const Tensor& mean_out) {
  const ScalarType t = r.in.scalar_type();
  Tensor v = reduce::target_for(var_out, to_real_type(t));
  Tensor m = mean_out.defined() ? reduce::target_for(mean_out, t) : Tensor();
  const auto run = [&](auto tag) {
    using T = decltype(tag);
    using R = typename T::value_type;
    const T* in = r.in.data<T>();
    R* vo = v.data<R>();
    T* mo = m.defined() ? m.data<T>() : nullptr;
    reduce::for_each_row(r.nout, r.row, [&](int64_t k) {
      const T* x = in + k * r.row;
      const int64_t n = r.row;
      const double re = reduce::sum_row<double>(n, [&](int64_t i) { return static_cast<double>(x[i].re); }) / n;
      const double im = reduce::sum_row<double>(n, [&](int64_t i) { return static_cast<double>(x[i].im); }) / n;
      const double ssd = reduce::sum_row<double>(n, [&](int64_t i) {
        const double dr = static_cast<double>(x[i].re) - re, di = static_cast<double>(x[i].im) - im;
        return dr * dr + di * di;
      });
      const double var = ssd / std::max(0.0, static_cast<double>(n) - c);
      vo[k] = static_cast<R>(take_sqrt ? std::sqrt(var) : var);
      if (mo) mo[k] = T(static_cast<R>(re), static_cast<R>(im));
    });
  };
  if (t == ScalarType::ComplexFloat) {
    run(Complex<float>{});
  } else {
    run(Complex<double>{});
  }
  reduce::finish(var_out, v);
  if (m.defined()) reduce::finish(mean_out, m);
}

// var (or std) and mean of each row; std_out/mean_out may be undefined.
void var_mean_impl(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                   bool take_sqrt, const Tensor& var_out, const Tensor& mean_out) {
  reduce::check_var_dtype(self);
  uint64_t mask = mask_of(self, dim);
  double c = correction.has_value() ? correction->to_double() : 1.0;
  ScalarType t = self.scalar_type();
  Rows r = reduce::rows(self, mask, t);
  if (is_complex_type(t)) return complex_var_mean(r, c, take_sqrt, var_out, mean_out);
  Tensor v = reduce::target_for(var_out, t);
  Tensor m = mean_out.defined() ? reduce::target_for(mean_out, t) : Tensor();
  dispatch_floating(t, take_sqrt ? "std" : "var", [&](auto tag) {
    using T = decltype(tag);
    const T* in = r.in.data<T>();
    T* vo = v.data<T>();
    T* mo = m.defined() ? m.data<T>() : nullptr;
    reduce::for_each_row(r.nout, r.row, [&](int64_t k) {
      const T* x = in + k * r.row;
      int64_t n = r.row;
      double mean = reduce::sum_row<double>(n, [&](int64_t i) { return static_cast<double>(x[i]); }) /
                    static_cast<double>(n);
      double ssd = reduce::sum_row<double>(n, [&](int64_t i) {
        double d = static_cast<double>(x[i]) - mean;
        return d * d;
      });
      double var = ssd / std::max(0.0, static_cast<double>(n) - c);
      vo[k] = static_cast<T>(take_sqrt ? std::sqrt(var) : var);
      if (mo) mo[k] = static_cast<T>(mean);
    });
  });
  reduce::finish(var_out, v);
  if (m.defined()) reduce::finish(mean_out, m);
}

// ------------------------------------------------------------------ norm

}  // namespace

// ------------------------------------------------------------------ kernels and metas

void kernels::prod_out_cpu(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  prod_impl(self, ~uint64_t(0), kernels::prod_compute_dtype(self, dtype), out);
}

void kernels::prod_out_cpu(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype,
                           const Tensor& out) {
  (void)dtype;  // PyTorch multiplies in out's dtype: the result's, dtype= or an out= target's
  prod_impl(self, mask_of(self, dim), out.scalar_type(), out);
}

void kernels::amax_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, const Tensor& out) {
  amax_impl<true>("amax", self, dim.value_or(IntArrayRef()), out);
}

void kernels::amin_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, const Tensor& out) {
  amax_impl<false>("amin", self, dim.value_or(IntArrayRef()), out);
}

void kernels::max_out_cpu(const Tensor& self, const Tensor& out) {
  reduce::check_nonempty("max():", self, ~uint64_t(0), ErrorKind::Runtime, whole_empty("max"));
  extreme_impl<true>("max", self, ~uint64_t(0), out);
}
void kernels::min_out_cpu(const Tensor& self, const Tensor& out) {
  reduce::check_nonempty("min():", self, ~uint64_t(0), ErrorKind::Runtime, whole_empty("min"));
  extreme_impl<false>("min", self, ~uint64_t(0), out);
}

void kernels::max_dim_out_cpu(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,
                              const Tensor& indices) {
  max_dim_impl<true>("max", self, dim, values, indices);
}

void kernels::min_dim_out_cpu(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,
                              const Tensor& indices) {
  max_dim_impl<false>("min", self, dim, values, indices);
}

void kernels::argmax_out_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  argmax_impl<true>("argmax", self, dim, out);
}

void kernels::argmin_out_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  argmax_impl<false>("argmin", self, dim, out);
}

void kernels::aminmax_out_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& min,
                              const Tensor& max) {
  uint64_t mask = reduce::check_aminmax(self, dim);
  ScalarType t = self.scalar_type();
  Rows r = reduce::rows(self, mask, t);
  Tensor lo = reduce::target_for(min, t), hi = reduce::target_for(max, t);
  dispatch_dtype(t, "aminmax", [&](auto tag) {
    using T = decltype(tag);
    using op_t = opmath_t<T>;
    using P = std::pair<op_t, op_t>;
    const T* in = r.in.data<T>();
    T* lo_o = lo.data<T>();
    T* hi_o = hi.data<T>();
    reduce::for_each_row(r.nout, r.row, [&](int64_t k) {
      const T* x = in + k * r.row;
      P mm = reduce::reduce_row<P>(
          r.row,
          [&](int64_t b, int64_t n) {
            P acc{static_cast<op_t>(x[b]), static_cast<op_t>(x[b])};
            for (int64_t i = b + 1; i < b + n; ++i) {
              op_t v = static_cast<op_t>(x[i]);
              acc.first = Extreme<false, T>::pick(acc.first, v);
              acc.second = Extreme<true, T>::pick(acc.second, v);
            }
            return acc;
          },
          [](const P& a, const P& b) {
            return P{Extreme<false, T>::pick(a.first, b.first), Extreme<true, T>::pick(a.second, b.second)};
          });
      lo_o[k] = static_cast<T>(mm.first);
      hi_o[k] = static_cast<T>(mm.second);
    });
  });
  reduce::finish(min, lo);
  reduce::finish(max, hi);
}

void kernels::all_out_cpu(const Tensor& self, const Tensor& out) {
  logical_impl<true>("all", self, ~uint64_t(0), out);
}
void kernels::all_out_cpu(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {
  logical_impl<true>("all", self, mask_of(self, dim), out);
}
void kernels::all_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, const Tensor& out) {
  logical_impl<true>("all", self, reduce::logical_mask(self, dim), out);
}
void kernels::any_out_cpu(const Tensor& self, const Tensor& out) {
  logical_impl<false>("any", self, ~uint64_t(0), out);
}
void kernels::any_out_cpu(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {
  logical_impl<false>("any", self, mask_of(self, dim), out);
}
void kernels::any_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, const Tensor& out) {
  logical_impl<false>("any", self, reduce::logical_mask(self, dim), out);
}

void kernels::var_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim, const Tensor& out) {
  var_mean_impl(self, dim, correction, /*take_sqrt=*/false, out, Tensor());
}

void kernels::std_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim, const Tensor& out) {
  var_mean_impl(self, dim, correction, /*take_sqrt=*/true, out, Tensor());
}

void kernels::var_mean_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim,
                               const std::optional<Scalar>& correction, bool keepdim, const Tensor& var,
                               const Tensor& mean) {
  var_mean_impl(self, dim, correction, /*take_sqrt=*/false, var, mean);
}

void kernels::std_mean_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim,
                               const std::optional<Scalar>& correction, bool keepdim, const Tensor& std,
                               const Tensor& mean) {
  var_mean_impl(self, dim, correction, /*take_sqrt=*/true, std, mean);
}

void kernels::norm_out_cpu(const Tensor& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim,
                           bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  double ord = p.has_value() ? p->to_double() : 2.0;
  uint64_t mask = reduce::check_norm(self, p, dim);
  ScalarType t = dtype.value_or(self.scalar_type());
  Rows r = reduce::rows(self, mask, t);
  Tensor result = reduce::target_for(out, t);
  dispatch_floating(t, "norm", [&](auto tag) {
    using T = decltype(tag);
    const T* in = r.in.data<T>();
    T* o = result.data<T>();
    reduce::for_each_row(r.nout, r.row, [&](int64_t k) {
      const T* x = in + k * r.row;
      int64_t n = r.row;
      auto a = [&](int64_t i) { return std::fabs(static_cast<double>(x[i])); };
      double v;
      if (std::isinf(ord)) {
        bool want_max = ord > 0;
        v = reduce::reduce_row<double>(
            n,
            [&](int64_t b, int64_t len) {
              double best = a(b);
              for (int64_t i = b + 1; i < b + len && !std::isnan(best); ++i) {
                double y = a(i);
                if (std::isnan(y) || (want_max ? y > best : y < best)) best = y;
              }
              return best;
            },
            [&](double l, double rr) {
              if (std::isnan(l) || std::isnan(rr)) return std::numeric_limits<double>::quiet_NaN();
              return want_max ? std::max(l, rr) : std::min(l, rr);
            });
      } else if (ord == 0) {
        v = reduce::sum_row<double>(n, [&](int64_t i) { return static_cast<double>(x[i]) != 0 ? 1.0 : 0.0; });
      } else if (ord == 1) {
        v = reduce::sum_row<double>(n, a);
      } else if (ord == 2) {
        v = std::sqrt(reduce::sum_row<double>(n, [&](int64_t i) { return a(i) * a(i); }));
      } else {
        v = std::pow(reduce::sum_row<double>(n, [&](int64_t i) { return std::pow(a(i), ord); }), 1.0 / ord);
      }
      o[k] = static_cast<T>(v);
    });
  });
  reduce::finish(out, result);
}

}  // namespace torchlite
