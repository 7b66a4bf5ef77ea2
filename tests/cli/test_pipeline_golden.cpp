// The host pipeline, field by field, against committed goldens (tests/data/golden): what a user
// sees of a run — each row's status and reason, correctness, integrity verdict and every check,
// the contracts of both measurements, configs and capture failures — over the shipped host
// matrices and the cheating corpus (tests/plugins), and what `caliber bench` records per result.
// The code under the pipeline may be rebuilt; what it reports may not change unnoticed.
// Timings are not compared: a number with a decimal point or exponent, and an integer followed by
// a unit of time, a ratio or a percentage, read "#". Paths read <src>, <plugins> and <tmp>.
// CALIBER_UPDATE_GOLDEN=1 rewrites the files instead of comparing (review their diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_run.h"

namespace caliber {
namespace {

using nlohmann::json;
using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::source_dir;
using testing_support::write_text;

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

constexpr const char* kDriftSeenOnFreshInputs =
    " (a verified call on fresh inputs: its output changed during the call and is wrong for these input values)";

// The text of a field with what differs from run to run masked.
std::string masked(std::string s, const std::string& tmp) {
  s = replace_all(s, tmp, "<tmp>");
  s = replace_all(s, CALIBER_PLUGIN_BUILD_DIR, "<plugins>");
  s = replace_all(s, std::filesystem::path(CALIBER_TEST_PLUGIN).parent_path().string(), "<plugins>");
  s = replace_all(s, source_dir(), "<src>");
  // Which verified call first sees a provider that drifts after a few calls (the one on poisoned
  // outputs or the one on fresh inputs) depends on how many calls the time budget fit here.
  s = replace_all(s, kDriftSeenOnFreshInputs, "");
  static const std::regex decimal(R"(\b\d+\.\d+([eE][-+]?\d+)?|\b\d+[eE][-+]?\d+\b)");
  static const std::regex timed(R"((\b\d+|#) ?(us|ms|s|x|%)(?![A-Za-z]))");
  s = std::regex_replace(s, decimal, "#");
  return std::regex_replace(s, timed, "#");
}

// A check's detail. The verified call's time is all timing (counts of samples included), and an
// honest call's slow reading re-timed says so in other words: only a failure's words are kept.
std::string masked_detail(const json& check, const std::string& tmp) {
  std::string d = masked(check.value("detail", ""), tmp);
  // How many calls got fresh inputs depends on how many fit the time budget; which samples were
  // audited is drawn at random (and so whether one fell after a drift began).
  if (check.value("name", "") == "fresh_inputs") return std::regex_replace(d, std::regex(R"(\d+)"), "#");
  if (check.value("name", "") == "audited_calls") return "(audit)";
  // Whether a cheater's samples also look unlike (one that is already refused) depends on how
  // many of its calls fit the time budget: tests/integrity/test_call_likeness.cpp pins the check.
  if (check.value("name", "") == "calls_alike") return "(timing)";
  // A rate's unit prefix follows its (masked) value: 900 MB/s one day, 1.1 GB/s the next.
  if (check.value("name", "") == "physically_possible") {
    return std::regex_replace(d, std::regex(R"(# [kMGTP]?(B|FLOP)/s)"), "# $1/s");
  }
  if (check.value("name", "") != "verified_call_time") return d;
  if (check.value("outcome", "") != "failed") return "(timing)";
  return std::regex_replace(d, std::regex(R"(\d+)"), "#");
}

// A check's outcome. Whether the verified call's time could be compared depends on how many
// calls fit the time budget on this machine (passed or not_run); a failure is kept.
json masked_outcome(const json& check) {
  if (check.value("name", "") == "audited_calls") return "(audit)";
  if (check.value("name", "") == "calls_alike") return "(timing)";
  if (check.value("name", "") != "verified_call_time" || check.value("outcome", "") == "failed") {
    return check.at("outcome");
  }
  return "(timing)";
}

json masked_value(const json& v, const std::string& tmp) {
  return v.is_string() ? json(masked(v.get<std::string>(), tmp)) : v;
}

// The fields of a results row that say what happened, masked.
json project_row(const json& row, const std::string& tmp) {
  json out = json::object();
  for (const char* key : {"op_type", "shape_id", "dtype", "provider", "provider_detail", "benchmark_status",
                          "status_reason", "correct", "correctness_error", "includes_allocation",
                          "includes_layout_conversion", "includes_jit", "config", "capture_failure", "timing_method",
                          "warmup_iters"}) {
    if (row.contains(key)) out[key] = masked_value(row[key], tmp);
  }
  if (row.contains("config") && row["config"].is_object()) {
    for (auto& [k, v] : out["config"].items()) v = masked_value(v, tmp);
  }
  if (row.contains("integrity")) {
    const json& integ = row["integrity"];
    json checks = json::array();
    // A cheater that another check refused may or may not also be faster than the machine's
    // theoretical ceiling, depending on how fast this machine is: the bound does not decide its row.
    bool refused_elsewhere = false;
    for (const json& c : integ.value("checks", json::array())) {
      refused_elsewhere = refused_elsewhere || (c.value("name", "") != "physically_possible" && c.value("outcome", "") == "failed");
    }
    for (const json& c : integ.value("checks", json::array())) {
      if (refused_elsewhere && c.value("name", "") == "physically_possible") {
        checks.push_back({{"name", c.at("name")}, {"outcome", "(bound)"}, {"detail", "(bound)"}});
        continue;
      }
      checks.push_back({{"name", c.at("name")}, {"outcome", masked_outcome(c)}, {"detail", masked_detail(c, tmp)}});
    }
    out["integrity"] = {{"verdict", integ.value("verdict", "")},
                        {"verification_seed", integ.value("verification_seed", json())},
                        {"input_seed", integ.value("input_seed", json())},
                        {"checks", checks}};
  }
  for (const char* m : {"eager", "kernel_only"}) {
    if (!row.contains(m) || row[m].is_null()) continue;
    out[m] = {{"contract", row[m].value("contract", json())}};
    if (row[m].contains("instrument")) out[m]["instrument"] = row[m]["instrument"];
  }
  return out;
}

// What `caliber bench` records of each result besides its numbers.
json project_bench_result(const json& r, const std::string& tmp) {
  json out = {{"name", r.value("name", "")}, {"params", r.value("params", json())},
              {"contract", r.value("contract", json())}, {"instrument", r.value("instrument", json())}};
  json notes = json::array();
  for (const json& n : r.value("notes", json::array())) notes.push_back(masked_value(n, tmp));
  out["notes"] = notes;
  if (r.contains("integrity")) {
    json checks = json::array();
    for (const json& c : r["integrity"].value("checks", json::array())) {
      checks.push_back({{"name", c.at("name")}, {"outcome", masked_outcome(c)}, {"detail", masked_detail(c, tmp)}});
    }
    out["integrity"] = {{"verdict", r["integrity"].value("verdict", "")}, {"checks", checks}};
  }
  return out;
}

std::string golden_path(const std::string& name) { return source_dir() + "/tests/data/golden/" + name + ".jsonl"; }

// Compares the projected lines with the golden, line by line and field by field; or rewrites it.
void expect_golden(const std::string& name, const std::vector<json>& lines) {
  const std::string path = golden_path(name);
  if (const char* update = std::getenv("CALIBER_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream out(path, std::ios::binary);
    for (const json& l : lines) out << l.dump() << "\n";
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "no golden " << path << " (CALIBER_UPDATE_GOLDEN=1 writes it)";
  std::vector<json> golden;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) golden.push_back(json::parse(line));
  }
  ASSERT_EQ(lines.size(), golden.size()) << name << ": row count";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const json patch = json::diff(golden[i], lines[i]);
    EXPECT_TRUE(patch.empty()) << name << " line " << i + 1 << " (" << golden[i].value("provider", golden[i].value("name", ""))
                               << "): " << patch.dump(1) << "\nwas: " << golden[i].dump();
  }
}

std::vector<json> read_rows(const std::string& jsonl, const std::string& tmp) {
  std::vector<json> rows;
  std::istringstream in(slurp(jsonl));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) rows.push_back(project_row(json::parse(line), tmp));
  }
  // Matrix order within a shape, ledger order across shapes, as the runner writes them; sorted so
  // that a resumed or reordered worker does not read as a change.
  std::stable_sort(rows.begin(), rows.end(), [](const json& a, const json& b) {
    return std::tie(a["shape_id"].get_ref<const std::string&>(), a["provider"].get_ref<const std::string&>()) <
           std::tie(b["shape_id"].get_ref<const std::string&>(), b["provider"].get_ref<const std::string&>());
  });
  return rows;
}

struct Scenario {
  std::string name;
  std::string op;
  std::string op_description;  // "" for a shipped op
  std::vector<std::string> shapes;
  std::string dtypes;
  std::string matrix_text;  // the matrix, or "" to use `matrix_file`
  std::string matrix_file;
  std::vector<std::string> extra_args;
};

// Runs one scenario: a manual ledger, `caliber run` on the host with pinned seeds, the rows.
void run_scenario(const Scenario& s) {
  const std::string dir = fresh_dir("golden_" + s.name);
  std::vector<std::string> ledger = {"ledger", "manual", "--op", s.op, "--ledger", dir + "/ledger.jsonl", "--dtype",
                                     s.dtypes};
  if (!s.op_description.empty()) ledger.insert(ledger.end(), {"--op-description", s.op_description});
  for (const std::string& shape : s.shapes) ledger.insert(ledger.end(), {"--shape", shape});
  const auto l = run_caliber(ledger);
  ASSERT_EQ(l.exit_code, 0) << l.err;
  std::string matrix = s.matrix_file;
  if (!s.matrix_text.empty()) {
    matrix = dir + "/matrix.yaml";
    write_text(matrix, s.matrix_text);
  }
  std::vector<std::string> args = {"run", "--op", s.op, "--backend", "host", "--shape-ledger", dir + "/ledger.jsonl",
                                   "--baseline-matrix", matrix, "--out", dir + "/out", "--seed", "7",
                                   "--verification-seed", "5eed", "--min-time-ms", "0", "--max-time-ms", "3",
                                   "--min-samples", "6", "--warmup", "2", "--cell-timeout-s", "120"};
  args.insert(args.end(), s.extra_args.begin(), s.extra_args.end());
  // No calibrated ceilings, whatever this machine's user has calibrated.
  const auto r = testing_support::run_cli_command("CALIBER_CEILINGS='" + dir + "/no_ceilings.json' " +
                                                  testing_support::caliber_exe() + " " +
                                                  testing_support::shell_args(args));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_golden(s.name, read_rows(dir + "/out/benchmark_results.jsonl", dir));
}

std::string shipped_matrix(const std::string& op) { return source_dir() + "/matrices/host/" + op + "/baseline_matrix.yaml"; }

std::string plugin(const std::string& name, const std::string& library, const std::string& symbol) {
  return "  " + name + ": {enabled: true, entrypoint: \"" + library + ":" + symbol + "\", provider: plugin}\n";
}

std::string rmsnorm_matrix(const std::string& providers) {
  return "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32, bf16]\nreference_provider: naive\n"
         "layout_contract: row_major\nproviders:\n"
         "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n"
         "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
         "  cudnn: {enabled: false, provider: cudnn, skip_reason: \"no cuDNN on the host\"}\n" +
         providers;
}

// Every provider of tests/plugins/test_plugins.c that loads on the host and ends its cells (not
// the hanging, flaky or thread-leaving ones, which test the supervisor's clock).
std::string cheating_corpus() {
  std::string p;
  for (const char* name : {"correct", "wrong", "fail", "crash", "fp32_only", "cuda", "configurable", "base_struct",
                           "lazy", "drift", "same_pointer", "memo_pointer", "subset_rows", "touch_inputs",
                           "sniff_output"}) {
    p += plugin(name, CALIBER_TEST_PLUGIN, std::string("caliber_test_") + name);
  }
  return rmsnorm_matrix(p);
}

const std::vector<std::string> kRmsShapes = {"m=64,n=512,eps=1e-6", "m=13,n=256,eps=1e-5"};

TEST(PipelineGoldenShipped, HostRmsnorm) {
  run_scenario({"host_rmsnorm", "rmsnorm", "", kRmsShapes, "fp32,bf16,fp16", "", shipped_matrix("rmsnorm"), {}});
}

TEST(PipelineGoldenShipped, HostLayernorm) {
  run_scenario({"host_layernorm", "layernorm", "", kRmsShapes, "fp32,bf16,fp16", "", shipped_matrix("layernorm"), {}});
}

TEST(PipelineGoldenShipped, HostSoftmax) {
  run_scenario({"host_softmax", "softmax", "", {"m=64,n=512", "m=13,n=1000"}, "fp32,bf16,fp16", "",
                shipped_matrix("softmax"), {}});
}

TEST(PipelineGoldenShipped, HostGemm) {
  run_scenario({"host_gemm", "gemm", "", {"m=64,n=64,k=64", "m=13,n=40,k=24"}, "fp32,bf16", "", shipped_matrix("gemm"), {}});
}

TEST(PipelineGoldenCheats, UnderTheDefaults) {
  run_scenario({"cheaters_defaults", "rmsnorm", "", kRmsShapes, "fp32,bf16", cheating_corpus(), "", {}});
}

TEST(PipelineGoldenCheats, Cold) {
  run_scenario({"cheaters_cold", "rmsnorm", "", {"m=64,n=512,eps=1e-6"}, "fp32", cheating_corpus(), "",
                {"--eager-cache", "cold", "--kernel-only-cache", "cold"}});
}

TEST(PipelineGoldenCheats, WithSchedulesSwapped) {
  run_scenario({"cheaters_swapped", "rmsnorm", "", {"m=64,n=512,eps=1e-6"}, "fp32", cheating_corpus(), "",
                {"--kernel-only-schedule", "isolated", "--eager-schedule", "per_iter", "--graph-calls", "1"}});
}

TEST(PipelineGoldenCheats, WithTheChecksOff) {
  run_scenario({"cheaters_integrity_off", "rmsnorm", "", {"m=64,n=512,eps=1e-6"}, "fp32", cheating_corpus(), "",
                {"--integrity", "off"}});
}

TEST(PipelineGoldenUserOps, OutOfPlace) {
  const std::string example = std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_add_rmsnorm.so";
  const std::string description = source_dir() + "/examples/user_op/add_rmsnorm.op.yaml";
  std::string m = "schema_version: 1\nkernel: add_rmsnorm\nop_type: add_rmsnorm\nop_description: " + description +
                  "\ndtype: [fp32, bf16]\nreference_provider: twopass\nlayout_contract: row_major\nproviders:\n" +
                  plugin("twopass", example, "add_rmsnorm_twopass") + plugin("fused", example, "add_rmsnorm_fused");
  for (const char* c : {"skips_h", "wrong_h", "touch_input", "lazy"}) {
    m += plugin(c, CALIBER_TEST_USER_OP_PLUGIN, std::string("add_rmsnorm_test_") + c);
  }
  run_scenario({"user_op_add_rmsnorm", "add_rmsnorm", description, {"m=8,n=64,eps=1e-6", "m=33,n=100,eps=1e-5"},
                "fp32,bf16", m, "", {}});
}

TEST(PipelineGoldenUserOps, InPlace) {
  const std::string example = std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_sgd_momentum.so";
  const std::string description = source_dir() + "/examples/user_op/sgd_momentum.op.yaml";
  std::string m = "schema_version: 1\nkernel: sgd_momentum\nop_type: sgd_momentum\nop_description: " + description +
                  "\ndtype: [fp32, bf16]\nreference_provider: loop\nlayout_contract: row_major\nproviders:\n" +
                  plugin("loop", example, "sgd_momentum_loop");
  for (const char* c : {"lazy", "skips_momentum", "touches_grad"}) {
    m += plugin(c, CALIBER_TEST_INPLACE_OP_PLUGIN, std::string("sgd_momentum_test_") + c);
  }
  run_scenario({"user_op_sgd_momentum", "sgd_momentum", description, {"n=4096,lr=0.01,beta=0.9"}, "fp32,bf16", m, "",
                {}});
}

TEST(PipelineGoldenBench, OnTheHost) {
  const std::string dir = fresh_dir("golden_bench");
  const auto r = run_caliber({"bench", "--backend", "host", "--kernel", "all", "--size", "1MiB", "--schedule", "all",
                              "--cache", "all", "--iters", "8", "--warmup", "2", "--json", dir + "/bench.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(slurp(dir + "/bench.json"));
  std::vector<json> lines;
  for (const json& result : doc.at("results")) lines.push_back(project_bench_result(result, dir));
  expect_golden("bench_host", lines);
}

}  // namespace
}  // namespace caliber
