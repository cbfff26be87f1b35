// The libFuzzer entry of one harness binary (kiln_fuzz_<name>): KILN_FUZZ_HARNESS names the
// harness (tests/fuzz/harnesses.h) at compile time.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/harnesses.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kiln::fuzz::init_limits();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kiln::fuzz::KILN_FUZZ_HARNESS(data, size);
}
