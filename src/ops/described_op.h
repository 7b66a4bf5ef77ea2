// The op of an op description (ops/op_description.h, docs/user-ops.md): its tensors, draws,
// bytes and flops come from the description's formulas, evaluated for a shape's args. It has no
// host reference of its own: its reference is a provider the description names, run by the shape
// runner on the same inputs (runner/shape_runner.cpp).
#pragma once

#include "ops/op.h"
#include "ops/op_description.h"

namespace caliber::ops {

class DescribedOp final : public Op {
 public:
  explicit DescribedOp(OpDescription description) : description_(std::move(description)) {}
  const OpDescription& description() const { return description_; }

  OpType type() const override { return OpType::described; }
  std::vector<TensorSpec> inputs(const OpShape& s) const override;
  std::vector<TensorSpec> outputs(const OpShape& s) const override;
  std::uint64_t bytes(const OpShape& s) const override;
  std::uint64_t flops(const OpShape& s) const override;
  // Input k from mix64(seed + k + 1), in [lo, hi] of its description.
  std::vector<InputDraw> input_draws(const OpShape& s, std::uint64_t seed) const override;
  // Never called (its reference is a provider): throws std::logic_error.
  void reference_row(const OpShape& s, const std::vector<HostTensor>& inputs, std::int64_t row, double* out,
                     std::vector<double>& scratch) const override;
  double reference_row_work(const OpShape&) const override { return 0; }

  // Parses a ledger row's args for this op: exactly the description's args, integers as
  // integers in [0, kMaxDim], numbers finite, every tensor's extents integers in [1, kMaxDim] and
  // at most kMaxElements elements. Errors are InputError naming `file`, `line` and `field`.
  OpShape parse_shape(DType dtype, const std::string& layout, const nlohmann::json& args, const std::string& file,
                      long line, const std::string& field) const;

 private:
  OpDescription description_;
  std::vector<TensorSpec> tensors(const OpShape& s, const std::vector<DescribedTensor>& list) const;
};

}  // namespace caliber::ops
