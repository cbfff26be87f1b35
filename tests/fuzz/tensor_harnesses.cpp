// Tensor-file and small-syntax harnesses: .npy, .npz, TensorProto .pb, NNEF .dat, WAV bytes
// (DecodeWav). They need kiln_core and a few io files only (tests/fuzz/CMakeLists.txt: the
// "light" harnesses CI builds and fuzzs).
#include <onnx/onnx_pb.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/graph.h"
#include "core/state.h"
#include "io/nnef/dat_file.h"
#include "io/onnx/tensor_proto.h"
#include "io/tensor/tensor_files.h"
#include "ops/audio/decode_wav.h"
#include "tests/fuzz/harness_util.h"

namespace kiln::fuzz {

namespace {
std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}
}  // namespace

int fuzz_npy(const uint8_t* data, size_t size) {
  return guarded([&] {
    Tensor t = io::parse_npy(as_string(data, size), "fuzz.npy");
    // Round trip: what kiln writes it must read back the same.
    Tensor back = io::parse_npy(io::serialize_npy(t), "round trip");
    if (!back.equals(t) && t.dtype() != DatumType::F32 && t.dtype() != DatumType::F64 &&
        t.dtype() != DatumType::F16)
      __builtin_trap();  // integers and bools must survive bit for bit
  });
}

int fuzz_npz(const uint8_t* data, size_t size) {
  return guarded([&] {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    for (const auto& t : io::parse_npz(bytes, "fuzz.npz")) (void)t.tensor.numel();
  });
}

int fuzz_tensor_pb(const uint8_t* data, size_t size) {
  return guarded([&] {
    onnx::TensorProto proto;
    if (!proto.ParseFromArray(data, static_cast<int>(size))) return;
    Tensor t = onnx_io::tensor_from_proto(proto, "/nonexistent/kiln-fuzz");
    (void)t.to_string();
  });
}

int fuzz_nnef_dat(const uint8_t* data, size_t size) {
  return guarded([&] {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    nnef::DatTensor t = nnef::read_dat(bytes, "fuzz.dat");
    if (!t.quantized) {
      // Round trip through the writer.
      nnef::DatTensor back = nnef::read_dat(nnef::write_dat(t.tensor), "round trip");
      if (back.tensor.dtype() != t.tensor.dtype() || back.tensor.shape() != t.tensor.shape())
        __builtin_trap();
    }
  });
}

// The WAV bytes as DecodeWav's string input, decoded as the file says and with a desired
// length and channel count (crop / pad / repeat paths).
int fuzz_wav(const uint8_t* data, size_t size) {
  return guarded([&] {
    std::string bytes = as_string(data, size);
    (void)ops::parse_wav(bytes);
    Tensor input(DatumType::String, Shape{});
    input.data<std::string>()[0] = bytes;
    for (auto [channels, samples] : {std::pair<int64_t, int64_t>{-1, -1}, {2, 100}}) {
      auto g = std::make_shared<Graph>();
      Outlet x = g->add_source("wav", Fact(DatumType::String, Shape{}));
      int n = g->add_node("decode", std::make_shared<ops::DecodeWav>(channels, samples), {x});
      g->set_outputs({{n, 0}, {n, 1}}, {"audio", "rate"});
      g->analyse();
      run_graph(g, {input});
    }
  });
}

}  // namespace kiln::fuzz
