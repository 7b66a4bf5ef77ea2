// An op: its tensors, how their values are drawn, its fp64 host reference (the shipped ops'),
// and its byte and flop counts. Every op is a DescribedOp (ops/described_op.h); the shipped ops'
// come from the descriptions caliber ships (ops/*.op.yaml, docs/ops.md). Providers never build
// their own inputs: the runner draws them once per shape (on the device when the backend can,
// else make_inputs on the host: the same bits either way) and hands the same tensors to every
// provider.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/host_draw.h"
#include "ops/host_tensor.h"
#include "ops/op_shape.h"

namespace caliber::ops {

struct TensorSpec {
  std::string name;
  ElementType element = ElementType::fp32;  // the shape's dtype unless a description names its own
  std::int64_t rows = 0;  // every extent but the last, multiplied (1 for a vector)
  std::int64_t cols = 0;  // the last extent
  std::vector<std::int64_t> dims;  // the extents, outermost first; empty: {rows, cols}
  // An output that is one of the inputs, updated in place: that input's index. The output has no
  // buffer of its own (docs/user-ops.md, "In-place outputs").
  std::optional<std::size_t> in_place_of;
  std::int64_t elements() const { return rows * cols; }
  std::vector<std::int64_t> extents() const { return dims.empty() ? std::vector<std::int64_t>{rows, cols} : dims; }
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * element_size_bytes(element); }
};

class Op {
 public:
  virtual ~Op() = default;
  virtual OpType type() const = 0;
  // Input tensors in the order providers receive them (plugin_abi.h documents it too).
  virtual std::vector<TensorSpec> inputs(const OpShape& s) const = 0;
  // The outputs in the order providers receive them, each in its element type; the shipped ops
  // have one, in the shape's dtype, [m, n] (gemm: c, the others: y).
  virtual std::vector<TensorSpec> outputs(const OpShape& s) const = 0;
  // Minimum bytes one call reads plus writes: every input element once, every output element
  // once (a described op may give its own formula).
  virtual std::uint64_t bytes(const OpShape& s) const;
  // Floating-point operations of one call (docs/ops.md gives each formula).
  virtual std::uint64_t flops(const OpShape& s) const = 0;
  // The draw of each input, in the order of inputs(s) (ops/host_draw.h): deterministic for
  // (shape, seed). A backend that draws on the device (Backend::fill_draw) writes the host's bits.
  virtual std::vector<InputDraw> input_draws(const OpShape& s, std::uint64_t seed) const = 0;
  // The inputs drawn on the host, rounded to their element types.
  std::vector<HostTensor> make_inputs(const OpShape& s, std::uint64_t seed) const;
  // The fp64 reference of output row `row` from the (already dtype-rounded) inputs; `out` has n
  // entries, `scratch` is reusable working memory.
  virtual void reference_row(const OpShape& s, const std::vector<HostTensor>& inputs, std::int64_t row,
                             double* out, std::vector<double>& scratch) const = 0;
  // The reference of `count` rows into out[count * n].
  virtual void reference_rows(const OpShape& s, const std::vector<HostTensor>& inputs,
                              const std::int64_t* rows, std::size_t count, double* out) const = 0;
  // Whether reference_rows parallelizes itself (then it is called once with every row).
  virtual bool parallel_reference() const { return false; }
  // Work of one reference row, in multiply-adds (sizes how many rows the check compares).
  virtual double reference_row_work(const OpShape& s) const = 0;
};

// The shipped op of `type`, from its description (not OpType::described: op_of(shape) serves
// every op; ops/op_catalog.cpp).
const Op& op_for(OpType type);

}  // namespace caliber::ops
