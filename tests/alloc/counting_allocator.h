// A counting replacement of the C allocation functions (malloc, calloc, realloc, aligned_alloc,
// posix_memalign, memalign; operator new goes through malloc) for the kiln_alloc_tests
// executable only. Counting is off until a test turns it on, and counts every thread.
#pragma once

#include <cstddef>

namespace kiln::testing {

// Starts counting from zero.
void start_counting_allocations();
// Stops counting and returns the allocations made since start_counting_allocations().
size_t stop_counting_allocations();

}  // namespace kiln::testing
