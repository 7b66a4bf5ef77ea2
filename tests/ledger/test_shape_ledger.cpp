// The shape ledger: stable ids from the documented canonical identity, strict reading with file,
// line and field in every error, atomic writing that refuses duplicates.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "caliber/errors.h"
#include "ledger/shape_ledger.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

ShapeRow rmsnorm_row() {
  ShapeRow r;
  r.op_type = "rmsnorm";
  r.kernel_name = "rmsnorm";
  r.stage = Stage::synthetic;
  r.arch = "any";
  r.gpu = "any";
  r.dtype = DType::bf16;
  r.args = {{"m", 4096}, {"n", 8192}, {"eps", 1e-6}};
  r.source = {SourceKind::synthetic, "caliber ledger synthetic", "power of two"};
  r.shape_id = stable_shape_id(r);
  return r;
}

std::string expect_input_error(const std::string& text) {
  try {
    parse_shape_ledger(text, "ledger.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError for: " << text;
  return "";
}

std::string line_of(const ShapeRow& r) { return to_json(r).dump() + "\n"; }

TEST(StableShapeId, HashesTheDocumentedCanonicalIdentity) {
  const ShapeRow r = rmsnorm_row();
  EXPECT_EQ(canonical_identity(r),
            R"({"args":{"eps":1e-06,"m":4096,"n":8192},"dtype":"bf16","kernel_name":"rmsnorm",)"
            R"("layout":"row_major","model":null,"op_type":"rmsnorm","stage":"synthetic"})");
  // Computed independently: Python hashlib.sha1(<the string above>).hexdigest()[:16].
  EXPECT_EQ(stable_shape_id(r), "sha1:72b18e806ceb3d6b");
}

TEST(StableShapeId, IgnoresWhereTheRowCameFromAndChangesWithTheProblem) {
  const ShapeRow base = rmsnorm_row();
  ShapeRow other = base;
  other.source = {SourceKind::manual, "command line", ""};
  other.gpu = "NVIDIA H200";
  other.arch = "sm_90";
  other.notes = "x";
  other.baselines_available = {"cublas"};
  other.weight.occurrences = 3;
  EXPECT_EQ(stable_shape_id(other), stable_shape_id(base));

  ShapeRow wider = base;
  wider.args["n"] = 8193;
  EXPECT_NE(stable_shape_id(wider), stable_shape_id(base));
  ShapeRow modelled = base;
  modelled.model = "llama-3-8b";
  EXPECT_NE(stable_shape_id(modelled), stable_shape_id(base));
  ShapeRow decode = base;
  decode.stage = Stage::decode;
  EXPECT_NE(stable_shape_id(decode), stable_shape_id(base));
}

TEST(ShapeLedger, RoundTripsEveryField) {
  ShapeRow r = rmsnorm_row();
  r.model = "llama-3-8b";
  r.stage = Stage::prefill;
  r.weight = {7, 0.25, std::nullopt};
  r.baselines_available = {"naive", "cublas"};
  r.notes = "input_layernorm";
  r.shape_id = stable_shape_id(r);
  const auto rows = parse_shape_ledger(line_of(r) + "\n" + line_of(rmsnorm_row()), "l.jsonl");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].same_content(r));
  EXPECT_EQ(rows[0].line, 1);
  EXPECT_EQ(rows[1].line, 3);  // blank line skipped, numbering kept
}

TEST(ShapeLedger, MalformedLineNamesFileAndLine) {
  const std::string msg = expect_input_error(line_of(rmsnorm_row()) + "{\"shape_id\": \n");
  EXPECT_NE(msg.find("ledger.jsonl:2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed JSON"), std::string::npos) << msg;
}

TEST(ShapeLedger, TruncatedLastLineIsRefused) {
  std::string text = line_of(rmsnorm_row());
  text = text.substr(0, text.size() / 2);
  const std::string msg = expect_input_error(text);
  EXPECT_NE(msg.find("ledger.jsonl:1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

TEST(ShapeLedger, EveryBadFieldIsNamed) {
  struct Case {
    const char* field;
    std::function<void(nlohmann::json&)> edit;
    const char* fragment;
  };
  const std::vector<Case> cases = {
      {"stage", [](auto& j) { j["stage"] = "warmup"; }, "unknown stage 'warmup'"},
      {"op_type", [](auto& j) { j["op_type"] = "conv"; }, "unknown op 'conv'"},
      {"dtype", [](auto& j) { j["dtype"] = "fp8"; }, "unknown dtype 'fp8'"},
      {"source.kind", [](auto& j) { j["source"]["kind"] = "guess"; }, "unknown source kind"},
      {"args.m", [](auto& j) { j["args"]["m"] = 0; }, "must be in [1,"},
      {"args.k", [](auto& j) { j["args"]["k"] = 3; }, "unknown argument of op rmsnorm"},
      {"args.eps", [](auto& j) { j["args"].erase("eps"); }, "missing"},
      {"args.n", [](auto& j) { j["args"]["n"] = 8.5; }, "expected an integer"},
      {"layout", [](auto& j) { j["layout"] = "col_major"; }, "unknown layout"},
      {"notes", [](auto& j) { j.erase("notes"); }, "missing"},
      {"model", [](auto& j) { j.erase("model"); }, "missing"},
      {"weight.traffic_weight", [](auto& j) { j["weight"]["traffic_weight"] = -1; }, "must be >= 0"},
      {"extra", [](auto& j) { j["extra"] = 1; }, "unknown field"},
      {"schema_version", [](auto& j) { j["schema_version"] = 2; }, "unsupported schema version 2"},
      {"shape_id", [](auto& j) { j["shape_id"] = "sha1:0000000000000000"; }, "does not match"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = to_json(rmsnorm_row());
    c.edit(j);
    const std::string msg = expect_input_error(line_of(rmsnorm_row()) + j.dump() + "\n");
    EXPECT_NE(msg.find("ledger.jsonl:2"), std::string::npos) << c.field << ": " << msg;
    EXPECT_NE(msg.find(std::string("'") + c.field + "'"), std::string::npos) << c.field << ": " << msg;
    EXPECT_NE(msg.find(c.fragment), std::string::npos) << c.field << ": " << msg;
  }
}

TEST(ShapeLedger, DuplicateShapeIdsAreRefused) {
  const std::string msg = expect_input_error(line_of(rmsnorm_row()) + line_of(rmsnorm_row()));
  EXPECT_NE(msg.find("ledger.jsonl:2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("duplicate shape id sha1:72b18e806ceb3d6b (first on line 1)"), std::string::npos) << msg;
}

TEST(ShapeLedger, WriteIsAtomicAndRefusesDuplicatesWithoutTouchingTheFile) {
  const auto dir = std::filesystem::temp_directory_path() / "caliber_test_ledger_write";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "shape_ledger.jsonl").string();
  write_shape_ledger(file, {rmsnorm_row()});
  const auto before = read_shape_ledger(file);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_THROW(write_shape_ledger(file, {rmsnorm_row(), rmsnorm_row()}), InputError);
  const auto after = read_shape_ledger(file);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_TRUE(after[0].same_content(before[0]));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary left behind
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace caliber
