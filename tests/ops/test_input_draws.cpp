// Input values a description chooses (docs/user-ops.md, "Input values"): each draw's values and
// fractions on literal parameters, a permutation per row, values from a .npy file, and the
// description fields that ask for them (errors naming file, line and field).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include "caliber/errors.h"
#include "core/npy_file.h"
#include "ops/described_op.h"
#include "ops/host_draw.h"
#include "ops/op_description.h"
#include "support/cli_run.h"

namespace caliber::ops {
namespace {

HostTensor drawn(ElementType e, std::int64_t rows, std::int64_t cols, const DrawParams& p, const std::string& file = "") {
  HostTensor t("t", e, rows, cols);
  fill_draw(t, InputDraw{p, file});
  return t;
}

TEST(InputDraws, IntegersStayInTheirRangeAndReachBothEnds) {
  DrawParams p;
  p.kind = DrawKind::integers;
  p.a = -3;
  p.b = 4;
  p.seed = 11;
  const HostTensor t = drawn(ElementType::int32, 1, 10000, p);
  std::set<double> seen;
  for (std::size_t i = 0; i < t.elements(); ++i) seen.insert(t.get(i));
  EXPECT_EQ(seen, (std::set<double>{-3, -2, -1, 0, 1, 2, 3, 4}));
}

TEST(InputDraws, NormalHasItsMeanAndSpread) {
  DrawParams p;
  p.kind = DrawKind::normal;
  p.a = 2;
  p.b = 0.5;
  const HostTensor t = drawn(ElementType::fp64, 1, 200000, p);
  double sum = 0, sq = 0;
  for (std::size_t i = 0; i < t.elements(); ++i) sum += t.get(i), sq += t.get(i) * t.get(i);
  const double mean = sum / 200000, sd = std::sqrt(sq / 200000 - mean * mean);
  EXPECT_NEAR(mean, 2.0, 0.01);
  EXPECT_NEAR(sd, 0.5, 0.01);
}

TEST(InputDraws, TiesMasksAndSpecialValuesComeInTheirFractions) {
  DrawParams p;  // uniform [-1, 1)
  p.tie_fraction = 0.4;
  p.tie_levels = 4;  // -1, -1/3, 1/3, 1: the top one, 1, no uniform value reaches
  p.mask_fraction = 0.1;
  p.mask_value = -INFINITY;
  p.special_fraction = 0.05;
  const std::size_t n = 100000;
  const HostTensor t = drawn(ElementType::fp32, 1, static_cast<std::int64_t>(n), p);
  std::size_t top = 0, masked = 0, nan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = t.get(i);
    top += v == 1.0;
    masked += v == -INFINITY;
    nan += std::isnan(v);
  }
  // Masked 10%; of the rest 5% special (a fifth of them NaN, a fifth -inf); of the rest 40% ties.
  EXPECT_NEAR(static_cast<double>(nan) / n, 0.9 * 0.05 / 5, 0.002);
  EXPECT_NEAR(static_cast<double>(masked) / n, 0.1 + 0.9 * 0.05 / 5, 0.004);
  EXPECT_NEAR(static_cast<double>(top) / n, 0.9 * 0.95 * 0.4 / 4, 0.004);
}

TEST(InputDraws, APlainUniformDrawKeepsTheBitsItAlwaysHad) {
  HostTensor a("a", ElementType::bf16, 3, 1000), b("b", ElementType::bf16, 3, 1000);
  fill_uniform(a, 77, -4.0f, 4.0f);
  DrawParams p;
  p.seed = 77;
  p.a = -4;
  p.b = 4;
  fill_draw(b, InputDraw{p, ""});
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.bytes()), 0);
}

TEST(InputDraws, EachRowOfAPermutationHoldsEveryIndexOnce) {
  DrawParams p;
  p.kind = DrawKind::permutation;
  p.seed = 5;
  const HostTensor t = drawn(ElementType::int64, 3, 50, p);
  std::vector<double> first_row;
  for (std::int64_t r = 0; r < 3; ++r) {
    std::vector<double> row(50);
    t.load_row(r, row.data());
    if (r == 0) first_row = row;
    if (r == 1) EXPECT_NE(row, first_row);  // each row its own
    std::sort(row.begin(), row.end());
    for (int j = 0; j < 50; ++j) EXPECT_EQ(row[static_cast<std::size_t>(j)], j);
  }
}

// A C-order little-endian .npy file of float32 values [rows, cols] (format 1.0).
void write_npy(const std::string& path, const std::string& descr, const std::string& shape, const void* data,
               std::size_t bytes, bool fortran = false) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  header += std::string(64 - (10 + header.size() + 1) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  out.write(reinterpret_cast<const char*>(&len), 2);
  out << header;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

TEST(InputDraws, AFilesValuesAreLoadedAndAMisfitIsRefused) {
  const std::string dir = testing_support::fresh_dir("npy_draw");
  const float values[6] = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -0.5f};
  write_npy(dir + "/x.npy", "<f4", "(2, 3)", values, sizeof values);
  DrawParams p;
  p.kind = DrawKind::file;
  const HostTensor t = drawn(ElementType::bf16, 2, 3, p, dir + "/x.npy");
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(t.get(i), values[i]);
  EXPECT_THROW(drawn(ElementType::fp32, 3, 2, p, dir + "/x.npy"), InputError);  // 2 x 3 is not 3 x 2
  write_npy(dir + "/big.npy", ">f4", "(6,)", values, sizeof values);
  EXPECT_THROW(read_npy(dir + "/big.npy"), InputError);
  write_npy(dir + "/f.npy", "<f4", "(2, 3)", values, sizeof values, true);
  EXPECT_THROW(read_npy(dir + "/f.npy"), InputError);
  write_npy(dir + "/short.npy", "<f8", "(2, 3)", values, sizeof values);
  try {
    read_npy(dir + "/short.npy");
    FAIL() << "a file shorter than its shape was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds 24 of the 48 bytes"), std::string::npos) << e.what();
  }
}

const char* kDtypes = R"(schema_version: 1
op: embed_topk
args:
  t: integer
  v: integer
  d: integer
inputs:
  - {name: table, shape: [v, d], draw: {normal: [0, 0.02], special: 0.01}}
  - {name: ids, shape: [t], dtype: int32, draw: {integers: [0, v - 1]}}
  - {name: mask, shape: [t], dtype: bool}
outputs:
  - {name: rows, shape: [t, d], dtype: fp8_e5m2, check: {ulp: 2}}
  - {name: best, shape: [v], dtype: int64, check: {indices_into: table}}
  - {name: count, shape: [1], dtype: int32}
flops: t * d
reference:
  entrypoint: "lib/libref.so:ref"
)";

TEST(InputDraws, ADescriptionNamesDtypesDrawsAndChecksPerTensor) {
  const DescribedOp op(parse_op_description(kDtypes, "embed.op.yaml"));
  const OpDescription& d = op.description();
  EXPECT_EQ(d.inputs[1].element, ElementType::int32);
  EXPECT_EQ(d.inputs[2].draw.kind, DrawKind::integers);  // bool: 0 or 1
  EXPECT_EQ(d.inputs[2].draw.b, 1);
  EXPECT_EQ(d.outputs[0].check.kind, CheckRule::Kind::ulp);
  EXPECT_EQ(d.outputs[1].check.indices_into, 0u);
  EXPECT_EQ(d.outputs[2].check.kind, CheckRule::Kind::exact);  // integers: exact by default
  EXPECT_TRUE(op.draws_nonfinite());
  const OpShape s = op.parse_shape(DType::bf16, "row_major", {{"t", 8}, {"v", 100}, {"d", 16}}, "", 0, "args");
  const std::vector<TensorSpec> outs = op.outputs(s);
  EXPECT_EQ(outs[0].element, ElementType::fp8_e5m2);
  EXPECT_EQ(op.inputs(s)[0].element, ElementType::bf16);  // the shape's
  EXPECT_EQ(op.bytes(s), 100u * 16 * 2 + 8 * 4 + 8 + 8 * 16 + 100 * 8 + 4);
  const std::vector<InputDraw> draws = op.input_draws(s, 1);
  EXPECT_EQ(draws[1].params.a, 0);
  EXPECT_EQ(draws[1].params.b, 99);  // v - 1 for this shape
}

// The description's file, line and field in the error.
void expect_refused(const std::string& text, long line, const std::string& field, const std::string& what) {
  try {
    parse_op_description(text, "bad.op.yaml");
    FAIL() << "accepted: " << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.op.yaml");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(InputDraws, BadDtypesDrawsAndChecksAreRefusedWithFileLineAndField) {
  expect_refused(replaced(kDtypes, "dtype: int32", "dtype: int33"), 9, "inputs[1].dtype", "unknown dtype 'int33'");
  expect_refused(replaced(kDtypes, "integers: [0, v - 1]", "integers: [0, 4e9]"), 9, "inputs[1].draw.integers",
                 "within [-2147483648, 2147483647]");
  expect_refused(replaced(kDtypes, "special: 0.01", "special: 2"), 8, "inputs[0].draw.special", "fraction in [0, 1]");
  expect_refused(replaced(kDtypes, "{normal: [0, 0.02]", "{normal: [0, 0.02], uniform: [0, 1]"), 8,
                 "inputs[0].draw.uniform", "give one of");
  expect_refused(replaced(kDtypes, "indices_into: table", "indices_into: tabel"), 13, "outputs[1].check.indices_into",
                 "'tabel' is not an input");
  expect_refused(replaced(kDtypes, "dtype: int32}\nflops", "dtype: int32, check: {ulp: 1}}\nflops"), 14,
                 "outputs[2].check.ulp", "compared exactly");
  expect_refused(replaced(kDtypes, "dtype: fp8_e5m2, check: {ulp: 2}", "check: {indices_into: ids}"), 12,
                 "outputs[0].check.indices_into", "integer dtype");
  expect_refused(replaced(kDtypes, "draw: {integers: [0, v - 1]}", "draw: {file: missing.npy}"), 9,
                 "inputs[1].draw.file", "no file");
}

TEST(InputDraws, AnIntegersRangeThatDoesNotFitTheShapeIsRefusedForIt) {
  const DescribedOp op(parse_op_description(replaced(kDtypes, "[0, v - 1]", "[0, v - 10]"), "embed.op.yaml"));
  EXPECT_THROW(op.parse_shape(DType::fp32, "row_major", {{"t", 8}, {"v", 5}, {"d", 16}}, "ledger.jsonl", 3, "args"),
               InputError);
}

}  // namespace
}  // namespace caliber::ops
