#pragma once
// parallel_for over [0, n) in chunks of at least `grain` elements, with OpenMP.
// No torchlite op may be called inside `f`: it runs inside an OpenMP region.
// An exception thrown by `f` in any thread is rethrown on the calling thread.
//
// The thread count is process-wide (not OpenMP's per-thread ICV), so ops called
// from any Python thread use what torchlite.set_num_threads set. A forked child
// starts with one thread. libgomp's thread pool does not survive fork(): a
// child whose forking thread had run a parallel region hangs in its next one,
// so in such a child parallel_for stays on the calling thread even if
// set_num_threads raises the count again (BLAS still follows it).
#include <cstdint>
#include <exception>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace torchlite {

constexpr int64_t kGrainSize = 32768;

// The intra-op thread count parallel_for uses (OMP_NUM_THREADS or the number of
// cores at start-up).
int get_num_threads();
// Sets the intra-op thread count for OpenMP, whose threads also share BLAS products (OpenBLAS keeps one
// thread of its own); n < 1 throws "set_num_threads expects a positive integer".
void set_num_threads(int n);
// torchlite has no inter-op pool: the value is checked and recorded only (1 at start-up).
int get_num_interop_threads();
void set_num_interop_threads(int n);
bool in_parallel_region();

// The GIL around long kernel loops: the Python module installs hooks that
// release the GIL (when the calling thread holds it) and take it back; the core
// itself never includes Python. parallel_for releases it for loops long enough
// to split (n > grain); nothing inside a loop touches Python objects.
using GilReleaseHook = void* (*)();
using GilRestoreHook = void (*)(void*);
void set_gil_hooks(GilReleaseHook release, GilRestoreHook restore);
// Whether a long loop of the calling thread ran without the GIL since the last
// call (for tests; reading clears it).
bool last_loop_released_gil();

class WithoutGil {
 public:
  explicit WithoutGil(bool release);
  ~WithoutGil();
  WithoutGil(const WithoutGil&) = delete;
  WithoutGil& operator=(const WithoutGil&) = delete;

 private:
  void* state_ = nullptr;
};

namespace detail {
// The team size parallel_for may use now: get_num_threads(), or 1 in a forked
// child that cannot use OpenMP (see above).
int openmp_team_size();
// Records that the calling thread launched an OpenMP team (it owns a pool).
void note_openmp_team();
}  // namespace detail

template <typename F>
void parallel_for(int64_t n, int64_t grain, const F& f) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  WithoutGil nogil(n > grain);
#ifdef _OPENMP
  int nthreads = n > grain ? detail::openmp_team_size() : 1;
  if (nthreads > 1 && !in_parallel_region()) {
    int64_t max_chunks = (n + grain - 1) / grain;
    if (max_chunks < nthreads) nthreads = static_cast<int>(max_chunks);
    detail::note_openmp_team();
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
