// Model harnesses: ONNX ModelProto, TensorFlow GraphDef, NNEF graph.nnef / .tgz / graph.quant
// bytes and `-i` fact text, each loaded and taken through typing, declutter, optimize and (small
// inputs) a run; encoded image bytes through ImageDecoder.
#include <onnx/onnx_pb.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/random_tensor.h"
#include "core/state.h"
#include "io/nnef/archive.h"
#include "io/nnef/dat_file.h"
#include "io/nnef/nnef_loader.h"
#include "io/onnx/onnx_loader.h"
#include "io/tf/proto/tf_graph.pb.h"
#include "io/tf/tf_loader.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/image/image_decoder.h"
#include "passes/pipeline.h"
#include "tests/fuzz/harness_util.h"

namespace kiln::fuzz {

namespace {
// External data and files a model names resolve here: a folder that does not exist, so a
// hostile location reads nothing (and '..' is refused by the loaders before that).
constexpr const char* kNoFolder = "/nonexistent/kiln-fuzz";

std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Types, declutters, optimizes and plans the graph, then runs it once on random inputs when
// every input has a known, small shape (kMaxRunElements). kiln::Error propagates.
void exercise_graph(std::shared_ptr<Graph> graph) {
  passes::run_to_stage(*graph, passes::Stage::Optimize);
  PlanPtr plan = passes::plan(graph);
  std::vector<Tensor> inputs;
  int64_t elements = 0;
  std::mt19937_64 rng(1);
  for (const Outlet& in : graph->inputs()) {
    const Fact& f = graph->fact(in);
    if (!f.rank_known || is_object(f.dt)) return;
    Shape shape;
    for (const Dim& d : f.shape) {
      auto v = d.as_int();
      if (!v) return;  // symbolic: the CLI would ask for -i
      shape.push_back(*v);
    }
    elements += shape_numel(shape);
    if (elements > kMaxRunElements) return;
    inputs.push_back(f.value ? *f.value : random_tensor(f.dt, shape, rng));
  }
  State state(plan);
  state.run(inputs);
}
}  // namespace

int fuzz_onnx(const uint8_t* data, size_t size) {
  return guarded([&] {
    onnx::ModelProto model;
    if (!model.ParseFromArray(data, static_cast<int>(size))) return;
    exercise_graph(onnx_io::load_onnx_model(model, kNoFolder));
  });
}

int fuzz_tf(const uint8_t* data, size_t size) {
  return guarded([&] {
    tfproto::GraphDef graph_def;
    tf_io::parse_graph_def(as_string(data, size), graph_def);
    exercise_graph(tf_io::load_tf_graph(graph_def));
  });
}

int fuzz_nnef(const uint8_t* data, size_t size) {
  return guarded([&] {
    nnef::FileMap files{{"graph.nnef", as_string(data, size)}};
    exercise_graph(nnef::load_nnef_files(files, "fuzz"));
  });
}

int fuzz_nnef_tgz(const uint8_t* data, size_t size) {
  return guarded([&] {
    nnef::ArchiveLimits limits;
    limits.max_entry_bytes = 64 << 20;
    limits.max_total_bytes = 128 << 20;
    limits.max_entries = 1000;
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    nnef::FileMap files = nnef::read_archive_bytes(bytes, "fuzz.tgz", limits);
    if (!files.count("graph.nnef")) return;
    exercise_graph(nnef::load_nnef_files(files, "fuzz.tgz"));
  });
}

// graph.quant next to a fixed graph whose variables are stored quantized (8-bit unsigned and
// signed items) and as float.
int fuzz_nnef_quant(const uint8_t* data, size_t size) {
  static const nnef::FileMap base = [] {
    nnef::FileMap files;
    files["graph.nnef"] =
        "version 1.0;\n"
        "graph G(x) -> (y) {\n"
        "  x = external<scalar>(shape = [1, 4]);\n"
        "  w = variable<scalar>(shape = [4, 3], label = 'w');\n"
        "  b = variable<scalar>(shape = [1, 3], label = 'b');\n"
        "  m = matmul(x, w);\n"
        "  y = add(m, b);\n"
        "}\n";
    Tensor w(DatumType::U8, {4, 3});
    for (int64_t i = 0; i < 12; i++) w.data<uint8_t>()[i] = static_cast<uint8_t>(i * 21);
    std::string wdat = nnef::write_dat(w);
    wdat[48] = 2;  // item type: quantized unsigned (header bytes 48..51, little-endian)
    files["w.dat"] = wdat;
    Tensor b(DatumType::F32, {1, 3});
    for (int64_t i = 0; i < 3; i++) b.data<float>()[i] = 0.5f * static_cast<float>(i);
    files["b.dat"] = nnef::write_dat(b);
    return files;
  }();
  return guarded([&] {
    nnef::FileMap files = base;
    files["graph.quant"] = as_string(data, size);
    exercise_graph(nnef::load_nnef_files(files, "fuzz"));
  });
}

// `-i` text ("1,S,40,f32", "name:2,3,i64", "i64=16000", ...) as the fact of the input of
// x -> Abs -> Add(abs, x), typed, optimized and (small, concrete) run like `kiln run -i`.
int fuzz_fact(const uint8_t* data, size_t size) {
  return guarded([&] {
    std::string text = as_string(data, size);
    if (size_t colon = text.find(':'); colon != std::string::npos) text = text.substr(colon + 1);
    Fact fact = Fact::parse(text);
    (void)fact.to_string();
    auto g = std::make_shared<Graph>();
    Outlet x = g->add_source("x", Fact::parse("1,S,4,f32"));
    int a = g->add_node("abs", std::make_shared<ops::Unary>(ops::UnaryKind::Abs), {x});
    int s = g->add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add, 0), {{a, 0}, x});
    g->set_outputs({{s, 0}}, {"y"});
    g->set_input_fact(0, fact);
    exercise_graph(g);
  });
}

int fuzz_image(const uint8_t* data, size_t size) {
  return guarded([&] {
    const auto n = static_cast<int64_t>(size);
    Tensor input(DatumType::U8, Shape{n});
    if (size) std::memcpy(input.data<uint8_t>(), data, size);
    for (auto format : {ops::PixelFormat::Rgb, ops::PixelFormat::Grayscale}) {
      auto g = std::make_shared<Graph>();
      Outlet x = g->add_source("data", Fact(DatumType::U8, Shape{n}));
      int d = g->add_node("decode", std::make_shared<ops::ImageDecoder>(format), {x});
      g->set_outputs({{d, 0}}, {"image"});
      g->analyse();
      run_graph(g, {input});
    }
  });
}

}  // namespace kiln::fuzz
