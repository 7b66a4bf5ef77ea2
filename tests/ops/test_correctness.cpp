// The correctness check: exact outputs pass, one wrong element fails, NaN never passes, the
// dtype tolerance admits output rounding, and big gemms check a spread of rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "ops/correctness.h"
#include "ops/op_catalog.h"

namespace caliber::ops {
namespace {

OpShape rms(DType d, std::int64_t m, std::int64_t n) {
  return shipped_shape(OpType::rmsnorm, d, m, n);
}

// The reference rounded to the dtype: what a perfect kernel writes.
HostTensor rounded_reference(const Reference& ref, DType d) {
  const std::int64_t n = ref.cols();
  HostTensor out("y", d, ref.total_rows(), n);
  for (std::size_t i = 0; i < ref.rows().size(); ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      out.set(static_cast<std::size_t>(ref.rows()[i] * n + j),
              static_cast<float>(ref.values()[i * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)]));
    }
  }
  return out;
}

TEST(Correctness, RoundedReferencePassesInEveryDtype) {
  for (DType d : all_dtypes()) {
    const OpShape s = rms(d, 64, 1000);
    const auto inputs = op_for(OpType::rmsnorm).make_inputs(s, 1);
    const Reference ref(op_for(OpType::rmsnorm), s, inputs);
    const CorrectnessCheck c = check_output(ref, rounded_reference(ref, d), tolerance_for(d));
    EXPECT_TRUE(passed(c)) << to_string(d) << ": " << failure_reason(c);
    EXPECT_EQ(c.checked_rows, 64);
    EXPECT_EQ(failure_reason(c), "");
  }
}

TEST(Correctness, Fp16SoftmaxOverAVocabularyLivesInTheSubnormalRange) {
  // A softmax over 152,064 logits averages 6.6e-6, below fp16's smallest normal (6.1e-5): there
  // the representable spacing is 2^-24 whatever the value, and a kernel that rounds its fp32 result
  // once more (or differently) is off by up to one such step. H200, 2026-11-29: the caliber, naive
  // and cuDNN kernels all exceeded rtol |ref| + atol rms(ref) by 1.13x on such elements.
  const OpShape s = shipped_shape(OpType::softmax, DType::fp16, 2, 152064);
  const auto inputs = op_for(OpType::softmax).make_inputs(s, 3);
  const Reference ref(op_for(OpType::softmax), s, inputs);
  HostTensor out = rounded_reference(ref, DType::fp16);
  const double step = std::ldexp(1.0, -24);
  double smallest = 1;
  for (double v : ref.values()) smallest = std::min(smallest, v);
  ASSERT_LT(smallest, std::ldexp(1.0, -14)) << "the test needs outputs in fp16's subnormal range";
  // The reference rounded to fp16 (at most half a step off), and one element in a thousand a full
  // step off (a second rounding): still a correct fp16 kernel.
  std::size_t perturbed = 0;
  for (std::size_t j = 0; j < static_cast<std::size_t>(s.n); j += 1000) {
    if (ref.values()[j] < std::ldexp(1.0, -14)) {
      out.set(j, static_cast<float>(ref.values()[j] + step / 2));  // rounds to at most a step off
      ++perturbed;
    }
  }
  ASSERT_GT(perturbed, 100u);
  CorrectnessCheck c = check_output(ref, out, tolerance_for(DType::fp16));
  EXPECT_TRUE(passed(c)) << failure_reason(c);
  // Three steps off on one element is not rounding.
  out.set(500, static_cast<float>(ref.values()[500] + 3 * step));
  c = check_output(ref, out, tolerance_for(DType::fp16));
  EXPECT_FALSE(passed(c));
  EXPECT_NE(failure_reason(c).find("an element exceeds"), std::string::npos) << failure_reason(c);
}

TEST(Correctness, OneWrongElementFailsEvenWhenTheNormIsSmall) {
  const OpShape s = rms(DType::bf16, 256, 1024);
  const auto inputs = op_for(OpType::rmsnorm).make_inputs(s, 2);
  const Reference ref(op_for(OpType::rmsnorm), s, inputs);
  HostTensor out = rounded_reference(ref, DType::bf16);
  out.set(12345, static_cast<float>(out.get(12345) + 0.5));
  const CorrectnessCheck c = check_output(ref, out, tolerance_for(DType::bf16));
  EXPECT_FALSE(passed(c));
  EXPECT_LT(c.rel_fro_error, 1e-2);          // the Frobenius norm alone would let it through
  EXPECT_GT(c.max_scaled_error, 1.0);        // the elementwise bound does not
  EXPECT_NE(failure_reason(c).find("an element exceeds"), std::string::npos) << failure_reason(c);
}

TEST(Correctness, NanNeverPasses) {
  const OpShape s = rms(DType::bf16, 8, 64);
  const auto inputs = op_for(OpType::rmsnorm).make_inputs(s, 3);
  const Reference ref(op_for(OpType::rmsnorm), s, inputs);
  HostTensor out = rounded_reference(ref, DType::bf16);
  out.set(5, NAN);
  const CorrectnessCheck c = check_output(ref, out, tolerance_for(DType::bf16));
  EXPECT_FALSE(passed(c));
  EXPECT_EQ(c.nonfinite, 1);
  EXPECT_TRUE(std::isinf(c.rel_fro_error));
  EXPECT_NE(failure_reason(c).find("1 non-finite outputs"), std::string::npos);
}

TEST(Correctness, AnUnwrittenPoisonedOutputFails) {
  const OpShape s = rms(DType::fp16, 4, 32);
  const auto inputs = op_for(OpType::rmsnorm).make_inputs(s, 4);
  const Reference ref(op_for(OpType::rmsnorm), s, inputs);
  HostTensor out("y", DType::fp16, 4, 32);
  std::memset(out.data(), 0xFF, out.bytes());  // what the runner writes before a provider runs
  const CorrectnessCheck c = check_output(ref, out, tolerance_for(DType::fp16));
  EXPECT_FALSE(passed(c));
  EXPECT_EQ(c.nonfinite, 128);
}

TEST(Correctness, Bf16ToleranceRejectsASystematicThreePercentError) {
  // bf16 rounding alone is about 0.2% RMS; every element 3% too large must fail.
  const OpShape s = rms(DType::bf16, 32, 512);
  const auto inputs = op_for(OpType::rmsnorm).make_inputs(s, 5);
  const Reference ref(op_for(OpType::rmsnorm), s, inputs);
  HostTensor out = rounded_reference(ref, DType::bf16);
  for (std::size_t i = 0; i < out.elements(); ++i) out.set(i, static_cast<float>(out.get(i) * 1.03));
  EXPECT_FALSE(passed(check_output(ref, out, tolerance_for(DType::bf16))));
}

TEST(Correctness, LargeGemmsCheckRowsDrawnAtRandomFromTheSeed) {
  const OpShape s = shipped_shape(OpType::gemm, DType::bf16, 4096, 8192, 8192);
  const auto rows = rows_to_check(op_for(OpType::gemm), s, 7);
  // 2^28 / (8192 * 8192) = 4 rows affordable: the minimum of 16 applies.
  ASSERT_EQ(rows.size(), 16u);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end());  // distinct
  EXPECT_GE(rows.front(), 0);
  EXPECT_LT(rows.back(), 4096);
  EXPECT_EQ(rows_to_check(op_for(OpType::gemm), s, 7), rows);  // reproducible from the seed
  EXPECT_NE(rows_to_check(op_for(OpType::gemm), s, 8), rows);  // another run, other rows
  // Not the evenly spread rows a provider could predict: across 64 seeds the first chosen row
  // takes many values.
  std::set<std::int64_t> firsts;
  for (std::uint64_t seed = 0; seed < 64; ++seed) firsts.insert(rows_to_check(op_for(OpType::gemm), s, seed).front());
  EXPECT_GT(firsts.size(), 32u);
  const OpShape small = shipped_shape(OpType::gemm, DType::bf16, 64, 64, 64);
  EXPECT_EQ(rows_to_check(op_for(OpType::gemm), small, 7).size(), 64u);  // small: every row
}

// Floyd's algorithm written out with an ordered set: the rows rows_to_check must choose, whichever
// set it keeps them in (a bitmap when they are a sizable share of the rows, a hash set otherwise).
std::vector<std::int64_t> floyd_rows(std::int64_t m, std::int64_t count, std::uint64_t seed) {
  std::set<std::int64_t> chosen;
  std::uint64_t state = seed;
  for (std::int64_t j = m - count; j < m; ++j) {
    state = mix64(state + 0x9e3779b97f4a7c15ull);
    const auto t = static_cast<std::int64_t>(state % static_cast<std::uint64_t>(j + 1));
    if (!chosen.insert(t).second) chosen.insert(j);
  }
  return {chosen.begin(), chosen.end()};
}

TEST(Correctness, CheckedRowsAreFloydsWhateverTheShareOfTheRows) {
  // 2^28 / (5 * 4096) = 13107 rows: more than m / 64 (the bitmap)
  const OpShape norm = shipped_shape(OpType::layernorm, DType::bf16, 200000, 4096);
  EXPECT_EQ(rows_to_check(op_for(OpType::layernorm), norm, 9), floyd_rows(200000, 13107, 9));
  // 16 rows of 4096: fewer than m / 64 (the hash set)
  const OpShape gemm = shipped_shape(OpType::gemm, DType::bf16, 4096, 8192, 8192);
  EXPECT_EQ(rows_to_check(op_for(OpType::gemm), gemm, 9), floyd_rows(4096, 16, 9));
  // 16 rows of 1000: the bitmap
  const OpShape short_gemm = shipped_shape(OpType::gemm, DType::bf16, 1000, 8192, 8192);
  EXPECT_EQ(rows_to_check(op_for(OpType::gemm), short_gemm, 9), floyd_rows(1000, 16, 9));
}

TEST(Correctness, TheAbsoluteBoundIsAtolTimesTheReferenceRmsPlusTheSubnormalStep) {
  Tolerance tol;
  tol.atol = 0.5;
  tol.abs_floor = 0.125;
  EXPECT_EQ(absolute_bound(tol, 64.0, 4), 0.5 * 4.0 + 0.125);  // rms = sqrt(64 / 4) = 4
  EXPECT_EQ(absolute_bound(tol, 0.0, 0), 0.125);               // no values: the floor only
}

TEST(Correctness, ACheckFromSumsAppliesTheThreeConditions) {
  Tolerance tol;
  tol.rel_fro = 0.25;
  tol.rtol = 0.5;
  tol.atol = 0.125;
  // sqrt(1 / 16) = 0.25 <= 0.25 and max scaled 1 <= 1: passes (every number exact in binary).
  CorrectnessCheck c = check_from_sums(RowComparison{1.0, 1.0, 0}, 16.0, 3, 10, tol);
  EXPECT_TRUE(passed(c)) << failure_reason(c);
  EXPECT_EQ(c.rel_fro_error, 0.25);
  EXPECT_EQ(c.max_scaled_error, 1.0);
  EXPECT_EQ(c.checked_rows, 3);
  EXPECT_EQ(c.total_rows, 10);
  EXPECT_EQ(c.tolerance_rel_fro, 0.25);
  EXPECT_EQ(c.rtol, 0.5);
  EXPECT_EQ(c.atol, 0.125);
  // sqrt(4 / 16) = 0.5 > 0.25.
  c = check_from_sums(RowComparison{4.0, 0.5, 0}, 16.0, 3, 10, tol);
  EXPECT_FALSE(passed(c));
  EXPECT_EQ(c.rel_fro_error, 0.5);
  // One element past its bound.
  c = check_from_sums(RowComparison{0.0, 1.5, 0}, 16.0, 3, 10, tol);
  EXPECT_FALSE(passed(c));
  EXPECT_EQ(c.rel_fro_error, 0.0);
  // Any non-finite output: both errors infinite, whatever the sums say.
  c = check_from_sums(RowComparison{0.0, 0.0, 2}, 16.0, 3, 10, tol);
  EXPECT_FALSE(passed(c));
  EXPECT_EQ(c.nonfinite, 2);
  EXPECT_TRUE(std::isinf(c.rel_fro_error));
  EXPECT_TRUE(std::isinf(c.max_scaled_error));
  EXPECT_EQ(failure_reason(c), "2 non-finite outputs (NaN or inf) in 3 checked rows");
  // An all-zero reference: the absolute Frobenius norm of the difference.
  c = check_from_sums(RowComparison{0.0625, 0.0, 0}, 0.0, 1, 1, tol);
  EXPECT_EQ(c.rel_fro_error, 0.25);
}

TEST(Correctness, SampledRowsAreTheCheckedRowsDrawOfAnyRowCount) {
  // The draw rows_to_check makes for a shape of m rows, for any row count and size (a described
  // op's outputs, docs/user-ops.md).
  const OpShape s = shipped_shape(OpType::gemm, DType::bf16, 5000, 8192, 8192);  // 16 rows checked of 5000
  const auto rows = rows_to_check(op_for(OpType::gemm), s, 11);
  ASSERT_EQ(rows.size(), 16u);
  EXPECT_EQ(sample_rows(5000, static_cast<std::int64_t>(rows.size()), 11), rows);
  const auto some = sample_rows(1000, 16, 3);
  ASSERT_EQ(some.size(), 16u);
  EXPECT_TRUE(std::is_sorted(some.begin(), some.end()));
  EXPECT_EQ(std::set<std::int64_t>(some.begin(), some.end()).size(), 16u);
  EXPECT_LT(some.back(), 1000);
  EXPECT_EQ(sample_rows(10, 20, 3), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));  // every row
}

}  // namespace
}  // namespace caliber::ops
