// caliber validate: good files pass with exit 0; bad ones fail with exit 2 and one line per
// problem naming file, line and field; the kind comes from the name or --kind.
#include <gtest/gtest.h>

#include "matrix/baseline_matrix.h"
#include "ledger/importers.h"
#include "support/cli_run.h"
#include "io/embedded_schemas.h"
#include "io/validate_file.h"
#include "results/benchmark_results.h"
#include "io/benchmark_results_csv.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::write_text;

std::string good_ledger_line() {
  ledger::RowTemplate t;
  t.op = ops::OpType::gemm;
  return to_json(ledger::make_row(t, DType::bf16, {{"m", 8}, {"n", 16}, {"k", 32}}, Stage::decode, "llama-3-8b",
                                  {SourceKind::model_config, "model_shapes.json", "tokens=8 tp=1"}, "qkv_proj"))
      .dump();
}

const char* kGoodMatrix = R"(schema_version: 1
kernel: gemm
op_type: gemm
dtype: bf16
reference_provider: cublas
layout_contract: row_major
providers:
  cublas: {enabled: true, entrypoint: "builtin:cublas", provider: cublas}
  cudnn:
    enabled: false
    provider: cudnn
    skip_reason: cuBLAS covers gemm
)";

TEST(ValidateCli, GoodFilesPass) {
  const std::string dir = fresh_dir("validate_good");
  write_text(dir + "/shape_ledger.jsonl", good_ledger_line() + "\n");
  write_text(dir + "/baseline_matrix.yaml", kGoodMatrix);
  const auto r = run_caliber({"validate", dir + "/shape_ledger.jsonl", dir + "/baseline_matrix.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("shape_ledger.jsonl: valid shape_ledger (1 record, shape_ledger.v1.schema.json)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("baseline_matrix.yaml: valid baseline_matrix"), std::string::npos) << r.out;
}

TEST(ValidateCli, BadLedgerLinesNameLineAndField) {
  const std::string dir = fresh_dir("validate_bad_ledger");
  nlohmann::json bad = nlohmann::json::parse(good_ledger_line());
  bad["dtype"] = "fp8";
  bad["args"].erase("k");
  write_text(dir + "/shape_ledger.jsonl", good_ledger_line() + "\n" + bad.dump() + "\n{\"shape_id\": 3\n");
  const auto r = run_caliber({"validate", dir + "/shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("shape_ledger.jsonl:2: field 'dtype':"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(got \"fp8\")"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("shape_ledger.jsonl:2: field 'args.k': missing (required)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("shape_ledger.jsonl:3: malformed JSON"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(ValidateCli, ReaderRulesBeyondTheSchemaAreChecked) {
  const std::string dir = fresh_dir("validate_reader_rules");
  nlohmann::json wrong_id = nlohmann::json::parse(good_ledger_line());
  wrong_id["notes"] = "same identity, another note";
  write_text(dir + "/shape_ledger.jsonl", good_ledger_line() + "\n" + wrong_id.dump() + "\n");
  const auto r = run_caliber({"validate", dir + "/shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("shape_ledger.jsonl:2: field 'shape_id': duplicate shape id"), std::string::npos) << r.err;
}

TEST(ValidateCli, BadMatrixNamesTheYamlLine) {
  const std::string dir = fresh_dir("validate_bad_matrix");
  std::string m = kGoodMatrix;
  m.replace(m.find("    skip_reason: cuBLAS covers gemm\n"), 36, "");
  m.replace(m.find("dtype: bf16"), 11, "dtype: int8");
  write_text(dir + "/baseline_matrix.yaml", m);
  const auto r = run_caliber({"validate", dir + "/baseline_matrix.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("baseline_matrix.yaml:4: field 'dtype'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("baseline_matrix.yaml:10: field 'providers.cudnn.skip_reason': missing (required)"),
            std::string::npos)
      << r.err;
}

TEST(ValidateCli, KindFromTheNameOrKindAndRefusals) {
  const std::string dir = fresh_dir("validate_kinds");
  write_text(dir + "/shapes.txt", good_ledger_line() + "\n");
  auto r = run_caliber({"validate", dir + "/shapes.txt"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot tell its kind"), std::string::npos) << r.err;
  r = run_caliber({"validate", "--kind", "shape_ledger", dir + "/shapes.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_caliber({"validate", "--kind", "benchmark_results_csv", dir + "/shapes.txt"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_caliber({"validate", "--kind", "nonsense", dir + "/shapes.txt"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--kind: unknown kind 'nonsense'"), std::string::npos) << r.err;
  r = run_caliber({"validate", dir + "/missing_shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing_shape_ledger.jsonl: does not exist"), std::string::npos) << r.err;
}

// Names that say nothing (the docs' ledger.jsonl, matrix.yaml, add.yaml): the first record
// tells; a file whose first record fits no kind still needs --kind.
TEST(ValidateCli, KindFromTheFirstRecordWhenTheNameSaysNothing) {
  const std::string dir = fresh_dir("validate_content_kinds");
  std::string ledger = "\n";  // a blank first line: the first record is the first row
  ledger += good_ledger_line();
  ledger += "\n";
  write_text(dir + "/ledger.jsonl", ledger);
  write_text(dir + "/matrix.yaml", kGoodMatrix);
  write_text(dir + "/add.yaml", testing_support::read_file_text(
                                    std::string(CALIBER_SOURCE_DIR) + "/scripts/device/acceptance/row_cumsum/row_cumsum.op.yaml"));
  auto r = run_caliber({"validate", dir + "/ledger.jsonl", dir + "/matrix.yaml", dir + "/add.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ledger.jsonl: valid shape_ledger (1 record"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("matrix.yaml: valid baseline_matrix"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("add.yaml: valid op_description"), std::string::npos) << r.out;
  write_text(dir + "/other.jsonl", "{\"hello\": 1}\n");
  write_text(dir + "/other.yaml", "- a list\n");
  for (const char* name : {"/other.jsonl", "/other.yaml"}) {
    r = run_caliber({"validate", dir + name});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("cannot tell its kind from the name"), std::string::npos) << r.err;
  }
  r = run_caliber({"validate", dir + "/absent.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("absent.yaml: does not exist"), std::string::npos) << r.err;
}

// An op description (docs/user-ops.md) is validated alone, by its name (*.op.yaml) or --kind, and
// an error in it names the description's own file, line and field.
TEST(ValidateCli, AnOpDescriptionIsValidatedAlone) {
  const std::string dir = fresh_dir("validate_op_description");
  const std::string good = testing_support::read_file_text(std::string(CALIBER_SOURCE_DIR) +
                                                           "/scripts/device/acceptance/row_cumsum/row_cumsum.op.yaml");
  write_text(dir + "/row_cumsum.op.yaml", good);
  auto r = run_caliber({"validate", dir + "/row_cumsum.op.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("row_cumsum.op.yaml: valid op_description (1 record"), std::string::npos) << r.out;
  std::string bad = good;
  bad.replace(bad.find("  n: {type: integer, min: 1}"), 28, "  n: {type: integer, min: 1, color: red}");
  write_text(dir + "/description.yaml", bad);
  r = run_caliber({"validate", "--kind", "op_description", dir + "/description.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(dir + "/description.yaml:7: field 'args.n.color': unknown field"), std::string::npos) << r.err;
}

TEST(Schemas, TheCsvSchemaListsExactlyTheProjectedColumns) {
  nlohmann::json schema;
  for (const auto& s : embedded_schemas()) {
    if (s.name == "benchmark_results_csv.v1.schema.json") schema = nlohmann::json::parse(s.text);
  }
  ASSERT_TRUE(schema.is_object());
  std::vector<std::string> required = schema["required"];
  EXPECT_EQ(required, benchmark_results_csv_columns());
  EXPECT_EQ(schema["properties"].size(), benchmark_results_csv_columns().size());
}

TEST(Schemas, EveryKindHasItsEmbeddedSchema) {
  for (auto k : {validation::FileKind::shape_ledger, validation::FileKind::baseline_matrix,
                 validation::FileKind::benchmark_results_jsonl, validation::FileKind::benchmark_results_csv}) {
    bool found = false;
    for (const auto& s : embedded_schemas()) found = found || s.name == validation::schema_name(k);
    EXPECT_TRUE(found) << validation::to_string(k);
  }
}

}  // namespace
}  // namespace caliber
