#include "core/Parallel.h"

#include <cblas.h>  // scipy_openblas_{get,set}_num_threads
#include <pthread.h>

#include <atomic>
#include <utility>

#include "core/Error.h"

namespace torchlite {

namespace {

int initial_num_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

std::atomic<int> g_num_threads{initial_num_threads()};
// BLAS itself stays single-threaded: its calls share the threads of parallel_for (kernels/cpu/Gemm.cpp), so
// that its own spinning threads do not compete with them.
const bool g_blas_single_threaded = (scipy_openblas_set_num_threads(1), true);
std::atomic<int> g_num_interop_threads{1};
// Whether this thread has launched an OpenMP team (libgomp then keeps a pool
// of threads for it, which a forked child does not have).
thread_local bool t_launched_team = false;
// Set in a forked child whose forking thread had a pool: OpenMP would hang.
std::atomic<bool> g_openmp_unusable{false};

// Runs in the child of any fork(), before Python code does: later parallel_for
// calls stay on the calling thread. (torchlite/__init__.py also registers
// os.register_at_fork(after_in_child=...) -> set_num_threads(1), which drops
// BLAS to one thread too.)
void drop_to_one_thread_in_child() {
  g_num_threads.store(1, std::memory_order_relaxed);
  if (t_launched_team) g_openmp_unusable.store(true, std::memory_order_relaxed);
#ifdef _OPENMP
  omp_set_num_threads(1);
#endif
}

const bool g_fork_handler_registered = pthread_atfork(nullptr, nullptr, drop_to_one_thread_in_child) == 0;

}  // namespace

int get_num_threads() { return g_num_threads.load(std::memory_order_relaxed); }

void set_num_threads(int n) {
  TL_CHECK(n > 0, "set_num_threads expects a positive integer");
  g_num_threads.store(n, std::memory_order_relaxed);
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
  scipy_openblas_set_num_threads(1);  // BLAS calls share the threads of parallel_for (kernels/cpu/Gemm.cpp)
}

int detail::openmp_team_size() {
  return g_openmp_unusable.load(std::memory_order_relaxed) ? 1 : g_num_threads.load(std::memory_order_relaxed);
}

void detail::note_openmp_team() { t_launched_team = true; }

namespace {
std::atomic<GilReleaseHook> g_gil_release{nullptr};
std::atomic<GilRestoreHook> g_gil_restore{nullptr};
thread_local bool t_last_loop_released_gil = false;
}  // namespace

void set_gil_hooks(GilReleaseHook release, GilRestoreHook restore) {
  g_gil_restore.store(restore);
  g_gil_release.store(release);
}

bool last_loop_released_gil() { return std::exchange(t_last_loop_released_gil, false); }

WithoutGil::WithoutGil(bool release) {
  if (!release || in_parallel_region()) return;
  GilReleaseHook hook = g_gil_release.load(std::memory_order_relaxed);
  state_ = hook ? hook() : nullptr;
  if (state_) t_last_loop_released_gil = true;  // (a nested guard, the GIL already released, leaves it so)
}

WithoutGil::~WithoutGil() {
  if (state_) g_gil_restore.load(std::memory_order_relaxed)(state_);
}

int get_num_interop_threads() { return g_num_interop_threads.load(std::memory_order_relaxed); }

void set_num_interop_threads(int n) {
  TL_CHECK(n > 0, "set_num_interop_threads expects a positive integer");
  g_num_interop_threads.store(n, std::memory_order_relaxed);
}

bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}

}  // namespace torchlite
