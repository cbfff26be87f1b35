#include "tests/fuzz/harnesses.h"

#include <iterator>

namespace kiln::fuzz {

namespace {
const Harness kHarnesses[] = {
    {"onnx", fuzz_onnx, "ONNX ModelProto bytes: load, type, declutter, optimize, run if small"},
    {"tf", fuzz_tf, "TensorFlow GraphDef bytes: load, type, declutter, optimize, run if small"},
    {"nnef", fuzz_nnef, "NNEF graph.nnef text: load, type, declutter, optimize, run if small"},
    {"nnef_dat", fuzz_nnef_dat, "NNEF .dat tensor bytes (and the writer's round trip)"},
    {"nnef_tgz", fuzz_nnef_tgz, "NNEF .tgz / .tar archive bytes, then the model inside"},
    {"nnef_quant", fuzz_nnef_quant, "NNEF graph.quant text over a fixed quantized graph"},
    {"npy", fuzz_npy, ".npy bytes (and the writer's round trip)"},
    {"npz", fuzz_npz, ".npz (zip) bytes"},
    {"tensor_pb", fuzz_tensor_pb, "ONNX TensorProto .pb input files"},
    {"wav", fuzz_wav, "WAV bytes through DecodeWav"},
    {"fact", fuzz_fact, "the -i fact syntax, set on a small graph that is then run"},
    {"image", fuzz_image, "encoded image bytes (JPEG, PNG, WebP, BMP, PNM) through ImageDecoder"},
};
}  // namespace

const Harness* harnesses(size_t* count) {
  *count = std::size(kHarnesses);
  return kHarnesses;
}

const Harness* find_harness(std::string_view name) {
  for (const auto& h : kHarnesses)
    if (name == h.name) return &h;
  return nullptr;
}

}  // namespace kiln::fuzz
