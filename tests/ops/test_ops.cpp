// The ops: references on literal data (hand-computed), byte and flop counts, deterministic inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ops/op.h"
#include "ops/op_catalog.h"
#include "ops/uniform_draw.h"

namespace caliber::ops {
namespace {

OpShape shape(OpType op, DType d, std::int64_t m, std::int64_t n, std::int64_t k = 0, double eps = 1e-6) {
  return shipped_shape(op, d, m, n, k, eps);
}

HostTensor tensor(const char* name, std::int64_t rows, std::int64_t cols, std::vector<float> values) {
  HostTensor t(name, DType::fp32, rows, cols);
  for (std::size_t i = 0; i < values.size(); ++i) t.set(i, values[i]);
  return t;
}

std::vector<double> reference(const Op& op, const OpShape& s, const std::vector<HostTensor>& in, std::int64_t row) {
  std::vector<double> out(static_cast<std::size_t>(s.n)), scratch;
  op.reference_row(s, in, row, out.data(), scratch);
  return out;
}

TEST(Ops, RmsNormReferenceByHand) {
  // x = [3, 4]: mean(x^2) = 12.5, rstd = 1 / sqrt(12.5) (eps 0 in spirit; 1e-12 here).
  const OpShape s = shape(OpType::rmsnorm, DType::fp32, 1, 2, 0, 1e-12);
  std::vector<HostTensor> in;
  in.push_back(tensor("x", 1, 2, {3, 4}));
  in.push_back(tensor("weight", 1, 2, {1, 2}));
  const auto y = reference(op_for(OpType::rmsnorm), s, in, 0);
  EXPECT_NEAR(y[0], 3 / std::sqrt(12.5), 1e-12);
  EXPECT_NEAR(y[1], 8 / std::sqrt(12.5), 1e-12);
}

TEST(Ops, LayerNormReferenceByHand) {
  // x = [1, 3]: mean 2, biased variance 1 -> normalized [-1, 1].
  const OpShape s = shape(OpType::layernorm, DType::fp32, 1, 2, 0, 1e-12);
  std::vector<HostTensor> in;
  in.push_back(tensor("x", 1, 2, {1, 3}));
  in.push_back(tensor("weight", 1, 2, {2, 3}));
  in.push_back(tensor("bias", 1, 2, {0.5, -0.5}));
  const auto y = reference(op_for(OpType::layernorm), s, in, 0);
  EXPECT_NEAR(y[0], -2 + 0.5, 1e-9);
  EXPECT_NEAR(y[1], 3 - 0.5, 1e-9);
}

TEST(Ops, SoftmaxReferenceByHand) {
  const OpShape s = shape(OpType::softmax, DType::fp32, 2, 2);
  std::vector<HostTensor> in;
  in.push_back(tensor("x", 2, 2, {0, 0, 0, std::log(3.0f)}));
  const auto y0 = reference(op_for(OpType::softmax), s, in, 0);
  const auto y1 = reference(op_for(OpType::softmax), s, in, 1);
  EXPECT_NEAR(y0[0], 0.5, 1e-12);
  EXPECT_NEAR(y1[0], 0.25, 1e-7);
  EXPECT_NEAR(y1[1], 0.75, 1e-7);
}

TEST(Ops, GemmReferenceByHandAndBatchedRowsAgree) {
  // A = [[1, 2], [3, 4]], B = [[5, 6, 7], [8, 9, 10]].
  const OpShape s = shape(OpType::gemm, DType::fp32, 2, 3, 2);
  std::vector<HostTensor> in;
  in.push_back(tensor("a", 2, 2, {1, 2, 3, 4}));
  in.push_back(tensor("b", 2, 3, {5, 6, 7, 8, 9, 10}));
  const auto r1 = reference(op_for(OpType::gemm), s, in, 1);
  EXPECT_EQ(r1, (std::vector<double>{47, 54, 61}));
  const std::int64_t rows[] = {0, 1};
  std::vector<double> both(6);
  op_for(OpType::gemm).reference_rows(s, in, rows, 2, both.data());
  EXPECT_EQ(both, (std::vector<double>{21, 24, 27, 47, 54, 61}));
}

TEST(Ops, ByteAndFlopCounts) {
  EXPECT_EQ(op_for(OpType::rmsnorm).bytes(shape(OpType::rmsnorm, DType::bf16, 4, 8)), (2u * 32 + 8) * 2);
  EXPECT_EQ(op_for(OpType::rmsnorm).flops(shape(OpType::rmsnorm, DType::bf16, 4, 8)), 4u * 32);
  EXPECT_EQ(op_for(OpType::layernorm).bytes(shape(OpType::layernorm, DType::fp32, 4, 8)), (2u * 32 + 16) * 4);
  EXPECT_EQ(op_for(OpType::softmax).bytes(shape(OpType::softmax, DType::fp16, 3, 5)), 2u * 15 * 2);
  EXPECT_EQ(op_for(OpType::gemm).bytes(shape(OpType::gemm, DType::bf16, 2, 3, 4)), (8u + 12 + 6) * 2);
  EXPECT_EQ(op_for(OpType::gemm).flops(shape(OpType::gemm, DType::bf16, 2, 3, 4)), 2u * 2 * 3 * 4);
}

TEST(Ops, InputsAreDeterministicNonZeroAndSeedDependent) {
  const OpShape s = shape(OpType::rmsnorm, DType::bf16, 300, 257, 0, 1e-6);
  const auto a = op_for(OpType::rmsnorm).make_inputs(s, 7);
  const auto b = op_for(OpType::rmsnorm).make_inputs(s, 7);
  const auto c = op_for(OpType::rmsnorm).make_inputs(s, 8);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(std::memcmp(a[0].data(), b[0].data(), a[0].bytes()), 0);
  EXPECT_NE(std::memcmp(a[0].data(), c[0].data(), a[0].bytes()), 0);
  std::size_t zeros = 0;
  double lo = 1e9, hi = -1e9;
  for (std::size_t i = 0; i < a[0].elements(); ++i) {
    zeros += a[0].get(i) == 0.0;
    lo = std::min(lo, a[0].get(i));
    hi = std::max(hi, a[0].get(i));
  }
  EXPECT_LT(zeros, a[0].elements() / 100);
  EXPECT_GE(lo, -1.0);
  EXPECT_LE(hi, 1.0);
  for (std::size_t i = 0; i < a[1].elements(); ++i) EXPECT_GE(a[1].get(i), 0.5);  // weights in [0.5, 1.5)
}

TEST(Ops, EveryInputHasItsOwnDrawAndMakeInputsFollowsTheSpecs) {
  for (OpType type : {OpType::rmsnorm, OpType::layernorm, OpType::softmax, OpType::gemm}) {
    const OpShape s = shape(type, DType::fp16, 5, 9, type == OpType::gemm ? 3 : 0, 1e-6);
    const Op& op = op_for(type);
    const std::vector<TensorSpec> specs = op.inputs(s);
    const std::vector<InputDraw> draws = op.input_draws(s, 3);
    const std::vector<HostTensor> made = op.make_inputs(s, 3);
    ASSERT_EQ(draws.size(), specs.size()) << to_string(type);
    ASSERT_EQ(made.size(), specs.size()) << to_string(type);
    for (std::size_t k = 0; k < specs.size(); ++k) {
      EXPECT_EQ(made[k].name(), specs[k].name);
      EXPECT_EQ(made[k].rows(), specs[k].rows);
      EXPECT_EQ(made[k].cols(), specs[k].cols);
      EXPECT_EQ(made[k].element(), ElementType::fp16);
      EXPECT_LT(static_cast<float>(draws[k].params.a), static_cast<float>(draws[k].params.b));
      for (std::size_t j = 0; j < k; ++j) EXPECT_NE(draws[j].params.seed, draws[k].params.seed) << to_string(type);
      // The tensor is the draw: element 0 of input k is the draw's element 0, rounded to fp16.
      HostTensor one("one", DType::fp16, 1, 1);
      one.set(0, uniform_element(draws[k].params.seed, 0, uniform_scale(static_cast<float>(draws[k].params.a), static_cast<float>(draws[k].params.b)), static_cast<float>(draws[k].params.a)));
      EXPECT_EQ(made[k].get(0), one.get(0)) << to_string(type) << " input " << k;
    }
    EXPECT_NE(op.input_draws(s, 4)[0].params.seed, draws[0].params.seed);
  }
}

}  // namespace
}  // namespace caliber::ops
