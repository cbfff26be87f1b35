// ONNX translators for the signal ops: DFT, STFT, window functions, MelWeightMatrix.
#include "base/error.h"
#include "io/onnx/ops/register_all.h"
#include "io/onnx/tensor_proto.h"
#include "ops/signal/dft.h"
#include "ops/signal/mel_weight_matrix.h"
#include "ops/signal/stft.h"
#include "ops/signal/window.h"

namespace kiln::onnx_io {

namespace {

DatumType output_datatype(const NodeContext& ctx, int64_t dflt) {
  int64_t t = ctx.attr_int("output_datatype", dflt);
  auto dt = datum_type_from_onnx(static_cast<int>(t));
  KILN_ENSURE(dt && is_numeric(*dt), "output_datatype {} is not a numeric type", t);
  return *dt;
}

void add_window(OpRegistry& registry, const std::string& op, ops::WindowKind kind) {
  registry.add(op, [kind](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Window>(kind, ctx.attr_int("periodic", 1) != 0,
                                           output_datatype(ctx, onnx::TensorProto::FLOAT)));
  });
}

}  // namespace

void register_signal_ops(OpRegistry& registry) {
  registry.add("DFT", [](NodeContext& ctx) {
    // opset 17: axis attribute (default 1); opset 20: axis input (default -2, i.e. the last
    // signal axis), handled by the op when given.
    int64_t axis = ctx.opset() >= 20 ? -2 : ctx.attr_int("axis", 1);
    ctx.wire(std::make_shared<ops::Dft>(axis, ctx.attr_int("inverse", 0) != 0,
                                        ctx.attr_int("onesided", 0) != 0));
  });
  registry.add("STFT", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Stft>(ctx.attr_int("onesided", 1) != 0));
  });
  add_window(registry, "HannWindow", ops::WindowKind::Hann);
  add_window(registry, "HammingWindow", ops::WindowKind::Hamming);
  add_window(registry, "BlackmanWindow", ops::WindowKind::Blackman);
  registry.add("MelWeightMatrix", [](NodeContext& ctx) {
    ctx.wire(
        std::make_shared<ops::MelWeightMatrix>(output_datatype(ctx, onnx::TensorProto::FLOAT)));
  });
}

}  // namespace kiln::onnx_io
