// The correctness check: a provider's output against the op's fp64 host reference, with a
// dtype-aware tolerance. docs/ops.md gives the rule and the reasoning behind each number.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "ops/correctness_check.h"
#include "ops/device_reference.h"
#include "ops/op.h"

namespace caliber::ops {

struct Tolerance {
  double rel_fro = 0;  // bound on ||out - ref||_F / ||ref||_F over the checked rows
  double rtol = 0;     // elementwise: |out - ref| <= rtol |ref| + atol rms(ref)
  double atol = 0;
  // The dtype's resolution near zero: the spacing of its subnormals (fp16 2^-24 ~ 6e-8). An output
  // smaller than the smallest normal (fp16 6.1e-5: a softmax over a 152k vocabulary averages
  // 6.6e-6) cannot be closer than half that to the reference, whatever rtol says.
  double abs_floor = 0;
};

Tolerance tolerance_for(DType dtype);
// The shape dtypes' tolerances, and for the other floating-point element types: fp64 tight, fp8
// from its unit roundoff as the others are (docs/user-ops.md). Integers: all zero (exact).
Tolerance tolerance_for(ElementType e);

// How one output of a described op is compared with its reference (docs/user-ops.md, "Checks").
struct CheckRule {
  enum class Kind {
    tolerance,  // the tolerance of its element type (the shipped ops' rule)
    exact,      // every element equal (integers' default; NaN where the reference is NaN)
    ulp,        // every element within `ulps` units in the last place of its element type
    indices,    // indices into the last extent of input `indices_into`: the values they select
                // equal those the reference's select, so any correct answer under ties passes
  };
  Kind kind = Kind::tolerance;
  double ulps = 0;
  std::size_t indices_into = 0;  // the input's index
  std::string indices_into_name;
  bool unordered = false;  // indices: the selected values compared as a set per row
  // For the integrity record: "tolerance", "exact", "within 1 ulp", "indices into x".
  std::string text() const;
};

// Reference work budget of one check, in multiply-adds: every row when m x row work fits,
// else a sample of rows drawn at random (at least kMinCheckedRows).
inline constexpr double kReferenceWorkBudget = 268435456.0;  // 2^28
inline constexpr std::int64_t kMinCheckedRows = 16;
// A described op's outputs (docs/user-ops.md): every row of an output of at most this many
// elements, else rows drawn at random holding about as many (its reference computes them all;
// the comparison is what grows with the shape).
inline constexpr std::int64_t kCheckedElementsBudget = std::int64_t{1} << 24;

// The output rows one check compares, sorted: every row when the budget allows, else `count`
// distinct rows drawn uniformly at random from `seed` (a provider cannot know which rows will
// be compared; the seed is recorded with the results so the choice can be reproduced).
std::vector<std::int64_t> rows_to_check(const Op& op, const OpShape& shape, std::uint64_t seed);
// `wanted` distinct rows of [0, total), sorted, drawn as rows_to_check draws them; every row when
// wanted >= total.
std::vector<std::int64_t> sample_rows(std::int64_t total, std::int64_t wanted, std::uint64_t seed);

// The fp64 reference of the checked rows, computed once per shape (in parallel) and shared by
// every provider's check, on the host from the op's reference_rows (a backend that computes it
// on the device keeps it there: ops/device_reference.h).
class Reference {
 public:
  Reference(const Op& op, const OpShape& shape, const std::vector<HostTensor>& inputs,
            std::vector<std::int64_t> rows);
  // The rows of rows_to_check(op, shape, row_seed).
  Reference(const Op& op, const OpShape& shape, const std::vector<HostTensor>& inputs, std::uint64_t row_seed = 0)
      : Reference(op, shape, inputs, rows_to_check(op, shape, row_seed)) {}
  // Values computed elsewhere (a described op's reference provider, docs/user-ops.md): `values`
  // holds rows.size() x cols values, of the rows `rows` of an output of total_rows x cols.
  Reference(std::int64_t total_rows, std::int64_t cols, std::vector<std::int64_t> rows, std::vector<double> values);
  const std::vector<std::int64_t>& rows() const { return rows_; }
  const std::vector<double>& values() const { return values_; }  // rows().size() x cols()
  std::int64_t total_rows() const { return total_rows_; }          // of the output compared
  std::int64_t cols() const { return cols_; }
  double sum_of_squares() const { return sum_of_squares_; }  // of values()

 private:
  std::int64_t total_rows_ = 0;
  std::int64_t cols_ = 0;
  std::vector<std::int64_t> rows_;
  std::vector<double> values_;
  double sum_of_squares_ = 0;

  void sum_squares();
};

// Compares `output` ([m, n] in the shape's dtype) with the reference. NaN and infinity never
// pass: any non-finite output makes rel_fro_error infinite.
CorrectnessCheck check_output(const Reference& reference, const HostTensor& output, const Tolerance& tol);

// The absolute term of the elementwise bound rtol |ref| + atol: tol.atol rms(ref) plus the
// dtype's subnormal step, for a reference of `values` values whose squares sum to sum_of_squares.
double absolute_bound(const Tolerance& tol, double sum_of_squares, std::size_t values);
// The check from a comparison's sums: check_output's own, or a device's
// (DeviceReferenceMath::compare_rows, where the reference stays on the device).
CorrectnessCheck check_from_sums(const RowComparison& sums, double sum_of_squares, std::int64_t checked_rows,
                                 std::int64_t total_rows, const Tolerance& tol);

// All three conditions: no non-finite output, rel_fro_error <= bound, max_scaled_error <= 1.
bool passed(const CorrectnessCheck& c);
// One line saying which condition failed and by how much; empty when passed.
std::string failure_reason(const CorrectnessCheck& c);

}  // namespace caliber::ops
