// The NNEF serializers of every kiln op kiln can write, by op name; each family's live in
// io/nnef/<family>_serializers.cpp (the mapping table is docs/nnef.md).
#include "io/nnef/serializer_util.h"

namespace kiln::nnef {

const std::map<std::string, Serializer>& serializers() {
  static const std::map<std::string, Serializer> s = [] {
    std::map<std::string, Serializer> m;
    ser::register_elementwise_serializers(m);
    ser::register_nn_serializers(m);
    ser::register_shape_serializers(m);
    ser::register_control_serializers(m);
    ser::register_audio_serializers(m);
    ser::register_recurrent_serializers(m);
    ser::register_pulse_serializers(m);
    ser::register_quant_serializers(m);
    return m;
  }();
  return s;
}

}  // namespace kiln::nnef
