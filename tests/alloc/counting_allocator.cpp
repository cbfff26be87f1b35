#include "counting_allocator.h"

#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

// glibc's own entry points, which these replacements forward to.
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* ptr, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* ptr);
}

namespace {

std::atomic<bool> g_counting{false};
std::atomic<size_t> g_count{0};
// KILN_ALLOC_TRACE=1 prints a backtrace of every counted allocation to stderr (to find the op
// that allocates; symbols need the executable's exported symbols, see tests/CMakeLists.txt).
const bool g_trace = [] {
  const char* env = std::getenv("KILN_ALLOC_TRACE");
  if (env && *env == '1') {
    void* frames[1];
    backtrace(frames, 1);  // loads the unwinder now, not inside a counted allocation
    return true;
  }
  return false;
}();
thread_local bool t_in_trace = false;

void count(size_t size) {
  if (!g_counting.load(std::memory_order_relaxed)) return;
  g_count.fetch_add(1, std::memory_order_relaxed);
  if (g_trace && !t_in_trace) {
    t_in_trace = true;
    char line[64];
    int n = 0;
    const char* head = "--- counted allocation of ";
    (void)!write(2, head, std::strlen(head));
    // size in decimal without the formatting library (no allocation here)
    char digits[24];
    size_t v = size;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    for (int i = 0; i < n; i++) line[i] = digits[n - 1 - i];
    line[n++] = '\n';
    (void)!write(2, line, static_cast<size_t>(n));
    void* frames[32];
    int depth = backtrace(frames, 32);
    backtrace_symbols_fd(frames, depth, 2);
    t_in_trace = false;
  }
}

}  // namespace

extern "C" {

void* malloc(size_t size) noexcept {
  count(size);
  return __libc_malloc(size);
}

void* calloc(size_t n, size_t size) noexcept {
  count(n * size);
  return __libc_calloc(n, size);
}

void* realloc(void* ptr, size_t size) noexcept {
  count(size);
  return __libc_realloc(ptr, size);
}

void free(void* ptr) noexcept {
  __libc_free(ptr);
}

void* aligned_alloc(size_t alignment, size_t size) noexcept {
  count(size);
  return __libc_memalign(alignment, size);
}

void* memalign(size_t alignment, size_t size) noexcept {
  count(size);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  count(size);
  void* p = __libc_memalign(alignment, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"

namespace kiln::testing {

void start_counting_allocations() {
  g_count.store(0);
  g_counting.store(true);
}

size_t stop_counting_allocations() {
  g_counting.store(false);
  return g_count.load();
}

}  // namespace kiln::testing
