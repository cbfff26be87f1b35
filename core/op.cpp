#include "core/op.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "base/error.h"
#include "core/run_limits.h"

namespace kiln {

namespace {
// Scratch counts against the memory budget like tensors (core/run_limits.h): an im2col buffer
// of a hostile conv gets "too large", not the OOM killer.
void* new_scratch_block(size_t bytes) {
  charge_memory(bytes, "kernel scratch");
  void* data = std::aligned_alloc(kTensorAlignment, bytes);
  if (!data) {
    release_memory(bytes);
    fail("out of memory allocating {} bytes of scratch", bytes);
  }
  return data;
}

void free_scratch_block(void* data, size_t bytes) {
  std::free(data);
  release_memory(bytes);
}
}  // namespace

ScratchArena::~ScratchArena() {
  for (const Block& b : blocks_) free_scratch_block(b.data, b.bytes);
}

void* ScratchArena::allocate(size_t bytes) {
  constexpr size_t kAlign = kTensorAlignment;
  // (a quarter of the address space at most: the rounding and doubling below cannot overflow)
  KILN_ENSURE(bytes <= std::numeric_limits<size_t>::max() / 4,
              "kernel scratch of {} bytes is too large", bytes);
  size_t rounded = (std::max<size_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  if (blocks_.empty() || blocks_.back().bytes - used_ < rounded) {
    size_t previous = blocks_.empty() ? 0 : blocks_.back().bytes;
    size_t size = std::max(rounded, std::max<size_t>(2 * previous, 4096));
    blocks_.push_back({new_scratch_block(size), size});
    used_ = 0;
  }
  void* p = static_cast<char*>(blocks_.back().data) + used_;
  used_ += rounded;
  high_water_ += rounded;
  return p;
}

void ScratchArena::reset() {
  if (blocks_.size() > 1) {
    // Grown during this evaluation: one block that holds it all next time.
    size_t size = high_water_;
    for (const Block& b : blocks_) free_scratch_block(b.data, b.bytes);
    blocks_.clear();
    blocks_.push_back({new_scratch_block(size), size});
  }
  used_ = 0;
  high_water_ = 0;
}

Shape& ScratchArena::shape(size_t k) {
  KILN_ENSURE(k < kShapes, "scratch shape {} out of range ({} shapes)", k, kShapes);
  if (shapes_.empty()) {
    shapes_.resize(kShapes);
    for (Shape& s : shapes_) s.reserve(8);
  }
  shapes_[k].clear();
  return shapes_[k];
}

TensorRefs& ScratchArena::refs(size_t k) {
  KILN_ENSURE(k < kShapes, "scratch input list {} out of range ({} lists)", k, kShapes);
  if (refs_.empty()) {
    refs_.resize(kShapes);
    for (TensorRefs& r : refs_) r.reserve(16);
  }
  refs_[k].clear();
  return refs_[k];
}

size_t ScratchArena::capacity() const {
  size_t total = 0;
  for (const Block& b : blocks_) total += b.bytes;
  return total;
}

EvalContext::~EvalContext() = default;

BodyTiming EvalContext::body_timing(size_t body) const {
  if (!body_timer_) return {};
  return {body_timer_,
          fmt::format("{}{}.{}", body_prefix_ ? *body_prefix_ : std::string(), body_node_, body)};
}

void EvalContext::check_slot(size_t slot) const {
  KILN_ENSURE(slot < outputs_.size(), "output slot {} out of range ({} outputs)", slot,
              outputs_.size());
}

Tensor& EvalContext::output(size_t slot, DatumType dt, const Shape& shape) {
  check_slot(slot);
  Tensor& out = outputs_[slot];
  if (kinds_) kinds_[slot] = OutputKind::Written;
  if (placements_ && placements_[slot].arena && !is_object(dt)) {
    const OutputPlacement& p = placements_[slot];
    int64_t n = shape_numel(shape);
    if (static_cast<size_t>(n) * size_of(dt) <= p.capacity) {
      out.assign_view(*p.arena, p.offset, dt, shape);
      return out;
    }
    // Larger than planned: a buffer of its own this time, State lays the arena out again.
    if (out.storage_base() == p.arena->storage_base()) out.drop_storage();
  }
  out.reset(dt, shape);
  return out;
}

void EvalContext::set_output(size_t slot, Tensor tensor) {
  check_slot(slot);
  if (kinds_) kinds_[slot] = OutputKind::HandedOver;
  outputs_[slot] = std::move(tensor);
}

void EvalContext::set_output_view(size_t slot, const Tensor& source, const Shape& shape) {
  check_slot(slot);
  if (kinds_) kinds_[slot] = OutputKind::HandedOver;
  Tensor& out = outputs_[slot];
  if (is_object(source.dtype())) {
    out = source.reshaped(shape);
    return;
  }
  KILN_ENSURE(shape_numel(shape) == source.numel(), "cannot view [{}] ({} elements) as [{}]",
              shape_to_string(source.shape()), source.numel(), shape_to_string(shape));
  out.assign_view(source, 0, source.dtype(), shape);
}

ScratchArena& EvalContext::scratch_arena() {
  if (scratch_) return *scratch_;
  if (!own_scratch_) own_scratch_ = std::make_unique<ScratchArena>();
  return *own_scratch_;
}

OpState& EvalContext::any_op_state(const Op& op) {
  if (!state_) {
    own_state_ = op.make_state({});
    KILN_ENSURE(own_state_, "{}: asks for an op state but makes none", op.name());
    state_ = own_state_.get();
  }
  return *state_;
}

void EvalContext::eval_inner(const Op& op, const TensorRefs& inputs, OpState* inner) {
  OpState* saved = state_;
  std::unique_ptr<OpState> saved_own = std::move(own_state_);
  state_ = inner;
  struct Restore {
    EvalContext& ctx;
    OpState* saved;
    std::unique_ptr<OpState>& saved_own;
    ~Restore() {
      ctx.state_ = saved;
      ctx.own_state_ = std::move(saved_own);
    }
  } restore{*this, saved, saved_own};
  op.eval(*this, inputs);
}

void EvalContext::bad_state_type() {
  fail("internal error: an op state of another type than its op makes");
}

Cost Op::cost(const FactRefs&) const {
  Cost c;
  c.known = false;
  return c;
}

void expect_inputs(const std::string& op, size_t count, size_t min, long max) {
  if (count < min || (max >= 0 && count > static_cast<size_t>(max))) {
    if (max < 0) fail("{} expects at least {} inputs, got {}", op, min, count);
    if (static_cast<size_t>(max) == min) fail("{} expects {} inputs, got {}", op, min, count);
    fail("{} expects {} to {} inputs, got {}", op, min, max, count);
  }
}

const Fact& required(const FactRefs& inputs, size_t index, const std::string& op) {
  KILN_ENSURE(index < inputs.size() && inputs[index], "{}: input {} is required", op, index);
  return *inputs[index];
}

const Tensor& required(const TensorRefs& inputs, size_t index, const std::string& op) {
  KILN_ENSURE(index < inputs.size() && inputs[index], "{}: input {} is required", op, index);
  return *inputs[index];
}

std::string ints_to_string(const std::vector<int64_t>& values) {
  return fmt::format("[{}]", fmt::join(values, ","));
}

size_t normalize_axis(int64_t axis, size_t rank, const std::string& op) {
  int64_t r = static_cast<int64_t>(rank);
  KILN_ENSURE(axis >= -r && axis < r, "{}: axis {} out of range for rank {}", op, axis, rank);
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

}  // namespace kiln
