#pragma once
// Portability macros shared by host and device code.
#if defined(__CUDACC__)
#define TL_HOST_DEVICE __host__ __device__
#else
#define TL_HOST_DEVICE
#endif
#define TL_ALWAYS_INLINE inline __attribute__((always_inline))
#define TL_LIKELY(x) __builtin_expect(!!(x), 1)
#define TL_UNLIKELY(x) __builtin_expect(!!(x), 0)

// A hot CPU loop compiled for several x86-64 levels, the best one chosen when the module loads (GCC's
// target_clones: AVX-512, AVX2 + FMA, and the baseline the rest of the module is built for), so that one
// wheel runs everywhere and uses the vector width the machine has. Put it on a function whose loops
// vectorize (`#pragma omp simd`); the inline functions it calls are compiled into each clone.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define TL_CPU_MULTIVERSION __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TL_CPU_MULTIVERSION
#endif
