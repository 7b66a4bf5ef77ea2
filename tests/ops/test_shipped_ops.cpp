// The shipped ops are descriptions (ops/*.op.yaml) of the same kind as an op of your own: built
// into caliber, read by the same reader, with caliber's fp64 row reference as their reference.
#include <gtest/gtest.h>

#include <string>

#include "caliber/errors.h"
#include "core/input_file.h"
#include "core/sha256.h"
#include "ops/described_op.h"
#include "ops/op_catalog.h"
#include "ops/row_reference.h"
#include "ops/uniform_draw.h"

namespace caliber::ops {
namespace {

std::string shape_error(const std::string& op, const nlohmann::json& args) {
  try {
    parse_shape(op, DType::fp32, "row_major", args, "l.jsonl", 3, "args");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ShippedOps, AreTheDescriptionsOfTheOpsFolder) {
  for (OpType type : all_op_types()) {
    const std::string name(to_string(type));
    const DescribedOp& op = known_op(name);
    EXPECT_TRUE(op.shipped()) << name;
    EXPECT_EQ(op.type(), type);
    EXPECT_EQ(&op_for(type), &op);
    EXPECT_EQ(op.description().file, "ops/" + name + ".op.yaml");
    // Built from the file in the source tree, byte for byte.
    const std::string file = std::string(CALIBER_SOURCE_DIR) + "/ops/" + name + ".op.yaml";
    EXPECT_EQ(op.description().sha256, sha256_hex(read_text_file(file))) << name;
    EXPECT_EQ(op.description().reference.text, "builtin:" + name);
    EXPECT_EQ(op.row_reference(), find_row_reference(name));
    EXPECT_NE(op.row_reference(), nullptr);
    EXPECT_FALSE(op.description().probes.empty()) << name;
  }
  EXPECT_EQ(find_row_reference("attention"), nullptr);
}

TEST(ShippedOps, TensorsDrawsAndCountsAreTheDocumentedOnes) {
  const OpShape rms = parse_shape("rmsnorm", DType::bf16, "row_major", {{"m", 4}, {"n", 8}, {"eps", 1e-5}}, "", 0, "args");
  const Op& op = op_of(rms);
  ASSERT_EQ(op.inputs(rms).size(), 2u);
  EXPECT_EQ(op.inputs(rms)[0].name, "x");
  EXPECT_EQ(op.inputs(rms)[0].extents(), (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(op.inputs(rms)[1].name, "weight");
  EXPECT_EQ(op.inputs(rms)[1].extents(), (std::vector<std::int64_t>{8}));
  EXPECT_EQ(op.inputs(rms)[1].rows, 1);
  ASSERT_EQ(op.outputs(rms).size(), 1u);
  EXPECT_EQ(op.outputs(rms)[0].name, "y");
  EXPECT_EQ(op.flops(rms), 4u * 32u);
  EXPECT_EQ(op.bytes(rms), (32u + 8u + 32u) * 2u);  // x, weight and y once each, 2 bytes each
  const std::vector<InputDraw> draws = op.input_draws(rms, 100);
  ASSERT_EQ(draws.size(), 2u);
  EXPECT_EQ(draws[0].params.seed, mix64(101));
  EXPECT_EQ(draws[0].params.a, -1.0f);
  EXPECT_EQ(draws[0].params.b, 1.0f);
  EXPECT_EQ(draws[1].params.seed, mix64(102));
  EXPECT_EQ(draws[1].params.a, 0.5f);
  EXPECT_EQ(draws[1].params.b, 1.5f);
  // The shape's fields the compiled providers read.
  EXPECT_EQ(rms.op, OpType::rmsnorm);
  EXPECT_EQ(rms.m, 4);
  EXPECT_EQ(rms.n, 8);
  EXPECT_EQ(rms.k, 0);
  EXPECT_EQ(rms.eps, 1e-5);
  EXPECT_EQ(rms.describe(), "m=4 n=8 eps=1e-05");

  const OpShape gemm = shipped_shape(OpType::gemm, DType::fp32, 3, 5, 7);
  EXPECT_EQ(op_of(gemm).inputs(gemm)[0].extents(), (std::vector<std::int64_t>{3, 7}));
  EXPECT_EQ(op_of(gemm).inputs(gemm)[1].extents(), (std::vector<std::int64_t>{7, 5}));
  EXPECT_EQ(op_of(gemm).outputs(gemm)[0].name, "c");
  EXPECT_EQ(op_of(gemm).flops(gemm), 2u * 3u * 5u * 7u);
  EXPECT_EQ(gemm.eps, 0.0);
  EXPECT_EQ(args_to_json(gemm), (nlohmann::json{{"k", 7}, {"m", 3}, {"n", 5}}));

  const OpShape ln = shipped_shape(OpType::layernorm, DType::fp32, 2, 3);
  const std::vector<InputDraw> ln_draws = op_of(ln).input_draws(ln, 0);
  ASSERT_EQ(ln_draws.size(), 3u);
  EXPECT_EQ(ln_draws[0].params.a, -0.75f);
  EXPECT_EQ(ln_draws[0].params.b, 1.25f);
  EXPECT_EQ(ln_draws[2].params.a, -0.5f);
  EXPECT_EQ(op_of(ln).flops(ln), 7u * 6u);
  const OpShape sm = shipped_shape(OpType::softmax, DType::fp32, 2, 3);
  EXPECT_EQ(op_of(sm).input_draws(sm, 0)[0].params.a, -4.0f);
  EXPECT_EQ(op_of(sm).flops(sm), 5u * 6u);
}

TEST(ShippedOps, ArgsAreCheckedAgainstTheirRanges) {
  const std::string eps_zero = shape_error("rmsnorm", {{"m", 4}, {"n", 8}, {"eps", 0}});
  EXPECT_NE(eps_zero.find("l.jsonl:3: field 'args.eps': must be in (0, 1) (got 0)"), std::string::npos) << eps_zero;
  EXPECT_NE(shape_error("gemm", {{"m", 0}, {"n", 8}, {"k", 8}}).find("field 'args.m': must be in [1, 2147483647] (got 0)"),
            std::string::npos);
  EXPECT_NE(shape_error("softmax", {{"m", 1}, {"n", 8}, {"eps", 0.1}}).find("field 'args.eps': unknown argument of op"),
            std::string::npos);
  EXPECT_NE(shape_error("layernorm", {{"m", 1}, {"n", 8}}).find("field 'args.eps'"), std::string::npos);
  EXPECT_NE(shape_error("gemm", {{"m", 1 << 21}, {"n", 1 << 20}, {"k", 8}}).find("output c has more than 2^40 elements"),
            std::string::npos)
      << shape_error("gemm", {{"m", 1 << 21}, {"n", 1 << 20}, {"k", 8}});
  EXPECT_EQ(shape_error("gemm", {{"m", 1}, {"n", 1}, {"k", 1}}), "(accepted)");
}

TEST(ShippedOps, ShapeTextMayLeaveOutWhatHasADefault) {
  EXPECT_EQ(parse_shape_text("rmsnorm", "m=2,n=3", "--shape"), (nlohmann::json{{"eps", 1e-6}, {"m", 2}, {"n", 3}}));
  EXPECT_EQ(parse_shape_text("layernorm", "m=2,n=3,eps=0.001", "--shape"),
            (nlohmann::json{{"eps", 0.001}, {"m", 2}, {"n", 3}}));
  try {
    parse_shape_text("softmax", "m=1,n=2,eps=0.1", "--shape");
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown argument of op softmax"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_shape_text("gemm", "m=2,n=3", "--shape"), UsageError);  // k has no default
}

// A description of your own cannot take a shipped op's name or its builtin reference.
TEST(ShippedOps, OnlyCalibersOwnDescriptionsNameABuiltinReference) {
  const std::string text = read_text_file(std::string(CALIBER_SOURCE_DIR) + "/ops/rmsnorm.op.yaml");
  const auto error = [](const std::string& t, bool shipped) -> std::string {
    try {
      parse_op_description(t, "mine.op.yaml", shipped);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(error(text, false).find("field 'op': 'rmsnorm' is an op caliber ships"), std::string::npos) << error(text, false);
  std::string renamed = text;
  renamed.replace(renamed.find("op: rmsnorm"), 11, "op: my_rmsnorm");
  EXPECT_NE(error(renamed, false).find("field 'reference.entrypoint': a described op's reference is a plugin entry"),
            std::string::npos)
      << error(renamed, false);
  std::string unknown = text;
  const std::string entry = "entrypoint: \"builtin:rmsnorm\"";
  unknown.replace(unknown.find(entry), entry.size(), "entrypoint: \"builtin:attention\"");
  EXPECT_NE(error(unknown, true).find("field 'reference.entrypoint'"), std::string::npos) << error(unknown, true);
  EXPECT_EQ(error(text, true), "(accepted)");
}

}  // namespace
}  // namespace caliber::ops
