// The micro-kernels of every ISA this build has (see TileFn and EdgeTileFn in kernels/mmm/mmm.h
// for the contracts). Named tile (full) or edge (partial), element type, mr x nr, ISA.
#pragma once

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

void tile_f32_4x8_generic(int64_t k, const float* a, const float* b, const TileArgs& args);
void edge_f32_4x8_generic(int64_t k, const float* a, const float* b, const TileArgs& args, int rows,
                          int cols);
void in_place_f32_4x8_generic(int64_t k, const float* a, const float* b, const int64_t* off,
                              const TileArgs& args, int rows, int cols);
#if defined(__x86_64__)
void tile_f32_6x16_avx2(int64_t k, const float* a, const float* b, const TileArgs& args);
void edge_f32_6x16_avx2(int64_t k, const float* a, const float* b, const TileArgs& args, int rows,
                        int cols);
void in_place_f32_6x16_avx2(int64_t k, const float* a, const float* b, const int64_t* off,
                            const TileArgs& args, int rows, int cols);
void tile_f32_8x32_avx512(int64_t k, const float* a, const float* b, const TileArgs& args);
void edge_f32_8x32_avx512(int64_t k, const float* a, const float* b, const TileArgs& args, int rows,
                          int cols);
void in_place_f32_8x32_avx512(int64_t k, const float* a, const float* b, const int64_t* off,
                              const TileArgs& args, int rows, int cols);
#endif
#if defined(__aarch64__)
void tile_f32_12x8_neon(int64_t k, const float* a, const float* b, const TileArgs& args);
#elif defined(__arm__)
void tile_f32_8x4_neon(int64_t k, const float* a, const float* b, const TileArgs& args);
#endif

}  // namespace kiln::kernels
