// kernels/copy/pad (constant padding) against a naive per-element definition: random ranks 0-5,
// dims including 0 and 1, pads positive, zero and negative (cropping, even past the input),
// element sizes 1, 2, 3, 4 and 8 (a 3-byte element takes the generic fill), zero and non-zero
// fill patterns. Exact: it only moves bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/copy/pad.h"

namespace kiln {
namespace {

TEST(KernelsPad, ConstantMatchesNaiveGather) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 400; trial++) {
    const size_t rank = rng() % 6;
    const size_t elem = std::vector<size_t>{1, 2, 3, 4, 8}[rng() % 5];
    std::vector<int64_t> in(rank), out(rank), begin(rank);
    int64_t in_numel = 1, out_numel = 1;
    for (size_t a = 0; a < rank; a++) {
      in[a] = static_cast<int64_t>(rng() % 6);
      begin[a] = static_cast<int64_t>(rng() % 7) - 3;
      const int64_t end = static_cast<int64_t>(rng() % 7) - 3;
      out[a] = std::max<int64_t>(0, in[a] + begin[a] + end);
      in_numel *= in[a];
      out_numel *= out[a];
    }
    std::vector<unsigned char> src(static_cast<size_t>(in_numel) * elem + 1);
    for (auto& b : src) b = static_cast<unsigned char>(rng());
    std::vector<unsigned char> fill(elem);
    for (auto& b : fill) b = trial % 3 == 0 ? 0 : static_cast<unsigned char>(rng());
    std::vector<unsigned char> got(static_cast<size_t>(out_numel) * elem + 8, 0xAB);
    kernels::pad_constant(src.data(), got.data(), elem, rank, in.data(), out.data(), begin.data(),
                          fill.data());
    std::vector<int64_t> pos(rank, 0);
    for (int64_t o = 0; o < out_numel; o++) {
      int64_t off = 0;
      bool inside = true;
      for (size_t a = 0; a < rank; a++) {
        const int64_t i = pos[a] - begin[a];
        inside = inside && i >= 0 && i < in[a];
        off = off * in[a] + i;
      }
      const unsigned char* want =
          inside ? src.data() + off * static_cast<int64_t>(elem) : fill.data();
      ASSERT_EQ(std::memcmp(got.data() + o * static_cast<int64_t>(elem), want, elem), 0)
          << "trial " << trial << " element " << o;
      for (size_t a = rank; a-- > 0;) {
        if (++pos[a] < out[a]) break;
        pos[a] = 0;
      }
    }
    for (size_t i = static_cast<size_t>(out_numel) * elem; i < got.size(); i++)
      ASSERT_EQ(got[i], 0xAB) << "wrote past the output, trial " << trial;
  }
}

}  // namespace
}  // namespace kiln
