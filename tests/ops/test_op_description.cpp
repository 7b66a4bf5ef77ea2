// Ops of your own (docs/user-ops.md): the op description's strict reader, the formulas of the
// args, the described op's tensors, bytes and flops, and the reference it names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "caliber/errors.h"
#include "core/input_file.h"
#include "ops/described_op.h"
#include "ops/op_catalog.h"
#include "ops/op_expression.h"
#include "providers/described_reference.h"
#include "providers/provider.h"
#include "support/recording_backend.h"

namespace caliber::ops {
namespace {

const char* kDescription = R"(schema_version: 1
op: scaled_add
summary: "z = alpha * x + y; s = sum of z per row"
args:
  rows: integer
  cols: integer
  alpha: number
inputs:
  - {name: x, shape: [rows, cols]}
  - {name: y, shape: [rows, cols], uniform: [0, 2]}
outputs:
  - {name: z, shape: [rows, cols]}
  - {name: s, shape: [rows]}
flops: 3 * rows * cols
tolerance:
  bf16: {rel_fro: 0.02, rtol: 0.03, atol: 0.01}
reference:
  entrypoint: "lib/libref.so:scaled_add_reference"
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  try {
    parse_op_description(text, "scaled_add.op.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(OpDescription, ReadsEveryField) {
  const OpDescription d = parse_op_description(kDescription, "dir/scaled_add.op.yaml");
  EXPECT_EQ(d.name, "scaled_add");
  EXPECT_EQ(d.file, "dir/scaled_add.op.yaml");
  EXPECT_EQ(d.sha256.size(), 64u);
  ASSERT_EQ(d.args.size(), 3u);
  EXPECT_EQ(d.args[0].name, "rows");
  EXPECT_TRUE(d.args[0].integer);
  EXPECT_EQ(d.args[2].name, "alpha");
  EXPECT_FALSE(d.args[2].integer);
  ASSERT_EQ(d.inputs.size(), 2u);
  EXPECT_EQ(d.inputs[1].name, "y");
  EXPECT_EQ(d.inputs[1].draw.a, 0.0f);
  EXPECT_EQ(d.inputs[1].draw.b, 2.0f);
  EXPECT_EQ(d.inputs[0].draw.a, -1.0f);  // the default draw
  ASSERT_EQ(d.outputs.size(), 2u);
  EXPECT_EQ(d.outputs[1].dims.size(), 1u);
  EXPECT_EQ(d.flops.text(), "3 * rows * cols");
  EXPECT_FALSE(d.bytes.has_value());
  EXPECT_EQ(d.tolerance(DType::bf16).rel_fro, 0.02);
  EXPECT_EQ(d.tolerance(DType::bf16).rtol, 0.03);
  EXPECT_EQ(d.tolerance(DType::fp32).rel_fro, tolerance_for(DType::fp32).rel_fro);  // not given: the dtype's
  EXPECT_EQ(d.reference.library, "lib/libref.so");
  EXPECT_EQ(d.reference.symbol, "scaled_add_reference");
  EXPECT_EQ(d.reference_precision, ReferencePrecision::fp64);
}

TEST(OpDescription, ErrorsNameFileLineAndField) {
  struct Case {
    std::string text;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {replaced(kDescription, "flops: 3 * rows * cols", "flops: 3 * rows * depth"),
       "scaled_add.op.yaml:14: field 'flops'"},
      {replaced(kDescription, "[rows, cols]}\n  - {name: y", "[rows, width]}\n  - {name: y"),
       "scaled_add.op.yaml:9: field 'inputs[0].shape[1]'"},
      {replaced(kDescription, "{name: s, shape: [rows]}", "{name: x, shape: [rows]}"),
       "scaled_add.op.yaml:13: field 'outputs[1].name': tensor 'x' is named twice"},
      {replaced(kDescription, "  alpha: number", "  alpha: float"),
       "scaled_add.op.yaml:7: field 'args.alpha': unknown argument type 'float'"},
      {replaced(kDescription, "op: scaled_add", "op: rmsnorm"), "field 'op': 'rmsnorm' is an op caliber ships"},
      {replaced(kDescription, "uniform: [0, 2]", "uniform: [2, 0]"), "field 'inputs[1].uniform'"},
      {replaced(kDescription, "  entrypoint: \"lib/libref.so:scaled_add_reference\"",
                "  entrypoint: \"builtin:naive\""),
       "field 'reference.entrypoint': a described op's reference is a plugin entry"},
      {replaced(kDescription, "  entrypoint: \"lib/libref.so:scaled_add_reference\"",
                "  entrypoint: \"lib/libref.so:scaled_add_reference\"\n  precision: fp128"),
       "field 'reference.precision': unknown precision 'fp128' (expected fp64|fp32|same)"},
      {replaced(kDescription, "summary:", "colour: red\nsummary:"), "field 'colour'"},
  };
  for (const Case& c : cases) {
    EXPECT_NE(error_of(c.text).find(c.expected), std::string::npos) << error_of(c.text) << "\nexpected: " << c.expected;
  }
}

TEST(OpDescription, AnOutputMayBeAnInputUpdatedInPlace) {
  const std::string text = replaced(kDescription, "  - {name: s, shape: [rows]}", "  - {name: y_out, in_place: y}");
  const OpDescription d = parse_op_description(text, "scaled_add.op.yaml");
  ASSERT_EQ(d.outputs.size(), 2u);
  EXPECT_FALSE(d.outputs[0].in_place_of.has_value());
  ASSERT_TRUE(d.outputs[1].in_place_of.has_value());
  EXPECT_EQ(*d.outputs[1].in_place_of, 1u);  // y, the second input
  const DescribedOp op(d);
  const OpShape s = op.parse_shape(DType::fp32, "row_major", {{"rows", 4}, {"cols", 6}, {"alpha", 1}}, "", 0, "args");
  const std::vector<TensorSpec> out = op.outputs(s);
  EXPECT_EQ(out[1].extents(), (std::vector<std::int64_t>{4, 6}));  // the input's shape
  EXPECT_EQ(out[1].in_place_of, std::optional<std::size_t>(1));
  // Default bytes: the in-place tensor is read and written, like any input and output.
  EXPECT_EQ(op.bytes(s), (24u + 24u + 24u + 24u) * 4u);

  const std::vector<std::pair<std::string, const char*>> refused = {
      {replaced(kDescription, "{name: s, shape: [rows]}", "{name: s, in_place: w}"),
       "scaled_add.op.yaml:13: field 'outputs[1].in_place': 'w' is not an input of the op"},
      {replaced(kDescription, "{name: s, shape: [rows]}", "{name: s, in_place: y, shape: [rows, cols]}"),
       "field 'outputs[1].shape': an in-place output has the shape of its input 'y': leave shape out"},
      {replaced(replaced(kDescription, "{name: z, shape: [rows, cols]}", "{name: z, in_place: y}"),
                "{name: s, shape: [rows]}", "{name: s, in_place: y}"),
       "field 'outputs[1].in_place': input 'y' is already updated in place by another output"},
      {replaced(kDescription, "{name: x, shape: [rows, cols]}", "{name: x, shape: [rows, cols], in_place: y}"),
       "field 'inputs[0].in_place'"},
  };
  for (const auto& [bad, expected] : refused) {
    EXPECT_NE(error_of(bad).find(expected), std::string::npos) << error_of(bad) << "\nexpected: " << expected;
  }
}

TEST(ArgFormula, EvaluatesAndChecksCounts) {
  const ArgFormula f("2 * m * (n + 1) - k", {"m", "n", "k"});
  EXPECT_EQ(f.value({{"m", 3}, {"n", 4}, {"k", 5}}), 25.0);
  EXPECT_EQ(f.count({{"m", 3}, {"n", 4}, {"k", 5}}, 0, 100), 25);
  EXPECT_THROW(f.count({{"m", 3}, {"n", 4}, {"k", 5}}, 0, 24), std::invalid_argument);   // above hi
  EXPECT_THROW(ArgFormula("m / 2", {"m"}).count({{"m", 3}}, 0, 10), std::invalid_argument);  // 1.5
  EXPECT_EQ(ArgFormula("max(m, n) / 2", {"m", "n"}).value({{"m", 3}, {"n", 8}}), 4.0);
  EXPECT_THROW(ArgFormula("m * q", {"m"}), std::invalid_argument);  // q is not an arg
  EXPECT_THROW(ArgFormula("m *", {"m"}), std::invalid_argument);
  EXPECT_THROW(ArgFormula(" ", {"m"}), std::invalid_argument);
}

TEST(DescribedOp, TensorsBytesAndFlopsComeFromTheFormulas) {
  const DescribedOp op(parse_op_description(
      replaced(kDescription, "flops: 3 * rows * cols", "flops: 3 * rows * cols\nbytes: 5 * rows * cols * dtype_bytes"),
      "scaled_add.op.yaml"));
  const OpShape s = op.parse_shape(DType::bf16, "row_major", {{"rows", 4}, {"cols", 6}, {"alpha", 0.5}}, "l.jsonl", 3,
                                   "args");
  EXPECT_EQ(s.values.at("alpha"), 0.5);
  const std::vector<TensorSpec> in = op.inputs(s), out = op.outputs(s);
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].extents(), (std::vector<std::int64_t>{4, 6}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].name, "s");
  EXPECT_EQ(out[1].extents(), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(out[1].rows, 1);  // a vector is one row of 4
  EXPECT_EQ(out[1].cols, 4);
  EXPECT_EQ(op.flops(s), 72u);
  EXPECT_EQ(op.bytes(s), 5u * 24u * 2u);  // bf16: 2 bytes an element
  // Without a bytes formula: every input and output element once.
  const DescribedOp plain(parse_op_description(kDescription, "scaled_add.op.yaml"));
  const OpShape p = plain.parse_shape(DType::fp32, "row_major", {{"rows", 4}, {"cols", 6}, {"alpha", 1}}, "", 0, "args");
  EXPECT_EQ(plain.bytes(p), (24u + 24u + 24u + 4u) * 4u);
  EXPECT_EQ(args_to_json(p), (nlohmann::json{{"rows", 4}, {"cols", 6}, {"alpha", 1.0}}));
  const std::vector<InputDraw> draws = plain.input_draws(p, 7);
  ASSERT_EQ(draws.size(), 2u);
  EXPECT_NE(draws[0].params.seed, draws[1].params.seed);
  EXPECT_EQ(draws[1].params.a, 0.0f);
  EXPECT_EQ(draws[1].params.b, 2.0f);
}

TEST(DescribedOp, ShapesAreCheckedLikeLedgerRows) {
  const DescribedOp op(parse_op_description(kDescription, "scaled_add.op.yaml"));
  const auto error = [&](const nlohmann::json& args) -> std::string {
    try {
      op.parse_shape(DType::fp32, "row_major", args, "l.jsonl", 9, "args");
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(error({{"rows", 4}, {"cols", 6}}).find("l.jsonl:9: field 'args.alpha'"), std::string::npos)
      << error({{"rows", 4}, {"cols", 6}});
  EXPECT_NE(error({{"rows", 4}, {"cols", 6}, {"alpha", 1}, {"beta", 2}}).find("field 'args.beta': unknown argument"),
            std::string::npos);
  EXPECT_NE(error({{"rows", 4.5}, {"cols", 6}, {"alpha", 1}}).find("field 'args.rows'"), std::string::npos);
  // An extent that comes out 0 is refused with the tensor named.
  EXPECT_NE(error({{"rows", 0}, {"cols", 6}, {"alpha", 1}}).find("input x extent 0"), std::string::npos)
      << error({{"rows", 0}, {"cols", 6}, {"alpha", 1}});
}

TEST(OpCatalog, RegistersADescriptionOnceAndRefusesAnotherUnderTheSameName) {
  const OpDescription d = parse_op_description(replaced(kDescription, "op: scaled_add", "op: catalog_probe"), "a.yaml");
  const DescribedOp& first = register_op_description(d);
  EXPECT_EQ(&register_op_description(d), &first);  // the same content: the op already known
  EXPECT_EQ(find_described_op("catalog_probe"), &first);
  EXPECT_TRUE(is_known_op("catalog_probe"));
  EXPECT_TRUE(is_known_op("gemm"));
  EXPECT_FALSE(is_known_op("catalog_probe_2"));
  const OpDescription other =
      parse_op_description(replaced(replaced(kDescription, "op: scaled_add", "op: catalog_probe"), "3 *", "4 *"), "b.yaml");
  EXPECT_THROW(register_op_description(other), InputError);
  try {
    check_known_op("attention");
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("catalog_probe"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("docs/user-ops.md"), std::string::npos) << e.what();
  }
  const nlohmann::json args = parse_shape_text("catalog_probe", "rows=2,cols=3,alpha=0.5", "--shape");
  EXPECT_EQ(args, (nlohmann::json{{"rows", 2}, {"cols", 3}, {"alpha", 0.5}}));
  EXPECT_THROW(parse_shape_text("catalog_probe", "rows=2,cols=3", "--shape"), UsageError);
}

// An argument may have a range (min/max inclusive, above/below exclusive) and a default that a
// shape given as text may leave out.
TEST(OpDescription, ArgumentsMayHaveARangeAndADefault) {
  const std::string text = replaced(replaced(kDescription, "  rows: integer\n", "  rows: {type: integer, min: 1, max: 64}\n"),
                                    "  alpha: number\n", "  alpha: {type: number, above: 0, below: 1, default: 0.25}\n");
  const OpDescription d = parse_op_description(text, "ranged.op.yaml");
  ASSERT_EQ(d.args.size(), 3u);
  EXPECT_EQ(d.args[0].min, 1.0);
  EXPECT_EQ(d.args[0].max, 64.0);
  EXPECT_FALSE(d.args[0].default_value.has_value());
  EXPECT_EQ(d.args[0].range_text(), "[1, 64]");
  EXPECT_EQ(d.args[1].range_text(), "[0, 2147483647]");  // a plain integer
  EXPECT_EQ(d.args[2].range_text(), "(0, 1)");
  EXPECT_EQ(d.args[2].default_value, 0.25);
  OpArgument plain;
  plain.name = "beta";
  plain.integer = false;
  EXPECT_EQ(plain.range_text(), "(-inf, inf)");
  EXPECT_TRUE(plain.accepts(-1e300));
  EXPECT_FALSE(plain.accepts(std::nan("")));
  EXPECT_TRUE(d.args[0].accepts(64));
  EXPECT_FALSE(d.args[0].accepts(65));
  EXPECT_FALSE(d.args[0].accepts(2.5));
  EXPECT_FALSE(d.args[2].accepts(0));
  EXPECT_FALSE(d.args[2].accepts(1));
  EXPECT_TRUE(d.args[2].accepts(0.999));

  const DescribedOp op(d);
  try {
    op.parse_shape(DType::fp32, "row_major", {{"rows", 65}, {"cols", 2}, {"alpha", 0.5}}, "l.jsonl", 4, "args");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("l.jsonl:4: field 'args.rows': must be in [1, 64] (got 65)"), std::string::npos)
        << e.what();
  }
  const OpDescription registered = parse_op_description(replaced(text, "op: scaled_add", "op: ranged_add"), "r.op.yaml");
  register_op_description(registered);
  EXPECT_EQ(parse_shape_text("ranged_add", "rows=2,cols=3", "--shape"),
            (nlohmann::json{{"rows", 2}, {"cols", 3}, {"alpha", 0.25}}));
  EXPECT_THROW(parse_shape_text("ranged_add", "cols=3", "--shape"), UsageError);  // rows has no default

  const std::vector<std::pair<std::string, std::string>> mistakes = {
      {"{type: integer, min: 1, above: 0}", "field 'args.rows.above': give min or above, not both"},
      {"{type: integer, min: 5, max: 5}", "(accepted)"},
      {"{type: integer, min: 6, max: 5}", "field 'args.rows.max': the range is empty"},
      {"{type: integer, min: 1.5}", "field 'args.rows.min': an integer argument's bound is a whole number"},
      {"{type: integer, min: 1, default: 0}", "field 'args.rows.default': 0 is not in the argument's range [1, 2147483647]"},
      {"{type: integer, step: 2}", "field 'args.rows.step': unknown field"},
      {"{type: real}", "field 'args.rows.type': unknown argument type 'real'"},
      {"{min: 1}", "field 'args.rows.type'"},
  };
  for (const auto& [rows, expected] : mistakes) {
    const std::string e = error_of(replaced(kDescription, "  rows: integer\n", "  rows: " + rows + "\n"));
    EXPECT_NE(e.find(expected), std::string::npos) << rows << ": " << e;
  }
}

// Models entries: the tensor, when it applies, every arg as a formula of the model's numbers.
TEST(OpDescription, ModelsEntriesGiveEveryArgAsAFormulaOfTheModel) {
  const std::string models =
      "models:\n  - {tensor: mlp_out, when: {family: dense, stage: decode}, args: {rows: tokens, cols: hidden_size / tp, "
      "alpha: norm_eps}}\n";
  const OpDescription d = parse_op_description(std::string(kDescription) + models, "m.op.yaml");
  ASSERT_EQ(d.models.size(), 1u);
  EXPECT_EQ(d.models[0].tensor, "mlp_out");
  EXPECT_EQ(d.models[0].when, (std::map<std::string, std::string>{{"family", "dense"}, {"stage", "decode"}}));
  ASSERT_EQ(d.models[0].args.size(), 3u);
  EXPECT_EQ(d.models[0].args[1].first, "cols");
  EXPECT_EQ(d.models[0].args[1].second.value({{"hidden_size", 4096}, {"tp", 8}}), 512.0);
  EXPECT_EQ(d.models[0].line, 20);
  const std::vector<std::pair<std::string, std::string>> mistakes = {
      {"{tensor: t, args: {rows: tokens, cols: width, alpha: 1}}",
       "scaled_add.op.yaml:20: field 'models[0].args.cols': formula 'width': Unexpected token \"width\" found at "
       "position 0. (the model's numbers: hidden_size, "},
      {"{tensor: t, args: {rows: tokens, alpha: 1}}", "field 'models[0].args.cols': missing"},
      {"{tensor: t, args: {rows: tokens, cols: 1, alpha: 1, beta: 2}}", "field 'models[0].args.beta': not an argument"},
      {"{tensor: t, when: {vendor: amd}, args: {rows: 1, cols: 1, alpha: 1}}", "field 'models[0].when.vendor': unknown condition"},
      {"{tensor: t, when: {stage: train}, args: {rows: 1, cols: 1, alpha: 1}}",
       "field 'models[0].when.stage': unknown stage 'train' (expected prefill|decode)"},
      {"{tensor: t, shape: [1], args: {rows: 1, cols: 1, alpha: 1}}", "field 'models[0].shape': unknown field"},
      {"{args: {rows: 1, cols: 1, alpha: 1}}", "field 'models[0].tensor'"},
  };
  for (const auto& [entry, expected] : mistakes) {
    const std::string e = error_of(std::string(kDescription) + "models:\n  - " + entry + "\n");
    EXPECT_NE(e.find(expected), std::string::npos) << entry << ": " << e;
  }
  EXPECT_NE(error_of(std::string(kDescription) + "models: []\n").find("field 'models'"), std::string::npos);
}

// work: the units of independent work (a formula of the args) and the args whose rows should be
// whole 16-byte vectors.
TEST(OpDescription, WorkNamesUnitsAndVectorExtents) {
  const OpDescription d = parse_op_description(
      std::string(kDescription) + "work: {units: \"ceil(rows / 4)\", unit_name: \"4-row block(s)\", vector_extents: [cols]}\n",
      "w.op.yaml");
  ASSERT_TRUE(d.work.has_value());
  EXPECT_EQ(d.work->units.value({{"rows", 9}, {"cols", 1}, {"alpha", 0}}), 3.0);
  EXPECT_EQ(d.work->unit_name, "4-row block(s)");
  EXPECT_EQ(d.work->vector_extents, (std::vector<std::string>{"cols"}));
  EXPECT_FALSE(parse_op_description(kDescription, "w.op.yaml").work.has_value());
  const std::vector<std::pair<std::string, std::string>> mistakes = {
      {"{units: rows, unit_name: r, vector_extents: [alpha]}",
       "field 'work.vector_extents[0]': 'alpha' is not an integer argument of the op"},
      {"{units: depth, unit_name: r}", "field 'work.units'"},
      {"{unit_name: r}", "field 'work.units'"},
      {"{units: rows, unit_name: r, tile: 4}", "field 'work.tile': unknown field"},
  };
  for (const auto& [work, expected] : mistakes) {
    const std::string e = error_of(std::string(kDescription) + "work: " + work + "\n");
    EXPECT_NE(e.find(expected), std::string::npos) << work << ": " << e;
  }
}

// ceil() and floor() beside muparser's built-ins.
TEST(ArgFormula, IsOneExpressionThatSetsNothing) {
  const auto error = [](const std::string& text) {
    try {
      ArgFormula f(text, {"m", "n"});
      f.value({{"m", 8}, {"n", 8}});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error("m * (n=100000000)"), "formula 'm * (n=100000000)' assigns to 'n'; a formula reads its arguments, "
                                        "never sets them");
  EXPECT_NE(error("n = 1"), "(accepted)");  // assigns 1 to n (8): refused when evaluated
  EXPECT_NE(error("n += 1"), "(accepted)");
  EXPECT_EQ(error("m*n, 5"), "formula 'm*n, 5': 2 comma-separated results; a formula is one expression");
  EXPECT_EQ(error("max(m, n) * 2"), "(accepted)");  // a comma inside a call is an argument list
  EXPECT_EQ(error("m == n ? m : n"), "(accepted)");
  // a huge formula is refused, and not echoed whole
  const std::string huge(5'000'000, 'm');
  EXPECT_EQ(error(huge), "formula '" + std::string(120, 'm') + "... (5000000 bytes)' is longer than 1024 bytes");
}

TEST(ArgFormula, HasCeilAndFloor) {
  EXPECT_EQ(ArgFormula("ceil(a / b)", {"a", "b"}).value({{"a", 129280}, {"b", 3}}), 43094.0);
  EXPECT_EQ(ArgFormula("floor(a / b)", {"a", "b"}).value({{"a", 129280}, {"b", 3}}), 43093.0);
  EXPECT_EQ(ArgFormula("a > 2 ? a : 2", {"a"}).value({{"a", 1}}), 2.0);
}

// Probes: every arg given, integers whole, a note; each mistake names the line and the field.
TEST(OpDescription, ProbesGiveEveryArgAndANote) {
  const std::string with = std::string(kDescription) + "probes:\n  - {args: {rows: 1, cols: 7, alpha: 0.5}, note: short}\n";
  const OpDescription d = parse_op_description(with, "f.op.yaml");
  ASSERT_EQ(d.probes.size(), 1u);
  EXPECT_EQ(d.probes[0].note, "short");
  EXPECT_EQ(d.probes[0].line, 20);
  EXPECT_EQ(d.probes[0].args,
            (std::vector<std::pair<std::string, double>>{{"rows", 1.0}, {"cols", 7.0}, {"alpha", 0.5}}));
  const auto error_of = [](const std::string& probe) {
    try {
      parse_op_description(std::string(kDescription) + "probes:\n  - " + probe + "\n", "f.op.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of("{args: {rows: 1, cols: 7}, note: x}").rfind("f.op.yaml:20: field 'probes[0].args.alpha'", 0), 0u)
      << error_of("{args: {rows: 1, cols: 7}, note: x}");
  EXPECT_NE(error_of("{args: {rows: 1.5, cols: 7, alpha: 1}, note: x}").find("expected a whole number"),
            std::string::npos);
  EXPECT_NE(error_of("{args: {rows: 1, cols: 7, alpha: 1, beta: 2}, note: x}").find("not an argument of the op"),
            std::string::npos);
  EXPECT_NE(error_of("{args: {rows: 1, cols: 7, alpha: 1}}").find("probes[0]"), std::string::npos);
  EXPECT_NE(error_of("{args: {rows: 1, cols: 7, alpha: 1}, note: x, when: y}").find("when"), std::string::npos);
}

// add_rmsnorm's inputs x = {1, 2}, residual = {3, 4.5}, weight = {1, 0.5} (one row of two).
std::vector<HostTensor> add_rmsnorm_inputs() {
  std::vector<HostTensor> inputs;
  inputs.emplace_back("x", DType::fp32, 1, 2);
  inputs.emplace_back("residual", DType::fp32, 1, 2);
  inputs.emplace_back("weight", DType::fp32, 1, 2);
  const float values[3][2] = {{1.0f, 2.0f}, {3.0f, 4.5f}, {1.0f, 0.5f}};
  for (std::size_t t = 0; t < 3; ++t) {
    for (std::size_t i = 0; i < 2; ++i) inputs[t].set(i, values[t][i]);
  }
  return inputs;
}

// The example op's reference plugin (examples/user_op), on literal inputs: computed in fp64 from
// the inputs' exact values, both outputs.
TEST(DescribedReference, ComputesEveryOutputInFp64) {
  const DescribedOp& op = register_op_description(std::string(CALIBER_SOURCE_DIR) + "/examples/user_op/add_rmsnorm.op.yaml");
  ::setenv("CALIBER_PLUGIN_DIR", CALIBER_PLUGIN_BUILD_DIR, 1);
  const providers::DescribedReference ref(op);
  EXPECT_EQ(ref.precision(DType::bf16), "fp64");
  const OpShape s = op.parse_shape(DType::fp32, "row_major", {{"m", 1}, {"n", 2}, {"eps", 0.25}}, "", 0, "args");
  const std::vector<HostTensor> inputs = add_rmsnorm_inputs();
  const std::vector<std::vector<double>> out = ref.compute(s, inputs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1], (std::vector<double>{4.0, 6.5}));  // h = x + residual
  const double rstd = 1.0 / std::sqrt((16.0 + 42.25) / 2.0 + 0.25);
  ASSERT_EQ(out[0].size(), 2u);
  EXPECT_EQ(out[0][0], 4.0 * rstd * 1.0);
  EXPECT_EQ(out[0][1], 6.5 * rstd * 0.5);
  // eps = 0: the reference declines the shape, and says why.
  const OpShape zero = op.parse_shape(DType::fp32, "row_major", {{"m", 1}, {"n", 2}, {"eps", 0}}, "", 0, "args");
  try {
    ref.compute(zero, inputs);
    FAIL() << "accepted";
  } catch (const providers::ProviderError& e) {
    EXPECT_NE(std::string(e.what()).find("declines the shape: eps must be > 0"), std::string::npos) << e.what();
  }
}

TEST(DescribedReference, UpdatesAnInPlaceOutputThroughItsInput) {
  const DescribedOp& op =
      register_op_description(std::string(CALIBER_SOURCE_DIR) + "/examples/user_op/sgd_momentum.op.yaml");
  ::setenv("CALIBER_PLUGIN_DIR", CALIBER_PLUGIN_BUILD_DIR, 1);
  const providers::DescribedReference ref(op);
  const OpShape s =
      op.parse_shape(DType::fp32, "row_major", {{"n", 2}, {"lr", 0.5}, {"beta", 0.25}}, "", 0, "args");
  std::vector<HostTensor> inputs;
  for (const char* name : {"param", "momentum", "grad"}) inputs.emplace_back(name, DType::fp32, 1, 2);
  const float values[3][2] = {{1.0f, -2.0f}, {4.0f, 8.0f}, {1.0f, 0.5f}};
  for (std::size_t t = 0; t < 3; ++t) {
    for (std::size_t i = 0; i < 2; ++i) inputs[t].set(i, values[t][i]);
  }
  const std::vector<std::vector<double>> out = ref.compute(s, inputs);
  ASSERT_EQ(out.size(), 2u);
  // momentum' = 0.25 m + g = {2, 2.5}; param' = p - 0.5 momentum' = {0, -3.25}: read from the
  // inputs' buffers the reference wrote through its outputs.
  EXPECT_EQ(out[1], (std::vector<double>{2.0, 2.5}));
  EXPECT_EQ(out[0], (std::vector<double>{0.0, -3.25}));
  EXPECT_EQ(inputs[1].get(0), 4.0f);  // the caller's tensors are untouched: the reference got copies
}


// A cuda backend whose "device" memory is host memory, recording what a cuda reference does
// with it: the test plugin add_rmsnorm_test_cuda_backend declares the cuda backend but computes
// on the host pointers it is given.
class HostMemoryCudaBackend : public testing_support::RecordingBackend {
 public:
  HostMemoryCudaBackend() : RecordingBackend(BackendKind::cuda) {}
  ~HostMemoryCudaBackend() override { EXPECT_EQ(live, 0) << "device buffers not freed"; }
  void* allocate(std::size_t bytes) override {
    ++live;
    log("allocate " + std::to_string(bytes));
    return std::malloc(bytes);
  }
  void deallocate(void* p) noexcept override {
    --live;
    std::free(p);
  }
  void copy_to_device(void* dst, const void* src, std::size_t bytes) override {
    log("to_device " + std::to_string(bytes));
    std::memcpy(dst, src, bytes);
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    log("to_host " + std::to_string(bytes));
    std::memcpy(dst, src, bytes);
  }
  int live = 0;
};

// add_rmsnorm whose reference is the test plugin's cuda-declared entry (same arithmetic as the
// example's host provider, in the problem's dtype: fp64 here).
const DescribedOp& add_rmsnorm_with_cuda_reference() {
  static const DescribedOp op([] {
    std::string text = read_text_file(std::string(CALIBER_SOURCE_DIR) + "/examples/user_op/add_rmsnorm.op.yaml");
    const std::string from = "\"@plugins/libcaliber_add_rmsnorm.so:add_rmsnorm_reference\"";
    text.replace(text.find(from), from.size(), std::string("\"") + CALIBER_TEST_USER_OP_PLUGIN + ":add_rmsnorm_test_cuda_backend\"");
    return parse_op_description(text, "add_rmsnorm_cuda_reference.op.yaml");
  }());
  return op;
}

// A cuda reference runs on the run's cuda backend: the inputs converted to fp64 and uploaded, the
// outputs uploaded as NaN, the stream synchronized, the outputs copied back; the values are the
// host computation's.
TEST(DescribedReference, ACudaReferenceRunsOnTheDeviceOfTheRunsCudaBackend) {
  const DescribedOp& op = add_rmsnorm_with_cuda_reference();
  HostMemoryCudaBackend backend;
  {
    const providers::DescribedReference ref(op, &backend);
    EXPECT_TRUE(ref.on_device());
    const OpShape s = op.parse_shape(DType::fp32, "row_major", {{"m", 1}, {"n", 2}, {"eps", 0.25}}, "", 0, "args");
    const std::vector<std::vector<double>> out = ref.compute(s, add_rmsnorm_inputs());
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1], (std::vector<double>{4.0, 6.5}));  // h = x + residual
    const double rstd = 1.0 / std::sqrt((16.0 + 42.25) / 2.0 + 0.25);
    ASSERT_EQ(out[0].size(), 2u);  // the test entry computes y in fp32 arithmetic
    EXPECT_NEAR(out[0][0], 4.0 * rstd * 1.0, 1e-6);
    EXPECT_NEAR(out[0][1], 6.5 * rstd * 0.5, 1e-6);
    // Three inputs and two outputs (NaN) of 2 doubles each uploaded, the two outputs copied back
    // after the device finished.
    EXPECT_EQ(backend.events, (std::vector<std::string>{"allocate 16", "to_device 16", "allocate 16", "to_device 16",
                                                        "allocate 16", "to_device 16", "allocate 16", "to_device 16",
                                                        "allocate 16", "to_device 16", "sync", "to_host 16",
                                                        "to_host 16"}));
  }
  EXPECT_EQ(backend.live, 0);
}

// Without a cuda backend a cuda reference is refused, naming the description's field and the backend.
TEST(DescribedReference, ACudaReferenceIsRefusedWithoutACudaBackend) {
  const DescribedOp& op = add_rmsnorm_with_cuda_reference();
  testing_support::RecordingBackend host(BackendKind::host);
  for (Backend* b : {static_cast<Backend*>(nullptr), static_cast<Backend*>(&host)}) {
    try {
      const providers::DescribedReference ref(op, b);
      FAIL() << "accepted";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("add_rmsnorm_cuda_reference.op.yaml: field 'reference.entrypoint': plugin ", 0), 0u) << what;
      EXPECT_NE(what.find(std::string("is a cuda reference and this run's backend is ") + (b ? "host" : "none")),
                std::string::npos)
          << what;
    }
  }
}

}  // namespace
}  // namespace caliber::ops
