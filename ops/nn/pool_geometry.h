// Window geometry shared by Conv, ConvTranspose and the pooling ops: output sizes from kernel,
// strides, dilations, pads, auto_pad and ceil_mode (symbolic when possible), and the concrete
// padding once the input size is known.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/dim.h"
#include "core/op.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/pool/pool.h"

namespace kiln::ops {

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

// Parses the ONNX auto_pad attribute value; throws on unknown values.
AutoPad parse_auto_pad(const std::string& text);
std::string auto_pad_name(AutoPad pad);

struct WindowGeometry {
  std::vector<int64_t> kernel;     // spatial kernel shape; empty: taken from the weights
  std::vector<int64_t> strides;    // empty: all 1
  std::vector<int64_t> dilations;  // empty: all 1
  std::vector<int64_t> pads;       // begins then ends; empty: all 0
  AutoPad auto_pad = AutoPad::NotSet;
  bool ceil_mode = false;

  // A copy with every vector filled for `rank` spatial dims (kernel from `kernel_dims` when
  // the attribute was absent); validates sizes and values.
  WindowGeometry complete(size_t rank, const std::string& op,
                          const std::vector<int64_t>& kernel_dims = {}) const;
  int64_t effective_kernel(size_t axis) const { return (kernel[axis] - 1) * dilations[axis] + 1; }

  // Output spatial dims of a convolution / pooling for these input spatial dims.
  std::vector<Dim> output_dims(const std::vector<Dim>& input, const std::string& op) const;

  struct Resolved {
    Shape output;
    Shape pad_begin;
  };
  // Concrete output size and leading padding for these input spatial dims.
  Resolved resolve(const Shape& input, const std::string& op) const;
  // The same into given shapes (cleared first): no allocation once they have the capacity.
  void resolve_into(const Shape& input, const std::string& op, Shape& output,
                    Shape& pad_begin) const;

  void append_attributes(Attributes& attrs) const;
};

// Window geometry padded to exactly three spatial dims (leading dims of size 1) so kernels
// can loop over a fixed depth/height/width.
struct Window3 {
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t pad_end[3] = {0, 0, 0};
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
};

// Builds a Window3 from a completed geometry, input spatial dims and resolved output/padding.
Window3 make_window3(const WindowGeometry& geo, const Shape& input, const Shape& output,
                     const Shape& pad_begin, const std::string& op);

// The kernels' view of a window (kernels/conv/conv_geometry.h).
kernels::ConvGeometry conv_geometry(const Window3& w3);
// A kernel op's pool geometry completed once for 1 and 2 spatial dims (eval would complete it
// per call); for a rank it is not valid for, `get` completes it again, which reports the error.
class CompletedPoolGeometry {
 public:
  CompletedPoolGeometry(const WindowGeometry& geo, std::string op);
  // The geometry for `spatial` (1 or 2) dims; `scratch` holds it when completed here.
  const WindowGeometry& get(size_t spatial, WindowGeometry& scratch) const;

 private:
  WindowGeometry geo_;
  std::string op_;
  std::array<std::optional<WindowGeometry>, 2> done_;
};

// The window of a pool over x's spatial dims (`geo` completed for them) at run time, through
// ctx's reusable temp shapes 0 to 2 (no allocation per run), and its output shape [N, C, out...]
// into `out_shape`.
Window3 resolve_pool_window(EvalContext& ctx, const Tensor& x, const WindowGeometry& geo,
                            const std::string& op, Shape& out_shape);
// The pool kernels' view of a window of 1 or 2 spatial dims (kernels/pool/pool.h).
kernels::MaxPool2dGeometry pool_2d_geometry(const Window3& w3);

}  // namespace kiln::ops
