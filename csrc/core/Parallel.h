#pragma once
// parallel_for over [0, n) in chunks of at least `grain` elements, with OpenMP.
// No torchlite op may be called inside `f`: it runs inside an OpenMP region.
// An exception thrown by `f` in any thread is rethrown on the calling thread.
#include <cstdint>
#include <exception>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace torchlite {

constexpr int64_t kGrainSize = 32768;

int get_num_threads();
bool in_parallel_region();

template <typename F>
void parallel_for(int64_t n, int64_t grain, const F& f) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
#ifdef _OPENMP
  if (n > grain && get_num_threads() > 1 && !in_parallel_region()) {
    int64_t max_chunks = (n + grain - 1) / grain;
    int nthreads = get_num_threads();
    if (max_chunks < nthreads) nthreads = static_cast<int>(max_chunks);
    std::exception_ptr error;
#pragma omp parallel num_threads(nthreads)
    {
      int tid = omp_get_thread_num();
      int nt = omp_get_num_threads();
      int64_t chunk = (n + nt - 1) / nt;
      int64_t begin = tid * chunk;
      int64_t end = begin + chunk < n ? begin + chunk : n;
      try {
        if (begin < end) f(begin, end);
      } catch (...) {
#pragma omp critical(torchlite_parallel_error)
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
    return;
  }
#endif
  (void)grain;
  f(int64_t(0), n);
}

}  // namespace torchlite
