// benchmark_results.jsonl rows and their CSV projection: round trips, strict reading,
// status consistency, and the typed CSV reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "results/benchmark_results.h"
#include "caliber/errors.h"
#include "io/benchmark_results_json.h"
#include "io/benchmark_results_csv.h"

namespace caliber {
namespace {

Result measurement(Schedule schedule, double median) {
  Result r;
  r.name = "rmsnorm/caliber";
  r.contract = default_contract(BackendKind::cuda);
  r.contract.schedule = schedule;
  r.contract.cache = CachePolicy::warm;
  r.device.backend = BackendKind::cuda;
  r.device.name = "NVIDIA H200";
  r.summary.n = 40;
  r.summary.median_us = median;
  r.summary.p10_us = median * 0.98;
  r.summary.p90_us = median * 1.03;
  r.value_us = median;
  r.stable = true;
  r.stop_reason = "target precision reached";
  r.samples_us = {median, median};
  return r;
}

BenchmarkResultRow ok_row() {
  BenchmarkResultRow r;
  r.run_id = "run-1";
  r.shape_id = "sha1:72b18e806ceb3d6b";
  r.op_type = "rmsnorm";
  r.kernel_name = "rmsnorm";
  r.dtype = "bf16";
  r.args = {{"m", 4096}, {"n", 8192}, {"eps", 1e-6}};
  r.provider = "caliber";
  r.provider_detail = "block per row, 16-byte loads, registers";
  r.candidate_commit = "abc123";
  r.harness_version = "0.1.0 (abc123, Release)";
  r.backend = "cuda";
  r.gpu = "NVIDIA H200";
  r.arch = "sm_90";
  r.driver_version = "13.0";
  r.runtime_version = "13.0";
  r.correct = true;
  r.correctness = CorrectnessCheck{0.002, 0.4, 0, 4096, 4096, 0.01, 0.0156, 0.01};
  r.warmup_iters = 3;
  r.repeat_iters = 40;
  r.benchmark_status = BenchmarkStatus::ok;
  r.kernel_only = measurement(Schedule::graph, 20.0);
  r.eager = measurement(Schedule::per_iter, 24.5);
  r.median_us = 20.0;
  r.graph_median_us = 20.0;
  r.eager_median_us = 24.5;
  r.host_overhead_us = 4.5;
  r.p10_us = 19.6;
  r.p90_us = 20.6;
  r.timing_method = "kernel_only=event/graph/warm eager=event/per_iter/warm";
  r.stable = true;
  r.bytes = 134234112;
  r.flops = 134217728;
  r.cell_wall_time_ms = 120.5;
  r.finished_at = "2026-11-29T12:00:00Z";
  return r;
}

BenchmarkResultRow not_configured_row() {
  BenchmarkResultRow r = ok_row();
  r.provider = "cudnn";
  r.benchmark_status = BenchmarkStatus::not_configured;
  r.status_reason = "libcudnn.so.9 not found";
  r.correct.reset();
  r.correctness.reset();
  r.kernel_only.reset();
  r.eager.reset();
  r.median_us.reset();
  r.graph_median_us.reset();
  r.eager_median_us.reset();
  r.host_overhead_us.reset();
  r.p10_us.reset();
  r.p90_us.reset();
  r.timing_method.reset();
  r.stable.reset();
  r.warmup_iters = 0;
  r.repeat_iters = 0;
  return r;
}

std::string jsonl(const std::vector<BenchmarkResultRow>& rows) {
  std::string out;
  for (const auto& r : rows) out += to_json(r).dump() + "\n";
  return out;
}

std::string input_error(const std::string& text) {
  try {
    parse_benchmark_results(text, "benchmark_results.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return "";
}

std::string csv_error(const std::string& text) {
  try {
    parse_benchmark_results_csv(text, "r.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(BenchmarkResults, RoundTripsOkAndNotConfiguredRows) {
  const auto rows = parse_benchmark_results(jsonl({ok_row(), not_configured_row()}), "r.jsonl");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(to_json(rows[0]), to_json(ok_row()));
  EXPECT_EQ(to_json(rows[1]), to_json(not_configured_row()));
  ASSERT_TRUE(rows[0].kernel_only.has_value());
  EXPECT_EQ(rows[0].kernel_only->contract.schedule, Schedule::graph);
  EXPECT_EQ(rows[0].kernel_only->samples_us.size(), 2u);
  EXPECT_EQ(rows[1].status_reason, "libcudnn.so.9 not found");
}

TEST(BenchmarkResults, CellPhasesRoundTripAndAreStrict) {
  BenchmarkResultRow r = ok_row();
  r.cell_phases = CellPhases{12.5, 3.25, 0.5, 4.0, 96.0, 4.25, 1.5};
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["cell_phases_ms"].dump(),
            R"({"correctness":0.5,"fresh_inputs":1.5,"inputs":12.5,"other":4.25,"reference":3.25,"timing":96.0,)"
            R"("untimed_check":4.0})");
  const auto rows = parse_benchmark_results(j.dump() + "\n", "r.jsonl");
  ASSERT_TRUE(rows[0].cell_phases.has_value());
  EXPECT_EQ(*rows[0].cell_phases, *r.cell_phases);
  // Without fresh_inputs (rows written before the draws were recorded): read as 0.
  nlohmann::json older = j;
  older["cell_phases_ms"].erase("fresh_inputs");
  EXPECT_EQ(parse_benchmark_results(older.dump() + "\n", "r.jsonl")[0].cell_phases->fresh_inputs_ms, 0.0);
  // Absent (rows written before phases were recorded): read as none.
  EXPECT_FALSE(parse_benchmark_results(to_json(ok_row()).dump() + "\n", "r.jsonl")[0].cell_phases.has_value());
  auto edited = [&](std::function<void(nlohmann::json&)> edit) {
    nlohmann::json e = j;
    edit(e);
    return e.dump() + "\n";
  };
  EXPECT_NE(input_error(edited([](auto& e) { e["cell_phases_ms"]["timing"] = -1.0; })).find("'cell_phases_ms.timing'"),
            std::string::npos);
  EXPECT_NE(input_error(edited([](auto& e) { e["cell_phases_ms"]["gpu"] = 1.0; }))
                .find("'cell_phases_ms.gpu': unknown field"),
            std::string::npos);
  EXPECT_NE(input_error(edited([](auto& e) { e["cell_phases_ms"].erase("inputs"); }))
                .find("'cell_phases_ms.inputs': missing"),
            std::string::npos);
}

// A kernel-only measurement that failed or was not attempted (docs/runner.md): its class and
// detail round-trip; a class without a number cannot end ok, one timed eagerly has no kernel_only.
TEST(BenchmarkResults, CaptureFailuresRoundTripAndAgreeWithTheRow) {
  BenchmarkResultRow r = ok_row();
  r.kernel_only.reset();
  r.graph_median_us.reset();
  r.host_overhead_us.reset();
  r.median_us = 24.5;
  r.capture_failure = CaptureFailure{CaptureFailureClass::recoverable,
                                     "kernel-only event/graph/warm: graph capture: cudaErrorStreamCaptureUnsupported"};
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["capture_failure"].dump(),
            R"({"class":"recoverable","detail":"kernel-only event/graph/warm: graph capture: cudaErrorStreamCaptureUnsupported"})");
  const auto rows = parse_benchmark_results(j.dump() + "\n", "r.jsonl");
  ASSERT_TRUE(rows[0].capture_failure.has_value());
  EXPECT_EQ(*rows[0].capture_failure, *r.capture_failure);
  // Absent: no failure.
  EXPECT_FALSE(to_json(ok_row()).contains("capture_failure"));
  EXPECT_FALSE(parse_benchmark_results(jsonl({ok_row()}), "r.jsonl")[0].capture_failure.has_value());
  for (const char* name : {"recoverable", "fatal_device_fault", "poisoned_context", "capture_denied"}) {
    EXPECT_EQ(to_string(parse_capture_failure_class(name)), name);
  }
  auto edited = [&](std::function<void(nlohmann::json&)> edit) {
    nlohmann::json e = j;
    edit(e);
    return e.dump() + "\n";
  };
  EXPECT_NE(input_error(edited([](auto& e) { e["capture_failure"]["class"] = "flaky"; }))
                .find("unknown capture failure class 'flaky'"),
            std::string::npos);
  EXPECT_NE(input_error(edited([](auto& e) { e["capture_failure"]["detail"] = ""; }))
                .find("'capture_failure.detail': must say what failed"),
            std::string::npos);
  EXPECT_NE(input_error(edited([](auto& e) { e["capture_failure"]["phase"] = "replay"; }))
                .find("'capture_failure.phase': unknown field"),
            std::string::npos);
  // A fatal or poisoned attempt has no number: the row cannot be ok.
  for (const char* kind : {"fatal_device_fault", "poisoned_context"}) {
    const std::string msg = input_error(edited([&](auto& e) { e["capture_failure"]["class"] = kind; }));
    EXPECT_NE(msg.find(std::string("'capture_failure': a ") + kind + " kernel-only measurement cannot end ok"),
              std::string::npos)
        << msg;
  }
  // A row timed eagerly because of the failure has no kernel-only measurement.
  BenchmarkResultRow both = ok_row();
  both.capture_failure = CaptureFailure{CaptureFailureClass::capture_denied, "capture denied"};
  EXPECT_NE(input_error(jsonl({both})).find("capture_denied: the row was timed eagerly, so kernel_only must be null"),
            std::string::npos);
  // A failed row of a fatal class reads back.
  BenchmarkResultRow failed = r;
  failed.benchmark_status = BenchmarkStatus::failed;
  failed.status_reason = "kernel-only measurement: fatal_device_fault: cudaErrorIllegalAddress";
  failed.median_us.reset();
  failed.capture_failure->kind = CaptureFailureClass::fatal_device_fault;
  EXPECT_EQ(parse_benchmark_results(jsonl({failed}), "r.jsonl")[0].capture_failure->kind,
            CaptureFailureClass::fatal_device_fault);
}

TEST(BenchmarkResults, ConfigsRoundTripAndAreStrict) {
  BenchmarkResultRow r = ok_row();
  r.config = ProviderConfig{ConfigPinning::replayed, "panel=128", "panels of 128 columns", "20261203T060000Z-0a1b2c3d"};
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["config"].dump(),
            R"({"description":"panels of 128 columns","key":"panel=128","pinning":"replayed","source":"20261203T060000Z-0a1b2c3d"})");
  EXPECT_EQ(*parse_benchmark_results(j.dump() + "\n", "r.jsonl")[0].config, *r.config);
  BenchmarkResultRow recorded = ok_row();
  recorded.config = ProviderConfig{ConfigPinning::recorded, "panel=64", "", ""};
  const nlohmann::json jr = to_json(recorded);
  EXPECT_TRUE(jr["config"]["source"].is_null());
  EXPECT_EQ(*parse_benchmark_results(jr.dump() + "\n", "r.jsonl")[0].config, *recorded.config);
  // Absent: the provider chose nothing.
  EXPECT_FALSE(to_json(ok_row()).contains("config"));
  EXPECT_FALSE(parse_benchmark_results(jsonl({ok_row()}), "r.jsonl")[0].config.has_value());
  for (const char* name : {"recorded", "replayed", "not_in_replay_source"}) {
    EXPECT_EQ(to_string(parse_config_pinning(name)), name);
  }
  auto edited = [](const nlohmann::json& from, std::function<void(nlohmann::json&)> edit) {
    nlohmann::json e = from;
    edit(e);
    return e.dump() + "\n";
  };
  EXPECT_NE(input_error(edited(j, [](auto& e) { e["config"]["pinning"] = "pinned"; })).find("unknown config pinning 'pinned'"),
            std::string::npos);
  EXPECT_NE(input_error(edited(j, [](auto& e) { e["config"]["key"] = ""; }))
                .find("'config.key': must hold the provider's text for its choice"),
            std::string::npos);
  EXPECT_NE(input_error(edited(j, [](auto& e) { e["config"]["source"] = nullptr; }))
                .find("'config.source': a replayed config names the run it was recorded in"),
            std::string::npos);
  EXPECT_NE(input_error(edited(jr, [](auto& e) { e["config"]["source"] = "20261203T060000Z-0a1b2c3d"; }))
                .find("'config.source': only a replayed config has a source (this one is recorded)"),
            std::string::npos);
  EXPECT_NE(input_error(edited(j, [](auto& e) { e["config"]["algo"] = 7; })).find("'config.algo': unknown field"),
            std::string::npos);
}

TEST(BenchmarkResults, SamplesAreOptional) {
  const nlohmann::json j = to_json(ok_row(), /*with_samples=*/false);
  EXPECT_FALSE(j["kernel_only"].contains("samples_us"));
  const auto rows = parse_benchmark_results(j.dump() + "\n", "r.jsonl");
  EXPECT_TRUE(rows[0].kernel_only->samples_us.empty());
}

TEST(BenchmarkResults, NonFiniteErrorsAreWrittenAsNull) {
  BenchmarkResultRow r = ok_row();
  r.benchmark_status = BenchmarkStatus::incorrect;
  r.correct = false;
  r.status_reason = "output failed the correctness check";
  r.correctness_error = "12 non-finite outputs";
  r.correctness->rel_fro_error = INFINITY;
  r.correctness->nonfinite = 12;
  const auto j = to_json(r);
  EXPECT_TRUE(j["correctness"]["rel_fro_error"].is_null());
  const auto back = parse_benchmark_results(j.dump() + "\n", "r.jsonl");
  EXPECT_TRUE(std::isinf(back[0].correctness->rel_fro_error));
}

TEST(BenchmarkResults, StatusMustAgreeWithTheOtherFields) {
  struct Case {
    const char* field;
    std::function<void(BenchmarkResultRow&)> edit;
    const char* fragment;
  };
  const std::vector<Case> cases = {
      {"correct", [](auto& r) { r.correct = false; }, "must be true when benchmark_status is ok"},
      {"median_us", [](auto& r) { r.median_us.reset(); }, "must be a number when benchmark_status is ok"},
      {"status_reason", [](auto& r) { r.status_reason = "x"; }, "must be null when benchmark_status is ok"},
      {"status_reason", [](auto& r) { r.benchmark_status = BenchmarkStatus::failed; }, "must say why"},
      {"correct",
       [](auto& r) {
         r.benchmark_status = BenchmarkStatus::incorrect;
         r.status_reason = "x";
       },
       "must be false when benchmark_status is incorrect"},
      {"median_us",
       [](auto& r) {
         r.benchmark_status = BenchmarkStatus::unsupported;
         r.status_reason = "x";
         r.correct.reset();
       },
       "must be null when benchmark_status is unsupported"},
  };
  for (const Case& c : cases) {
    BenchmarkResultRow r = ok_row();
    c.edit(r);
    const std::string msg = input_error(jsonl({not_configured_row(), r}));
    EXPECT_NE(msg.find("benchmark_results.jsonl:2"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::string("'") + c.field + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.fragment), std::string::npos) << msg;
  }
}

TEST(BenchmarkResults, StrictReaderNamesTheField) {
  auto edited = [](std::function<void(nlohmann::json&)> edit) {
    nlohmann::json j = to_json(ok_row());
    edit(j);
    return j.dump() + "\n";
  };
  EXPECT_NE(input_error(edited([](auto& j) { j["benchmark_status"] = "great"; })).find("unknown benchmark status 'great'"),
            std::string::npos);
  EXPECT_NE(input_error(edited([](auto& j) { j.erase("median_us"); })).find("'median_us': missing"),
            std::string::npos);
  EXPECT_NE(input_error(edited([](auto& j) { j["surprise"] = 1; })).find("'surprise': unknown field"),
            std::string::npos);
  EXPECT_NE(input_error(edited([](auto& j) { j["kernel_only"]["contract"]["schedule"] = "loop"; }))
                .find("'kernel_only.contract.schedule'"),
            std::string::npos);
  EXPECT_NE(input_error(edited([](auto& j) { j["schema_version"] = 9; })).find("unsupported schema version 9"),
            std::string::npos);
}

TEST(BenchmarkResults, DuplicateCellsOfOneRunAreRefused) {
  const std::string msg = input_error(jsonl({ok_row(), not_configured_row(), ok_row()}));
  EXPECT_NE(msg.find("benchmark_results.jsonl:3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("already on line 1"), std::string::npos) << msg;
}

// Two writers on one --out left 24 rows for 12 cells under two run ids, and validate called the
// file valid: a results file holds one run.
TEST(BenchmarkResults, RowsOfTwoRunsAreRefused) {
  BenchmarkResultRow other_run = not_configured_row();
  other_run.run_id = "run-2";
  EXPECT_EQ(input_error(jsonl({ok_row(), other_run})),
            "benchmark_results.jsonl:2: field 'run_id': 'run-2' differs from run run-1 on line 1: a results file "
            "holds one run (two writers in one --out?)");
}

TEST(BenchmarkResults, ShapeIdsAndLatenciesAreChecked) {
  BenchmarkResultRow bad_id = ok_row();
  bad_id.shape_id = "sha1:NOT-AN-ID";
  EXPECT_EQ(input_error(jsonl({bad_id})),
            "benchmark_results.jsonl:1: field 'shape_id': 'sha1:NOT-AN-ID' is not a shape id (sha1: and 16 hex digits)");
  BenchmarkResultRow negative = ok_row();
  negative.eager_median_us = -1000;
  EXPECT_EQ(input_error(jsonl({negative})), "benchmark_results.jsonl:1: field 'eager_median_us': must be >= 0 (got -1000)");
  BenchmarkResultRow overhead = ok_row();
  overhead.host_overhead_us = -0.5;  // eager minus kernel-only: may be negative
  EXPECT_EQ(parse_benchmark_results(jsonl({overhead}), "r.jsonl").size(), 1u);
}

TEST(BenchmarkResults, AppenderWritesOneLinePerRow) {
  const auto dir = std::filesystem::temp_directory_path() / "caliber_test_results_append";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "benchmark_results.jsonl").string();
  {
    BenchmarkResultsAppender a(file, /*with_samples=*/false);
    a.append(ok_row());
    a.append(not_configured_row());
  }
  const auto rows = read_benchmark_results(file);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].provider, "cudnn");
  std::filesystem::remove_all(dir);
}

TEST(BenchmarkResultsCsv, ProjectsAndReadsBackTyped) {
  BenchmarkResultRow r = ok_row();
  r.provider_detail = "has, a comma and \"quotes\"";
  std::ostringstream out;
  write_benchmark_results_csv(out, {r, not_configured_row()});
  const auto rows = parse_benchmark_results_csv(out.str(), "benchmark_results.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["provider_detail"], "has, a comma and \"quotes\"");
  EXPECT_EQ(rows[0]["median_us"], 20.0);
  EXPECT_EQ(rows[0]["repeat_iters"], 40);
  EXPECT_EQ(rows[0]["correct"], true);
  EXPECT_EQ(rows[0]["kernel_only.schedule"], "graph");
  EXPECT_EQ(rows[0]["kernel_only.graph_calls"], 20);
  EXPECT_EQ(rows[0]["eager.schedule"], "per_iter");
  EXPECT_TRUE(rows[0]["eager.graph_calls"].is_null());
  EXPECT_EQ(rows[0]["args"], R"({"eps":1e-06,"m":4096,"n":8192})");
  EXPECT_TRUE(rows[1]["median_us"].is_null());
  EXPECT_TRUE(rows[1]["kernel_only.schedule"].is_null());
  EXPECT_EQ(rows[1]["benchmark_status"], "not_configured");
  EXPECT_EQ(rows[0].size(), benchmark_results_csv_columns().size());
}

TEST(BenchmarkResultsCsv, RefusesBadHeadersTruncatedRowsAndBadCells) {
  std::ostringstream out;
  write_benchmark_results_csv(out, {ok_row()});
  const std::string text = out.str();
  const auto error = csv_error;
  EXPECT_NE(error("run_id,oops\n").find("r.csv:1: field 'column 2'"), std::string::npos) << error("run_id,oops\n");
  const std::string truncated = text.substr(0, text.size() - 40);
  EXPECT_NE(error(truncated).find("r.csv:2"), std::string::npos) << error(truncated);
  std::string bad = text;
  bad.replace(bad.find(",40,"), 4, ",4x,");
  EXPECT_NE(error(bad).find("'repeat_iters': expected an integer >= 0, got '4x'"), std::string::npos) << error(bad);
  EXPECT_NE(error("").find("empty file"), std::string::npos);
}

// The CSV reader keeps the JSONL reader's rules: validate called each of these valid, and
// compare gated a NaN median as "same +nan%" and -1000 us as faster.
TEST(BenchmarkResultsCsv, IsAsStrictAsTheJsonlReader) {
  std::ostringstream out;
  write_benchmark_results_csv(out, {ok_row(), not_configured_row()});
  const std::string text = out.str();
  const auto error = csv_error;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  EXPECT_EQ(error(with(",20,24.5,", ",nan,24.5,")), "r.csv:2: field 'median_us': expected a finite number, got 'nan'");
  EXPECT_EQ(error(with(",20,24.5,", ",inf,24.5,")), "r.csv:2: field 'median_us': expected a finite number, got 'inf'");
  EXPECT_EQ(error(with(",20,24.5,", ",-1000,24.5,")), "r.csv:2: field 'median_us': expected a number >= 0, got '-1000'");
  EXPECT_EQ(error(with(",20,24.5,", ",1e400,24.5,")), "r.csv:2: field 'median_us': expected a finite number, got '1e400'");
  EXPECT_EQ(error(with("run-1,sha1:72b18e806ceb3d6b", "run-1,sha1:NOT-AN-ID")),
            "r.csv:2: field 'shape_id': 'sha1:NOT-AN-ID' is not a shape id (sha1: and 16 hex digits)");
  EXPECT_EQ(error(with(",median,", ",bogus_stat,")).substr(0, 45), "r.csv:2: field 'kernel_only.statistic': unkno");
  EXPECT_EQ(error(with(",cudnn,", ",caliber,")),
            "r.csv:3: field 'provider': duplicate cell: shape sha1:72b18e806ceb3d6b provider caliber already on line 2");
  EXPECT_EQ(error(with("\nrun-1,", "\nrun-2,")).substr(0, 60), "r.csv:3: field 'run_id': 'run-1' differs from run run-2 on l");
  EXPECT_EQ(error(with(",ok,,true,", ",ok,,false,")), "r.csv:2: field 'correct': must be true when benchmark_status is ok");
  EXPECT_EQ(error(text), "(accepted)");
}

// The config columns (since version 3 of the CSV): the provider's chosen configuration, empty for
// a provider that chooses none; read back typed and as strictly as the JSONL's `config`.
TEST(BenchmarkResultsCsv, ConfigColumnsRoundTrip) {
  BenchmarkResultRow replayed = ok_row();
  replayed.config = ProviderConfig{ConfigPinning::replayed, "panel=128", "panels of 128, columns", "run-0"};
  BenchmarkResultRow recorded = ok_row();
  recorded.provider = "tuned";
  recorded.config = ProviderConfig{ConfigPinning::recorded, "panel=64", "", ""};
  std::ostringstream out;
  write_benchmark_results_csv(out, {replayed, recorded, not_configured_row()});
  const std::vector<std::string>& columns = benchmark_results_csv_columns();
  EXPECT_EQ(std::vector<std::string>(columns.end() - 4, columns.end()),
            (std::vector<std::string>{"config.pinning", "config.key", "config.description", "config.source"}));
  const std::string text = out.str();
  EXPECT_NE(text.find(",replayed,panel=128,\"panels of 128, columns\",run-0\n"), std::string::npos) << text;
  EXPECT_NE(text.find(",recorded,panel=64,,\n"), std::string::npos) << text;
  const auto rows = parse_benchmark_results_csv(text, "benchmark_results.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["config.pinning"], "replayed");
  EXPECT_EQ(rows[0]["config.key"], "panel=128");
  EXPECT_EQ(rows[0]["config.description"], "panels of 128, columns");
  EXPECT_EQ(rows[0]["config.source"], "run-0");
  EXPECT_EQ(rows[1]["config.pinning"], "recorded");
  EXPECT_EQ(rows[1]["config.key"], "panel=64");
  EXPECT_TRUE(rows[1]["config.description"].is_null());
  EXPECT_TRUE(rows[1]["config.source"].is_null());
  for (const char* column : {"config.pinning", "config.key", "config.description", "config.source"}) {
    EXPECT_TRUE(rows[2][column].is_null()) << column;  // cudnn chooses nothing
  }
}

// `text` with the last `n` fields of every line (header included) removed: a CSV of an older
// version. The trailing fields of these rows hold no comma.
std::string without_last_fields(const std::string& text, std::size_t n) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    for (std::size_t i = 0; i < n; ++i) line.erase(line.rfind(','));
    out += line + "\n";
  }
  return out;
}

TEST(BenchmarkResultsCsv, FilesWrittenBeforeTheConfigOrIntegrityColumnsAreStillRead) {
  std::ostringstream out;
  write_benchmark_results_csv(out, {ok_row(), not_configured_row()});
  // Version 2: up to integrity_failure; version 1: up to finished_at.
  for (const std::size_t dropped : {4u, 6u}) {
    const std::string older = without_last_fields(out.str(), dropped);
    const std::string header = older.substr(0, older.find('\n'));
    EXPECT_TRUE(header.ends_with(dropped == 4 ? ",integrity,integrity_failure" : ",cell_wall_time_ms,finished_at"))
        << header;
    const auto rows = parse_benchmark_results_csv(older, "old.csv");
    ASSERT_EQ(rows.size(), 2u) << dropped;
    EXPECT_EQ(rows[0].size(), benchmark_results_csv_columns().size()) << dropped;
    EXPECT_TRUE(rows[0]["config.pinning"].is_null()) << dropped;
    EXPECT_TRUE(rows[0]["config.key"].is_null()) << dropped;
    EXPECT_EQ(rows[0]["median_us"], 20.0) << dropped;
    EXPECT_EQ(rows[0]["integrity"].is_null(), dropped == 6) << dropped;
  }
  // Any other width is a header of no version.
  const std::size_t width = benchmark_results_csv_columns().size();
  EXPECT_EQ(csv_error(without_last_fields(out.str(), 2)),
            "r.csv:1: field 'column " + std::to_string(width - 1) +
                "': header has '(nothing)' where benchmark_results.csv has 'config.description'");
}

TEST(BenchmarkResultsCsv, ConfigColumnsAreAsStrictAsTheJsonlConfig) {
  std::ostringstream out;
  write_benchmark_results_csv(out, {ok_row()});
  const std::string text = out.str();
  ASSERT_EQ(text.substr(text.size() - 5), ",,,,\n");  // no config: four empty cells
  auto with_config = [&](const std::string& cells) { return text.substr(0, text.size() - 5) + "," + cells + "\n"; };
  EXPECT_EQ(csv_error(with_config("recorded,panel=64,,")), "(accepted)");
  EXPECT_EQ(csv_error(with_config("pinned,panel=64,,")),
            "r.csv:2: field 'config.pinning': unknown config pinning 'pinned' (expected "
            "recorded|replayed|not_in_replay_source)");
  EXPECT_EQ(csv_error(with_config("recorded,,,")),
            "r.csv:2: field 'config.key': must hold the provider's text for its choice");
  EXPECT_EQ(csv_error(with_config("replayed,panel=64,,")),
            "r.csv:2: field 'config.source': a replayed config names the run it was recorded in");
  EXPECT_EQ(csv_error(with_config("recorded,panel=64,,run-0")),
            "r.csv:2: field 'config.source': only a replayed config has a source (this one is recorded)");
  EXPECT_EQ(csv_error(with_config(",panel=64,,")), "r.csv:2: field 'config.key': set without config.pinning");
}

}  // namespace
}  // namespace caliber
