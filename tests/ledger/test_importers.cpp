// Ledger importers: rows per kind, idempotent upserts that never clobber another kind, synthetic
// probes, and model-derived shapes checked against the documented formulas on literal configs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "caliber/errors.h"
#include "ledger/importers.h"
#include "ops/op_catalog.h"
#include "ops/op_description.h"
#include "io/shape_ledger_json.h"

namespace caliber::ledger {
namespace {

RowTemplate rms_template() {
  RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return t;
}

ShapeRow manual_row(std::int64_t m, std::int64_t n, const std::string& notes = "") {
  return make_row(rms_template(), DType::bf16, {{"m", m}, {"n", n}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                  {SourceKind::manual, "command line", ""}, notes);
}

ModelConfig llama8b() {
  ModelConfig c;
  c.name = "llama-3-8b";
  c.family = "dense";
  c.norm = "rmsnorm";
  c.norm_eps = 1e-5;
  c.mlp = "gated";
  c.hidden_size = 4096;
  c.intermediate_size = 14336;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 8;
  c.head_dim = 128;
  c.vocab_size = 128256;
  return c;
}

// The shapes of a shipped op in a model (its description's models entries); an entry left out
// fails the test.
std::vector<DerivedShape> derive(const ModelConfig& c, ops::OpType op, const Workload& w,
                                 std::optional<std::string>& skipped) {
  std::vector<std::string> left_out;
  auto shapes = derive_shapes(c, ops::known_op(ops::to_string(op)), w, skipped, left_out);
  EXPECT_TRUE(left_out.empty()) << left_out.front();
  return shapes;
}

std::string text(const std::vector<ShapeRow>& rows) { return shape_ledger_text(rows, "l.jsonl"); }

TEST(Upsert, ReplacingAKindIsIdempotentAndLeavesOtherKindsAlone) {
  std::vector<ShapeRow> ledger = {manual_row(64, 256, "mine")};
  const auto synth = synthetic_rows(rms_template(), {DType::bf16});
  auto r1 = upsert(ledger, SourceKind::synthetic, "rmsnorm", synth, true);
  EXPECT_EQ(r1.added, synth.size());
  EXPECT_EQ(r1.kept, 1u);
  const std::string once = text(ledger);
  auto r2 = upsert(ledger, SourceKind::synthetic, "rmsnorm", synth, true);
  EXPECT_EQ(r2.added, 0u);
  EXPECT_EQ(r2.unchanged, synth.size());
  EXPECT_EQ(text(ledger), once);  // byte-identical
  // A smaller synthetic set removes only synthetic rows; the manual row stays.
  auto r3 = upsert(ledger, SourceKind::synthetic, "rmsnorm", {synth[0]}, true);
  EXPECT_EQ(r3.removed, synth.size() - 1);
  ASSERT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger[0].source.kind, SourceKind::manual);
  EXPECT_EQ(ledger[0].notes, "mine");
}

TEST(Upsert, ManualRowsAccumulateAndUpdateInPlace) {
  std::vector<ShapeRow> ledger;
  upsert(ledger, SourceKind::manual, "rmsnorm", {manual_row(1, 2)}, false);
  upsert(ledger, SourceKind::manual, "rmsnorm", {manual_row(3, 4)}, false);
  ASSERT_EQ(ledger.size(), 2u);
  const auto r = upsert(ledger, SourceKind::manual, "rmsnorm", {manual_row(1, 2, "now with notes")}, false);
  EXPECT_EQ(r.updated, 1u);
  EXPECT_EQ(r.removed, 0u);
  ASSERT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger[0].notes, "now with notes");
}

TEST(Upsert, AnIdOwnedByAnotherKindIsNotTakenOver) {
  ShapeRow diag = make_row(rms_template(), DType::bf16, {{"m", 64}, {"n", 256}, {"eps", 1e-6}}, Stage::mixed,
                           std::nullopt, {SourceKind::diagnostic, "command line", ""}, "the ATT shape");
  std::vector<ShapeRow> ledger = {diag};
  const auto r = upsert(ledger, SourceKind::manual, "rmsnorm", {manual_row(64, 256, "other")}, false);
  ASSERT_EQ(r.conflicts.size(), 1u);
  EXPECT_NE(r.conflicts[0].find("already in the ledger as a diagnostic row"), std::string::npos) << r.conflicts[0];
  ASSERT_EQ(ledger.size(), 1u);
  EXPECT_EQ(ledger[0].notes, "the ATT shape");
}

TEST(Upsert, RowsAreOrderedByKindWhateverTheImportOrder) {
  std::vector<ShapeRow> a, b;
  const auto synth = synthetic_rows(rms_template(), {DType::fp32});
  const ShapeRow manual = manual_row(5, 6);
  upsert(a, SourceKind::synthetic, "rmsnorm", synth, true);
  upsert(a, SourceKind::manual, "rmsnorm", {manual}, false);
  upsert(b, SourceKind::manual, "rmsnorm", {manual}, false);
  upsert(b, SourceKind::synthetic, "rmsnorm", synth, true);
  EXPECT_EQ(text(a), text(b));
  EXPECT_EQ(a.front().source.kind, SourceKind::manual);
}

TEST(Synthetic, ProbesCoverTheDocumentedBoundaries) {
  RowTemplate g;
  g.op = ops::OpType::gemm;
  const auto rows = synthetic_rows(g, {DType::bf16, DType::fp32});
  std::set<std::string> ids;
  bool k_not_multiple_of_8 = false, m_one = false;
  for (const auto& r : rows) {
    ids.insert(r.shape_id);
    EXPECT_EQ(r.stage, Stage::synthetic);
    EXPECT_FALSE(r.notes.empty());
    k_not_multiple_of_8 = k_not_multiple_of_8 || r.args["k"].get<std::int64_t>() % 8 != 0;
    m_one = m_one || r.args["m"] == 1;
  }
  EXPECT_EQ(ids.size(), rows.size());  // no duplicate probe
  // The probes of the op's description (ops/gemm.op.yaml): 20 per dtype.
  EXPECT_EQ(rows.size(), 2u * 20u);
  EXPECT_EQ(rows.front().source.detail, "probe of gemm.op.yaml");
  EXPECT_EQ(rows.front().notes, "square, power of two");
  EXPECT_TRUE(k_not_multiple_of_8);
  EXPECT_TRUE(m_one);
  const auto norm = synthetic_rows(rms_template(), {DType::bf16});
  EXPECT_EQ(norm.size(), 34u);
  bool short_row = false, long_row = false, odd = false;
  for (const auto& r : norm) {
    const auto n = r.args["n"].get<std::int64_t>();
    short_row = short_row || n < 8;
    long_row = long_row || n >= 65536;
    odd = odd || n % 8 == 1;
  }
  EXPECT_TRUE(short_row && long_row && odd);
}

// An op of your own: its rows are the probes its description names, per dtype, with their notes;
// a probe whose extents are out of range is an error naming the description, its line and field.
TEST(Synthetic, AnOpOfYourOwnGetsTheProbesOfItsDescription) {
  // The op registered under `name` (rows name their op: make_row checks them as a ledger would).
  const auto described = [](const std::string& name, const std::string& probes) -> const ops::DescribedOp& {
    return ops::register_op_description(ops::parse_op_description(
        "schema_version: 1\nop: " + name + "\nargs:\n  m: integer\n  n: integer\n  alpha: number\n"
        "inputs:\n  - {name: x, shape: [m, n]}\noutputs:\n  - {name: y, shape: [m, n]}\nflops: m * n\n"
        "reference:\n  entrypoint: \"lib.so:ref\"\n" + probes, name + ".op.yaml"));
  };
  const std::string first = "probes:\n  - {args: {m: 1, n: 4097, alpha: 0.5}, note: \"one row, not a multiple of 8\"}\n";
  RowTemplate t;
  t.op = ops::OpType::described;
  t.described = &described("scaled_rows", first + "  - {args: {m: 3, n: 5, alpha: 2}, note: tiny}\n");
  const auto rows = synthetic_rows(t, {DType::bf16, DType::fp32});
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].args.dump(), R"({"alpha":0.5,"m":1,"n":4097})");
  EXPECT_EQ(rows[0].notes, "one row, not a multiple of 8");
  EXPECT_EQ(rows[0].dtype, DType::bf16);
  EXPECT_EQ(rows[0].stage, Stage::synthetic);
  EXPECT_EQ(rows[0].source.kind, SourceKind::synthetic);
  EXPECT_EQ(rows[0].source.detail, "probe of scaled_rows.op.yaml");
  EXPECT_EQ(rows[0].op_type, "scaled_rows");
  EXPECT_EQ(rows[1].args.dump(), R"({"alpha":2.0,"m":3,"n":5})");
  EXPECT_EQ(rows[1].notes, "tiny");
  EXPECT_EQ(rows[3].dtype, DType::fp32);

  t.described = &described("scaled_rows_zero", first + "  - {args: {m: 0, n: 5, alpha: 2}, note: \"no rows\"}\n");
  try {
    synthetic_rows(t, {DType::bf16});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("scaled_rows_zero.op.yaml:16: field 'probes[1].args", 0), 0u) << e.what();
  }
  t.described = &described("scaled_rows_none", "");
  try {
    synthetic_rows(t, {DType::bf16});
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("scaled_rows_none.op.yaml names no probes", 0), 0u) << e.what();
  }
}

TEST(Models, DenseGemmShapesFollowTheFormulas) {
  std::optional<std::string> skipped;
  const auto shapes = derive(llama8b(), ops::OpType::gemm, {Stage::decode, 32, 8, 4096}, skipped);
  ASSERT_FALSE(skipped) << *skipped;
  std::map<std::string, nlohmann::json> by;
  for (const auto& s : shapes) by[s.tensor] = s.args;
  // qkv: (32/8 + 2 * 8/8) * 128 = 768 columns; gate_up: 2 * 14336 / 8 = 3584; lm_head 128256 / 8.
  EXPECT_EQ(by["qkv_proj"], (nlohmann::json{{"k", 4096}, {"m", 32}, {"n", 768}}));
  EXPECT_EQ(by["o_proj"], (nlohmann::json{{"k", 512}, {"m", 32}, {"n", 4096}}));
  EXPECT_EQ(by["gate_up_proj"], (nlohmann::json{{"k", 4096}, {"m", 32}, {"n", 3584}}));
  EXPECT_EQ(by["down_proj"], (nlohmann::json{{"k", 1792}, {"m", 32}, {"n", 4096}}));
  EXPECT_EQ(by["lm_head (vocabulary split over tp)"], (nlohmann::json{{"k", 4096}, {"m", 32}, {"n", 16032}}));
}

TEST(Models, KvHeadsAreReplicatedBeyondTheirCountAndIndivisibleTpIsSkipped) {
  ModelConfig c = llama8b();
  std::optional<std::string> skipped;
  // tp 16 > 8 KV heads: one KV head per rank: (32/16 + 2) * 128 = 512.
  const auto s16 = derive(c, ops::OpType::gemm, {Stage::prefill, 512, 16, 4096}, skipped);
  ASSERT_FALSE(skipped);
  EXPECT_EQ(s16[0].args["n"], 512);
  c.num_attention_heads = 28;
  c.intermediate_size = 18944;
  derive(c, ops::OpType::gemm, {Stage::prefill, 512, 8, 4096}, skipped);
  ASSERT_TRUE(skipped);
  EXPECT_NE(skipped->find("does not divide num_attention_heads=28"), std::string::npos);
}

TEST(Models, NormsAndSoftmaxShapes) {
  std::optional<std::string> skipped;
  const auto norms = derive(llama8b(), ops::OpType::rmsnorm, {Stage::prefill, 4096, 1, 4096}, skipped);
  ASSERT_EQ(norms.size(), 1u);
  EXPECT_EQ(norms[0].args, (nlohmann::json{{"eps", 1e-5}, {"m", 4096}, {"n", 4096}}));
  derive(llama8b(), ops::OpType::layernorm, {Stage::prefill, 4096, 1, 4096}, skipped);
  EXPECT_TRUE(skipped);  // llama uses RMSNorm
  const auto prefill = derive(llama8b(), ops::OpType::softmax, {Stage::prefill, 512, 2, 4096}, skipped);
  ASSERT_EQ(prefill.size(), 1u);
  EXPECT_EQ(prefill[0].args, (nlohmann::json{{"m", 16 * 512}, {"n", 512}}));
  const auto decode = derive(llama8b(), ops::OpType::softmax, {Stage::decode, 8, 1, 1024}, skipped);
  ASSERT_EQ(decode.size(), 2u);
  EXPECT_EQ(decode[0].args, (nlohmann::json{{"m", 8}, {"n", 128256}}));
  EXPECT_EQ(decode[1].args, (nlohmann::json{{"m", 32 * 8}, {"n", 1024}}));
}

ModelConfig deepseek_v3() {
  ModelConfig c;
  c.name = "deepseek-v3";
  c.family = "mla_moe";
  c.norm = "rmsnorm";
  c.norm_eps = 1e-6;
  c.mlp = "gated";
  c.hidden_size = 7168;
  c.intermediate_size = 18432;
  c.num_attention_heads = 128;
  c.num_key_value_heads = 128;
  c.vocab_size = 129280;
  c.q_lora_rank = 1536;
  c.kv_lora_rank = 512;
  c.qk_nope_head_dim = 128;
  c.qk_rope_head_dim = 64;
  c.v_head_dim = 128;
  c.moe_intermediate_size = 2048;
  c.n_routed_experts = 256;
  c.num_experts_per_tok = 8;
  c.n_shared_experts = 1;
  return c;
}

// MLA + MoE, decode of 32 tokens at tp 8 (16 heads per rank), by hand from docs/ledger.md's table.
TEST(Models, MlaMoeGemmShapesFollowTheFormulas) {
  std::optional<std::string> skipped;
  const auto shapes = derive(deepseek_v3(), ops::OpType::gemm, {Stage::decode, 32, 8, 4096}, skipped);
  ASSERT_FALSE(skipped) << *skipped;
  std::vector<std::pair<std::string, nlohmann::json>> got;
  for (const auto& s : shapes) got.emplace_back(s.tensor, s.args);
  const auto mkn = [](std::int64_t m, std::int64_t k, std::int64_t n) {
    return nlohmann::json{{"k", k}, {"m", m}, {"n", n}};
  };
  const std::vector<std::pair<std::string, nlohmann::json>> want = {
      {"q_a_proj", mkn(32, 7168, 1536)},
      {"q_b_proj", mkn(32, 1536, 16 * (128 + 64))},
      {"kv_a_proj_with_mqa", mkn(32, 7168, 512 + 64)},
      {"kv_b_proj", mkn(32, 512, 16 * (128 + 128))},
      {"o_proj", mkn(32, 16 * 128, 7168)},
      {"dense gate_up_proj (first layers)", mkn(32, 7168, 2 * 18432 / 8)},
      {"dense down_proj (first layers)", mkn(32, 18432 / 8, 7168)},
      {"shared expert gate_up_proj", mkn(32, 7168, 2 * 2048 / 8)},
      {"shared expert down_proj", mkn(32, 2048 / 8, 7168)},
      // ceil(32 * 8 / 256) tokens per routed expert
      {"routed expert gate_up_proj (tokens x top-k spread evenly over the experts)", mkn(1, 7168, 2 * 2048)},
      {"routed expert down_proj", mkn(1, 2048, 7168)},
      {"lm_head (vocabulary split over tp)", mkn(32, 7168, 16160)},  // ceil(129280 / 8)
  };
  EXPECT_EQ(got, want);
  const auto norms = derive(deepseek_v3(), ops::OpType::rmsnorm, {Stage::prefill, 512, 8, 4096}, skipped);
  ASSERT_EQ(norms.size(), 3u);
  EXPECT_EQ(norms[1].tensor, "q_a_layernorm");
  EXPECT_EQ(norms[1].args, (nlohmann::json{{"eps", 1e-6}, {"m", 512}, {"n", 1536}}));
  EXPECT_EQ(norms[2].args["n"], 512);
}

// An entry whose formula does not come out a whole number is left out, saying which and why; the
// others are derived.
TEST(Models, AnEntryThatIsNotWholeIsLeftOutAndSaid) {
  ModelConfig c = deepseek_v3();
  c.moe_intermediate_size = 2052;  // 2052 / 8 = 256.5: the shared expert's width does not split over tp 8
  std::optional<std::string> skipped;
  std::vector<std::string> left_out;
  const auto shapes = derive_shapes(c, ops::known_op("gemm"), {Stage::prefill, 512, 8, 4096}, skipped, left_out);
  ASSERT_FALSE(skipped);
  ASSERT_EQ(left_out.size(), 1u);
  EXPECT_EQ(left_out[0].rfind("shared expert down_proj: formula 'moe_intermediate_size * n_shared_experts / tp' = 256.5 "
                              "is not an integer", 0),
            0u)
      << left_out[0];
  EXPECT_EQ(shapes.size(), 10u);  // 12 in decode, less the lm_head and the one left out
}

TEST(Models, ShippedFileReadsAndMergesDuplicatesAcrossTp) {
  const auto models = read_model_shapes(std::string(CALIBER_SOURCE_DIR) + "/data/model_shapes.json");
  std::set<std::string> names;
  for (const auto& m : models) names.insert(m.name);
  for (const char* want : {"llama-3-8b", "llama-3-70b", "qwen2.5-7b", "qwen2.5-72b", "mistral-7b", "deepseek-v3"}) {
    EXPECT_TRUE(names.count(want)) << want;
  }
  ModelImport imp;
  imp.models = {"llama-3-8b"};
  imp.prefill_tokens = {512};
  imp.tp = {1, 8};
  imp.dtypes = {DType::bf16};
  imp.origin = "model_shapes.json";
  std::vector<std::string> notices;
  const auto rows = model_rows(rms_template(), models, imp, notices);
  // rmsnorm does not depend on tp: one row, both degrees noted.
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].source.detail, "tokens=512 tp=1,8");
  EXPECT_EQ(rows[0].model, "llama-3-8b");
  EXPECT_EQ(rows[0].stage, Stage::prefill);
  imp.models = {"gpt-2"};
  EXPECT_THROW(model_rows(rms_template(), models, imp, notices), UsageError);
}

TEST(Models, MaxElementsLeavesHugeShapesOutWithANotice) {
  const auto models = read_model_shapes(std::string(CALIBER_SOURCE_DIR) + "/data/model_shapes.json");
  ModelImport imp;
  imp.models = {"llama-3-70b"};
  imp.prefill_tokens = {4096};
  imp.tp = {1};
  imp.dtypes = {DType::bf16};
  imp.max_elements = 1 << 24;
  std::vector<std::string> notices;
  RowTemplate g;
  g.op = ops::OpType::gemm;
  const auto rows = model_rows(g, models, imp, notices);
  EXPECT_TRUE(rows.empty());
  ASSERT_FALSE(notices.empty());
  EXPECT_NE(notices[0].find("exceeds --max-elements"), std::string::npos) << notices[0];
}

}  // namespace
}  // namespace caliber::ledger
