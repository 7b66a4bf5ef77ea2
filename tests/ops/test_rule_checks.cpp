// The checks that fit the op (docs/user-ops.md, "Checks"), on literal outputs: exact (integers),
// units in the last place, indices judged by the values they select (any answer under ties), and
// non-finite values matched where the reference has them.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/correctness.h"
#include "ops/rule_checks.h"

namespace caliber::ops {
namespace {

HostTensor tensor(ElementType e, std::int64_t rows, std::int64_t cols, const std::vector<double>& values) {
  HostTensor t("out", e, rows, cols);
  for (std::size_t i = 0; i < values.size(); ++i) t.set(i, values[i]);
  return t;
}

Reference whole(std::int64_t rows, std::int64_t cols, std::vector<double> values) {
  std::vector<std::int64_t> all;
  for (std::int64_t r = 0; r < rows; ++r) all.push_back(r);
  return Reference(rows, cols, std::move(all), std::move(values));
}

TEST(RuleChecks, ExactPassesOnlyEqualIntegers) {
  const Reference ref = whole(1, 4, {3, 0, 7, 1});
  EXPECT_TRUE(passed(check_output(ref, tensor(ElementType::int64, 1, 4, {3, 0, 7, 1}), exact_tolerance())));
  const CorrectnessCheck off = check_output(ref, tensor(ElementType::int64, 1, 4, {3, 0, 7, 2}), exact_tolerance());
  EXPECT_FALSE(passed(off));
  EXPECT_NE(failure_reason(off).find("exact check"), std::string::npos) << failure_reason(off);
}

TEST(RuleChecks, UlpBoundsTheErrorInTheOutputsOwnSpacing) {
  // e4m3 spacing at 3.0 is 0.25: 3.25 is 1 ulp off, 3.5 two.
  const Reference ref = whole(1, 3, {3.0, 0.001, -100.0});
  const CheckRule rule{CheckRule::Kind::ulp, 1};
  EXPECT_TRUE(passed(check_ulp(ref, tensor(ElementType::fp8_e4m3, 1, 3, {3.25, 0.0, -96.0}), 1)));
  const CorrectnessCheck two = check_ulp(ref, tensor(ElementType::fp8_e4m3, 1, 3, {3.5, 0.0, -96.0}), 1);
  EXPECT_FALSE(passed(two));
  EXPECT_EQ(two.max_scaled_error, 2.0);
  EXPECT_NE(rule_failure_reason(two, rule).find("2 ulp from the reference"), std::string::npos)
      << rule_failure_reason(two, rule);
}

TEST(RuleChecks, IndicesPassWhateverTheOrderAmongTiesButNotRepeatedOrOutOfRange) {
  // Two rows of x; top-2 indices per row. Row 0 ties at 5 (columns 1 and 3).
  const HostTensor x = tensor(ElementType::fp32, 2, 4, {1, 5, 2, 5, 9, 0, 8, 3});
  const Reference ref = whole(2, 2, {1, 3, 0, 2});
  EXPECT_TRUE(passed(check_indices(ref, tensor(ElementType::int32, 2, 2, {3, 1, 0, 2}), x, false)));
  EXPECT_FALSE(passed(check_indices(ref, tensor(ElementType::int32, 2, 2, {1, 1, 0, 2}), x, false)));  // repeated
  EXPECT_FALSE(passed(check_indices(ref, tensor(ElementType::int32, 2, 2, {1, 3, 0, 4}), x, false)));  // out of range
  EXPECT_FALSE(passed(check_indices(ref, tensor(ElementType::int32, 2, 2, {1, 3, 2, 0}), x, false)));  // order
  EXPECT_TRUE(passed(check_indices(ref, tensor(ElementType::int32, 2, 2, {1, 3, 2, 0}), x, true)));    // unordered
  const CorrectnessCheck wrong = check_indices(ref, tensor(ElementType::int32, 2, 2, {1, 2, 0, 2}), x, false);
  EXPECT_EQ(wrong.max_scaled_error, 1.0);  // one index selects 2, not 5
  EXPECT_EQ(wrong.rel_fro_error, 0.25);
}

TEST(RuleChecks, AnArgmaxIsOneIndexPerRowOfItsInput) {
  const HostTensor x = tensor(ElementType::bf16, 3, 2, {1, 1, 0, 2, 4, 3});
  const Reference ref = whole(1, 3, {0, 1, 0});  // output [3]: one row of 3
  EXPECT_TRUE(passed(check_indices(ref, tensor(ElementType::int64, 1, 3, {1, 1, 0}), x, false)));  // a tie in row 0
  EXPECT_FALSE(passed(check_indices(ref, tensor(ElementType::int64, 1, 3, {1, 0, 0}), x, false)));
  EXPECT_EQ(invalid_reference_indices({0, 2, 0}, "index", x).find("index 2 at element 1"), 0u);
}

TEST(RuleChecks, NonFiniteOutputsPassOnlyWhereTheReferenceHasTheSame) {
  const Reference ref = whole(1, 4, {NAN, INFINITY, 1.0, -INFINITY});
  const Tolerance tol = tolerance_for(DType::fp32);
  EXPECT_TRUE(passed(check_output(ref, tensor(ElementType::fp32, 1, 4, {NAN, INFINITY, 1.0, -INFINITY}), tol)));
  EXPECT_FALSE(passed(check_output(ref, tensor(ElementType::fp32, 1, 4, {0.0, INFINITY, 1.0, -INFINITY}), tol)));
  EXPECT_FALSE(passed(check_output(ref, tensor(ElementType::fp32, 1, 4, {NAN, -INFINITY, 1.0, -INFINITY}), tol)));
  EXPECT_FALSE(passed(check_output(ref, tensor(ElementType::fp32, 1, 4, {NAN, INFINITY, NAN, -INFINITY}), tol)));
  EXPECT_EQ(ref.sum_of_squares(), 1.0);  // of the finite values only
}

TEST(RuleChecks, OtherFloatingPointOutputsHaveTolerancesOfTheirOwn) {
  EXPECT_EQ(tolerance_for(ElementType::fp8_e4m3).rtol, 0.125);
  EXPECT_EQ(tolerance_for(ElementType::bf16).rtol, tolerance_for(DType::bf16).rtol);
  EXPECT_EQ(tolerance_for(ElementType::int32).rtol, 0.0);
  const Reference ref = whole(1, 2, {1.0, 2.0});
  EXPECT_TRUE(passed(check_output(ref, tensor(ElementType::fp8_e4m3, 1, 2, {1.0, 2.0}), tolerance_for(ElementType::fp8_e4m3))));
}

}  // namespace
}  // namespace caliber::ops
