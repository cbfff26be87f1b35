// The fuzz harnesses: one entry point per input surface (docs/testing.md). Each takes the bytes
// of one input, feeds them to kiln the way the CLI would, and returns 0. Clear errors
// (kiln::Error) are expected and swallowed; anything else -- a crash, a sanitizer report, another
// exception type, a hang past the run deadline, an allocation past the memory budget that is
// not a kiln::Error -- is a finding. Called by the libFuzzer binaries (fuzz_main.cpp, clang
// -fsanitize=fuzzer) and by kiln_fuzz_replay (replay_main.cpp, any build), which ctest runs on
// tests/fuzz/regressions/<harness>/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kiln::fuzz {

using Entry = int (*)(const uint8_t* data, size_t size);

struct Harness {
  const char* name;
  Entry entry;
  const char* what;  // the input surface, for --list
};

// Every harness, by name.
const Harness* harnesses(size_t* count);
const Harness* find_harness(std::string_view name);

// Process-wide limits the harnesses run under (memory budget, one thread, quiet logs); the
// per-input run deadline is set by each harness. Idempotent.
void init_limits();

int fuzz_onnx(const uint8_t* data, size_t size);
int fuzz_tf(const uint8_t* data, size_t size);
int fuzz_nnef(const uint8_t* data, size_t size);
int fuzz_nnef_dat(const uint8_t* data, size_t size);
int fuzz_nnef_tgz(const uint8_t* data, size_t size);
int fuzz_nnef_quant(const uint8_t* data, size_t size);
int fuzz_npy(const uint8_t* data, size_t size);
int fuzz_npz(const uint8_t* data, size_t size);
int fuzz_tensor_pb(const uint8_t* data, size_t size);
int fuzz_wav(const uint8_t* data, size_t size);
int fuzz_fact(const uint8_t* data, size_t size);
int fuzz_image(const uint8_t* data, size_t size);

}  // namespace kiln::fuzz
