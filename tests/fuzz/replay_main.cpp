// kiln_fuzz_replay HARNESS PATH...: runs one harness on every file given (folders: every file
// inside, recursively, in name order), the way its libFuzzer binary would, in any build (ctest
// replays tests/fuzz/regressions/<harness>/ with it in the normal gcc build too). A crash or
// sanitizer report fails the process; each file's time is printed with -v, and a file that
// takes longer than --max-seconds (default 10, libFuzzer's -timeout of the fuzz runs) fails.
//   kiln_fuzz_replay --list    names the harnesses
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/harnesses.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool verbose = false;
  double max_seconds = 10;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); i++) {
    if (args[i] == "-v") {
      verbose = true;
    } else if (args[i] == "--max-seconds" && i + 1 < args.size()) {
      max_seconds = std::stod(args[++i]);
    } else if (args[i] == "--list") {
      size_t n;
      const kiln::fuzz::Harness* hs = kiln::fuzz::harnesses(&n);
      for (size_t k = 0; k < n; k++) std::printf("%-12s %s\n", hs[k].name, hs[k].what);
      return 0;
    } else {
      rest.push_back(args[i]);
    }
  }
  if (rest.size() < 2) {
    std::fprintf(stderr,
                 "usage: kiln_fuzz_replay [-v] [--max-seconds S] HARNESS PATH...\n"
                 "       kiln_fuzz_replay --list\n");
    return 2;
  }
  const kiln::fuzz::Harness* h = kiln::fuzz::find_harness(rest[0]);
  if (!h) {
    std::fprintf(stderr, "kiln_fuzz_replay: no harness '%s' (--list)\n", rest[0].c_str());
    return 2;
  }
  std::vector<fs::path> files;
  for (size_t i = 1; i < rest.size(); i++) {
    fs::path p = rest[i];
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.')
          files.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "kiln_fuzz_replay: '%s' does not exist\n", p.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  kiln::fuzz::init_limits();
  int slow = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    auto start = std::chrono::steady_clock::now();
    h->entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (verbose) std::printf("%s: %zu bytes, %.3f s\n", f.c_str(), bytes.size(), s);
    if (s > max_seconds) {
      std::fprintf(stderr, "kiln_fuzz_replay: %s took %.1f s (more than %g s: a hang)\n", f.c_str(),
                   s, max_seconds);
      slow++;
    }
  }
  std::printf("kiln_fuzz_replay: harness %s ran %zu inputs, %d too slow\n", h->name, files.size(),
              slow);
  return slow ? 1 : 0;
}
