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
