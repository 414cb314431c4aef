// Random ops on the CPU. Each op first checks its arguments, then takes the
// blocks of the Philox stream it needs from its generator (core/Generator.h),
// then computes element i (in row-major order of the output) from
// (seed, offset, i) alone, in parallel: the values do not depend on the thread
// count, and a strided output gets the values a contiguous one would.
//
// How many words of the stream an element uses (a block is 4 words):
//   uniform_, exponential_: 1 word (float, half, bfloat16: 24/11/8 random bits), 2 for double (53 bits)
//   normal: elements 2k and 2k+1 share block k (Box-Muller makes two normals from two uniforms)
//   random_, randint: 1 word when the range fits in 32 bits, else 2
//   bernoulli: 2 words (a 53-bit uniform compared with p)
//   randperm: 2 words per position (inside-out Fisher-Yates, sequential)
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Generator.h"
#include "core/Parallel.h"
#include "core/Philox.h"
#include "core/TensorFactory.h"
#include "dispatch/Meta.h"
#include "kernels/Convert.h"
#include "kernels/RandomArgs.h"
#include "kernels/Dispatch.h"
#include "kernels/ElementwiseIter.h"
#include "kernels/bernoulli.h"
#include "kernels/bernoulli_Tensor.h"
#include "kernels/bernoulli_p.h"
#include "kernels/exponential.h"
#include "kernels/normal_Tensor_Tensor.h"
#include "kernels/normal_Tensor_float.h"
#include "kernels/normal_float_Tensor.h"
#include "kernels/normal_functional.h"
#include "kernels/random.h"
#include "kernels/random_from.h"
#include "kernels/random_to.h"
#include "kernels/randperm.h"
#include "kernels/uniform.h"

namespace torchlite {
using namespace random_args;
namespace {

constexpr int64_t kRandomGrain = 4096;  // elements per thread at least: a Philox block costs ~20 multiplies

// ------------------------------------------------------------------ filling

uint64_t blocks_for(int64_t numel, int words_per_element) {
  return (static_cast<uint64_t>(numel) * static_cast<uint64_t>(words_per_element) + 3) / 4;
}

// Runs chunk(data, begin, end) over [0, numel) in parallel, data being `out` (as T) when contiguous, else a
// contiguous temporary copied into `out` afterwards: element i is always the i-th in row-major order.
template <typename T, typename Chunk>
void fill_rowmajor(const Tensor& out, const Chunk& chunk) {
  int64_t n = out.numel();
  if (n == 0) return;
  Tensor dst = out.is_contiguous() ? out : empty_tensor(out.sizes(), out.scalar_type(), out.device());
  T* data = dst.data<T>();
  parallel_for(n, kRandomGrain, [&](int64_t begin, int64_t end) { chunk(data, begin, end); });
  if (!dst.is_same(out)) copy_cast_cpu(out, dst);
}

// Uniform in [0, 1) for element i of an op on T: 53 bits from two words for double, else the top
// digits<T>() bits of one word (exact in T).
template <typename T>
constexpr int uniform_words() {
  return std::is_same_v<T, double> ? 2 : 1;
}

template <typename T>
double uniform_at(philox::Words& words, int64_t i) {
  if constexpr (std::is_same_v<T, double>) {
    return philox::uniform_double(words.u64(2 * static_cast<uint64_t>(i)));
  } else {
    return philox::uniform_from_bits(words[static_cast<uint64_t>(i)], digits<T>());
  }
}

// A contiguous float64 copy of t broadcast to `sizes` (the probabilities, means and stds of the ops below).
Tensor as_double(const Tensor& t, IntArrayRef sizes) {
  Tensor d = empty_tensor(sizes, ScalarType::Double);
  copy_cast_cpu(d, t);
  return d;
}

// ------------------------------------------------------------------ uniform

// ------------------------------------------------------------------ normal

// Standard normals by Box-Muller. Elements 2k and 2k+1 share block `offset + k`: with u1, u2 uniform in
// [0, 1) from it, r = sqrt(-2 log(1 - u1)) and theta = 2 pi u2, they are r cos(theta) and r sin(theta).
// Double uses 53-bit uniforms and double math, the other floating types 24-bit ones and float math.
// out[i] = write(i, z_i), which applies the mean and std.
template <typename T, typename Write>
void normal_fill(const Tensor& out, const std::optional<Generator>& generator, const Write& write) {
  using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const PhiloxRange r = generator_for(generator, out.device()).take((static_cast<uint64_t>(out.numel()) + 1) / 2);
  fill_rowmajor<T>(out, [&](T* data, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end;) {
      const philox::Block b = philox::stream_block(r.seed, r.offset + static_cast<uint64_t>(i) / 2);
      acc_t u1, u2;
      if constexpr (std::is_same_v<T, double>) {
        u1 = philox::uniform_double(static_cast<uint64_t>(b.x[1]) << 32 | b.x[0]);
        u2 = philox::uniform_double(static_cast<uint64_t>(b.x[3]) << 32 | b.x[2]);
      } else {
        u1 = philox::uniform_from_bits(b.x[0], 24);
        u2 = philox::uniform_from_bits(b.x[1], 24);
      }
      const acc_t radius = std::sqrt(acc_t(-2) * std::log(acc_t(1) - u1));
      const acc_t theta = acc_t(6.283185307179586) * u2;
      if ((i & 1) == 0) {
        data[i] = write(i, radius * std::cos(theta));
        if (++i == end) break;
      }
      data[i] = write(i, radius * std::sin(theta));
      ++i;
    }
  });
}

// The normal ops: mean and std are per element (a float64 array of out's shape) or one number.
void normal_impl(const Tensor& out, const std::optional<Generator>& generator, const Tensor* mean_t, double mean,
                 const Tensor* std_t, double std) {
  dispatch_floating(out.scalar_type(), "normal_kernel_cpu", [&](auto tag) {
    using T = decltype(tag);
    Tensor means = mean_t ? as_double(*mean_t, out.sizes()) : Tensor();
    Tensor stds = std_t ? as_double(*std_t, out.sizes()) : Tensor();
    if (std_t) {
      const double* s = stds.data<double>();
      for (int64_t i = 0, n = stds.numel(); i < n; ++i)
        TL_CHECK(s[i] >= 0.0, "normal expects all elements of std >= 0.0");  // NaN fails too
    }
    const double* m = mean_t ? means.data<double>() : nullptr;
    const double* s = std_t ? stds.data<double>() : nullptr;
    normal_fill<T>(out, generator, [&](int64_t i, auto z) {
      return static_cast<T>((m ? m[i] : mean) + (s ? s[i] : std) * static_cast<double>(z));
    });
  });
}


// ------------------------------------------------------------------ random_

// Integers from [from, from + range) written as T; range 0 stands for 2^64 (all int64 values).
template <typename T>
void random_fill(const Tensor& out, const std::optional<Generator>& generator, int64_t from, uint64_t range) {
  const bool wide = range == 0 || range > (uint64_t(1) << 32);
  const PhiloxRange r = generator_for(generator, out.device()).take(blocks_for(out.numel(), wide ? 2 : 1));
  fill_rowmajor<T>(out, [&](T* data, int64_t begin, int64_t end) {
    philox::Words words(r.seed, r.offset);
    for (int64_t i = begin; i < end; ++i) {
      const uint64_t x = wide ? words.u64(2 * static_cast<uint64_t>(i)) : words[static_cast<uint64_t>(i)];
      const uint64_t v = static_cast<uint64_t>(from) + (range == 0 ? x : x % range);
      data[i] = convert<T>(static_cast<int64_t>(v));
    }
  });
}

void random_from_to(const Tensor& out, int64_t from, std::optional<int64_t> to,
                    const std::optional<Generator>& generator) {
  dispatch_dtype(out.scalar_type(), "random_", [&](auto tag) {
    using T = decltype(tag);
    random_fill<T>(out, generator, from, random_range<T>(from, to));
  });
}

// ------------------------------------------------------------------ bernoulli

// out[i] = u_i < p_i, with u_i uniform in [0, 1) from 53 bits; p per element (float64, out's shape) or one.
void bernoulli_impl(const Tensor& out, const std::optional<Generator>& generator, const double* probs, double p) {
  dispatch_dtype(out.scalar_type(), "bernoulli_", [&](auto tag) {
    using T = decltype(tag);
    const PhiloxRange r = generator_for(generator, out.device()).take(blocks_for(out.numel(), 2));
    fill_rowmajor<T>(out, [&](T* data, int64_t begin, int64_t end) {
      philox::Words words(r.seed, r.offset);
      for (int64_t i = begin; i < end; ++i) {
        const double u = philox::uniform_double(words.u64(2 * static_cast<uint64_t>(i)));
        data[i] = convert<T>(u < (probs ? probs[i] : p) ? 1 : 0);
      }
    });
  });
}

// Probabilities from a tensor: floating, each in [0, 1].
Tensor probabilities(const Tensor& p, IntArrayRef sizes) {
  if (!is_floating_type(p.scalar_type())) throw_dtype_not_implemented("bernoulli_tensor_cpu_p_", p.scalar_type());
  Tensor d = as_double(p, sizes);
  const double* v = d.data<double>();
  for (int64_t i = 0, n = d.numel(); i < n; ++i)
    TL_CHECK(v[i] >= 0.0 && v[i] <= 1.0, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
  return d;
}

}  // namespace

// ------------------------------------------------------------------ the kernels

void kernels::uniform_out_cpu(const Tensor& self, double from, double to, const std::optional<Generator>& generator,
                              const Tensor& out) {
  dispatch_floating(out.scalar_type(), "check_uniform_bounds", [&](auto tag) {
    using T = decltype(tag);
    check_uniform_bounds<T>(from, to, out.scalar_type());
    const T top = largest_below<T>(to);  // where a sample rounds up to `to`
    const double width = to - from;
    const PhiloxRange r = generator_for(generator, out.device()).take(blocks_for(out.numel(), uniform_words<T>()));
    fill_rowmajor<T>(out, [&](T* data, int64_t begin, int64_t end) {
      philox::Words words(r.seed, r.offset);
      for (int64_t i = begin; i < end; ++i) {
        T v = static_cast<T>(from + uniform_at<T>(words, i) * width);
        if (TL_UNLIKELY(!(static_cast<double>(v) < to)) && from < to) v = top;
        data[i] = v;
      }
    });
  });
}

void kernels::normal_functional_out_cpu(const Tensor& self, double mean, double std,
                                        const std::optional<Generator>& generator, const Tensor& out) {
  check_std(std);
  normal_impl(out, generator, nullptr, mean, nullptr, std);
}

void kernels::normal_Tensor_Tensor_out_cpu(const Tensor& mean, const Tensor& std,
                                           const std::optional<Generator>& generator, const Tensor& out) {
  normal_impl(out, generator, &mean, 0.0, &std, 0.0);
}

void kernels::normal_Tensor_float_out_cpu(const Tensor& mean, double std, const std::optional<Generator>& generator,
                                          const Tensor& out) {
  check_std(std);
  normal_impl(out, generator, &mean, 0.0, nullptr, std);
}

void kernels::normal_float_Tensor_out_cpu(double mean, const Tensor& std, const std::optional<Generator>& generator,
                                          const Tensor& out) {
  normal_impl(out, generator, nullptr, mean, &std, 0.0);
}

void kernels::random_from_out_cpu(const Tensor& self, int64_t from, std::optional<int64_t> to,
                                  const std::optional<Generator>& generator, const Tensor& out) {
  random_from_to(out, from, to, generator);
}

void kernels::random_to_out_cpu(const Tensor& self, int64_t to, const std::optional<Generator>& generator,
                                const Tensor& out) {
  random_from_to(out, 0, to, generator);
}

void kernels::random_out_cpu(const Tensor& self, const std::optional<Generator>& generator, const Tensor& out) {
  dispatch_dtype(out.scalar_type(), "random_", [&](auto tag) {
    using T = decltype(tag);
    random_fill<T>(out, generator, 0, static_cast<uint64_t>(random_max<T>()) + 1);
  });
}

void kernels::exponential_out_cpu(const Tensor& self, double lambd, const std::optional<Generator>& generator,
                                  const Tensor& out) {
  TL_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  TL_CHECK(is_floating_type(out.scalar_type()), "Exponential distribution is a continuous probability "
           "distribution. dtype must be a floating point but you specified ", scalar_type_name(out.scalar_type()));
  dispatch_floating(out.scalar_type(), "exponential_", [&](auto tag) {
    using T = decltype(tag);
    const PhiloxRange r = generator_for(generator, out.device()).take(blocks_for(out.numel(), uniform_words<T>()));
    fill_rowmajor<T>(out, [&](T* data, int64_t begin, int64_t end) {
      philox::Words words(r.seed, r.offset);
      for (int64_t i = begin; i < end; ++i) data[i] = static_cast<T>(-std::log1p(-uniform_at<T>(words, i)) / lambd);
    });
  });
}

void kernels::bernoulli_out_cpu(const Tensor& self, const std::optional<Generator>& generator, const Tensor& out) {
  Tensor probs = probabilities(self, out.sizes());
  bernoulli_impl(out, generator, probs.data<double>(), 0.0);
}

void kernels::bernoulli_p_out_cpu(const Tensor& self, double p, const std::optional<Generator>& generator,
                                  const Tensor& out) {
  TL_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  bernoulli_impl(out, generator, nullptr, p);
}

void kernels::bernoulli_Tensor_out_cpu(const Tensor& self, const Tensor& p, const std::optional<Generator>& generator,
                                       const Tensor& out) {
  Tensor probs = probabilities(p, out.sizes());
  bernoulli_impl(out, generator, probs.data<double>(), 0.0);
}

void kernels::randperm_out_cpu(int64_t n, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                               std::optional<Device> device, const Tensor& out) {
  const ScalarType t = out.scalar_type();
  if (t == ScalarType::Bool) throw_dtype_not_implemented("randperm", t);
  TL_CHECK(t != ScalarType::Half || n <= 2049, "n cannot be greater than 2049 for Half type.");
  TL_CHECK(t != ScalarType::Float || n <= (int64_t(1) << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
  TL_CHECK(t != ScalarType::Double || n <= (int64_t(1) << 53) + 1,
           "n cannot be greater than 2^53+1 for Double type.");
  dispatch_dtype(t, "randperm", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!is_floating_v<T> && !std::is_same_v<T, bool>) {
      TL_CHECK(n == 0 || n - 1 <= static_cast<int64_t>(std::numeric_limits<T>::max()),
               "value cannot be converted to type ", fixed_width_name<T>(), " without overflow");
    }
    // Inside-out Fisher-Yates: position i draws j uniform in [0, i] from words 2i, 2i+1 of the stream.
    const PhiloxRange r = generator_for(generator, out.device()).take(blocks_for(n, 2));
    std::vector<int64_t> perm(static_cast<size_t>(n));
    philox::Words words(r.seed, r.offset);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = static_cast<int64_t>(words.u64(2 * static_cast<uint64_t>(i)) % static_cast<uint64_t>(i + 1));
      perm[static_cast<size_t>(i)] = perm[static_cast<size_t>(j)];
      perm[static_cast<size_t>(j)] = i;
    }
    fill_rowmajor<T>(out, [&](T* data, int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) data[i] = convert<T>(perm[static_cast<size_t>(i)]);
    });
  });
}

}  // namespace torchlite
