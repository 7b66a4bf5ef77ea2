// The op of an op description (ops/op_description.h, docs/user-ops.md): its tensors, draws,
// bytes and flops come from the description's formulas, evaluated for a shape's args. Every op is
// one: the shipped ops' descriptions are built in (ops/*.op.yaml). A shipped op's reference is
// caliber's fp64 row reference its description names (ops/row_reference.h); an op of your own
// has no host reference here: its reference is a provider the description names, run by the
// shape runner on the same inputs (runner/shape_inputs.cpp).
#pragma once

#include "ops/op.h"
#include "ops/op_description.h"

namespace caliber::ops {

class RowReference;

class DescribedOp final : public Op {
 public:
  // A shipped description's op type is its name's; its reference, the row reference it names.
  explicit DescribedOp(OpDescription description);
  const OpDescription& description() const { return description_; }
  // One of the ops caliber ships (its description is built in).
  bool shipped() const { return description_.shipped; }
  // caliber's fp64 reference of the op, row by row (a shipped op's), or null: the reference is
  // the provider the description names.
  const RowReference* row_reference() const { return row_reference_; }

  OpType type() const override { return type_; }
  std::vector<TensorSpec> inputs(const OpShape& s) const override;
  std::vector<TensorSpec> outputs(const OpShape& s) const override;
  std::uint64_t bytes(const OpShape& s) const override;
  std::uint64_t flops(const OpShape& s) const override;
  // Input k's draw of its description, from mix64(seed + k + 1).
  std::vector<InputDraw> input_draws(const OpShape& s, std::uint64_t seed) const override;
  // The row reference's (a shipped op's); without one, reference_row and reference_rows throw
  // std::logic_error (never called: the reference is a provider) and the work is 0.
  void reference_row(const OpShape& s, const std::vector<HostTensor>& inputs, std::int64_t row, double* out,
                     std::vector<double>& scratch) const override;
  void reference_rows(const OpShape& s, const std::vector<HostTensor>& inputs, const std::int64_t* rows,
                      std::size_t count, double* out) const override;
  bool parallel_reference() const override;
  // The first input whose draw may hold non-finite values (special values, a mask of
  // infinities or NaN), or null: then a NaN output may be a result, not an unwritten element.
  const DescribedTensor* nonfinite_input() const;
  bool draws_nonfinite() const { return nonfinite_input() != nullptr; }
  double reference_row_work(const OpShape& s) const override;

  // Parses a ledger row's args for this op: exactly the description's args, each in its range
  // (integers whole numbers in [0, kMaxDim] at most, numbers finite), every tensor's extents
  // integers in [1, kMaxDim] and at most kMaxElements elements. Errors are InputError naming
  // `file`, `line` and `field`. The args named m, n, k (integers) and eps (a number) are also the
  // shape's fields of those names, which the shipped ops' compiled providers read.
  OpShape parse_shape(DType dtype, const std::string& layout, const nlohmann::json& args, const std::string& file,
                      long line, const std::string& field) const;

 private:
  OpDescription description_;
  OpType type_ = OpType::described;
  const RowReference* row_reference_ = nullptr;
  std::vector<TensorSpec> tensors(const OpShape& s, const std::vector<DescribedTensor>& list) const;
  void check_index_outputs(const OpShape& s, const std::string& file, long line, const std::string& field) const;
};

}  // namespace caliber::ops
