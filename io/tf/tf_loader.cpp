#include "io/tf/tf_loader.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "io/tf/graph_builder.h"
#include "io/tf/proto/tf_graph.pb.h"

namespace kiln::tf_io {

void parse_graph_def(const std::string& bytes, tfproto::GraphDef& graph_def) {
  KILN_ENSURE(!bytes.empty(), "empty file, not a GraphDef");
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!graph_def.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    fail("not a valid TensorFlow GraphDef (protobuf parse failed: truncated or another format)");
  KILN_ENSURE(graph_def.node_size() > 0, "not a valid TensorFlow GraphDef (no nodes)");
}

std::shared_ptr<Graph> load_tf_graph(const tfproto::GraphDef& graph_def,
                                     const LoadOptions& options) {
  GraphBuilder builder(graph_def, options);
  return builder.build();
}

std::shared_ptr<Graph> load_tf_file(const std::string& path, const LoadOptions& options) {
  namespace fs = std::filesystem;
  try {
    std::error_code ec;
    KILN_ENSURE(fs::exists(path, ec), "model file does not exist");
    KILN_ENSURE(fs::is_regular_file(path, ec), "not a regular file");
    KILN_ENSURE(fs::file_size(path, ec) < static_cast<uintmax_t>(INT_MAX),
                "file larger than 2 GiB, too large for a GraphDef");
    std::ifstream in(path, std::ios::binary);
    KILN_ENSURE(in.good(), "cannot open the file");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    tfproto::GraphDef graph_def;
    parse_graph_def(bytes, graph_def);
    return load_tf_graph(graph_def, options);
  } catch (Error& e) {
    e.with_context(fmt::format("loading '{}'", path));
    throw;
  }
}

std::vector<std::string> supported_tf_ops() {
  auto ops = OpRegistry::instance().list();
  for (const char* op :
       {"Placeholder", "Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond"})
    ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace kiln::tf_io
