#include "core/SharedMemory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#include "core/Error.h"

namespace torchlite {

namespace {

// A mapping of a shared-memory object and its descriptor, released with the storage.
struct Block {
  void* addr;
  size_t len;
  int fd;
};

void release_block(void* context) {
  auto* b = static_cast<Block*>(context);
  munmap(b->addr, b->len);
  close(b->fd);
  delete b;
}

// Maps fd (len bytes, at least 1: an empty storage still gets a mapping) and takes ownership of it.
Block* map_block(int fd, size_t len, const char* op) {
  void* addr = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED) {
    const int err = errno;
    close(fd);
    TL_ERROR(op, ": mapping ", len, " bytes of shared memory failed: ", std::strerror(err));
  }
  return new Block{addr, len, fd};
}

// A new shared-memory object of len bytes, unlinked at once: it lives while a descriptor or a mapping does.
int create_object(size_t len) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0;; ++attempt) {
    const std::string name = "/torchlite_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
      const int err = errno;
      if (err == EEXIST && attempt < 100) continue;
      TL_ERROR("share_memory_: creating a shared-memory object failed: ", std::strerror(err));
    }
    shm_unlink(name.c_str());
    if (ftruncate(fd, static_cast<off_t>(len)) != 0) {
      const int err = errno;
      close(fd);
      TL_ERROR("share_memory_: sizing a shared-memory object to ", len, " bytes failed: ", std::strerror(err));
    }
    // Reserve the pages now: on a full /dev/shm a write into the mapping would otherwise kill the process
    // (SIGBUS) instead of raising here. Filesystems without fallocate are left as they are.
    const int err = posix_fallocate(fd, 0, static_cast<off_t>(len));
    if (err != 0 && err != EINVAL && err != EOPNOTSUPP) {
      close(fd);
      TL_ERROR("share_memory_: reserving ", len, " bytes of shared memory failed: ", std::strerror(err),
               err == ENOSPC ? " (the shared-memory filesystem, /dev/shm, is full or too small)" : "");
    }
    return fd;
  }
}

std::mutex& share_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

bool is_resizable(const StorageImpl& s) { return s.release_fn() != &release_block; }

bool is_shared(const Tensor& t) {
  if (t.device().is_cuda()) return true;
  const Storage& s = t.impl()->storage();
  return s && s->release_fn() == &release_block;
}

void share_memory(const Tensor& t) {
  if (!t.device().is_cpu()) return;
  std::lock_guard<std::mutex> lock(share_mutex());
  if (is_shared(t)) return;
  const Storage& s = t.impl()->storage();
  const size_t len = s->nbytes() ? s->nbytes() : 1;
  Block* b = map_block(create_object(len), len, "share_memory_");
  s->move_to(b->addr, &release_block, b);
}

std::tuple<int, size_t> shared_memory_handle(const Tensor& t) {
  TL_CHECK(t.device().is_cpu() && is_shared(t), "shared memory: expected a CPU tensor in shared memory "
           "(share_memory_()), got one on ", to_string(t.device()), is_shared(t) ? "" : " that is not shared");
  const Storage& s = t.impl()->storage();
  return {static_cast<Block*>(s->release_context())->fd, s->nbytes()};
}

Tensor from_shared_memory(int fd, size_t nbytes, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                          int64_t offset) {
  // The geometry must stay inside the storage, and the object must hold it.
  // (overflow-checked: the numbers come from outside)
  bool ok = sizes.size() == strides.size() && offset >= 0, empty = false;
  int64_t last = offset, step = 0, end = 0;
  for (size_t i = 0; ok && i < sizes.size(); ++i) {
    ok = sizes[i] >= 0 && strides[i] >= 0;
    empty = empty || sizes[i] == 0;
    ok = ok && !__builtin_mul_overflow(sizes[i] > 0 ? sizes[i] - 1 : 0, strides[i], &step) &&
         !__builtin_add_overflow(last, step, &last);
  }
  ok = ok && (empty || (!__builtin_add_overflow(last, int64_t(1), &end) &&
                        !__builtin_mul_overflow(end, static_cast<int64_t>(element_size(dtype)), &end) &&
                        static_cast<size_t>(end) <= nbytes));
  struct stat st {};
  const size_t len = nbytes ? nbytes : 1;
  const bool holds = fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= len;
  if (!ok || !holds) {
    close(fd);
    TL_CHECK(ok, "shared memory: a tensor of sizes ", to_string(sizes), " and strides ", to_string(strides),
             " at offset ", offset, " does not fit its ", nbytes, "-byte storage");
    TL_ERROR("shared memory: the object received holds fewer than the ", len, " bytes expected");
  }
  Block* b = map_block(fd, len, "shared memory");
  Storage storage = intrusive_ptr<StorageImpl>::make(b->addr, nbytes, Device(), &release_block, b);
  auto impl = intrusive_ptr<TensorImpl>::make(std::move(storage), dtype, Device());
  impl->set_geometry(sizes, strides, offset);
  return Tensor(std::move(impl));
}

}  // namespace torchlite
