// Results rows as JSON lines: the codec, the strict reader of a results file, fsynced appending.
#include "io/benchmark_results_json.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "caliber/dtype.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "core/arch_text.h"
#include "core/json_fields.h"
#include "core/jsonl.h"
#include "core/result_flags.h"
#include "ledger/shape_ledger.h"

namespace caliber {
namespace {

using nlohmann::json;

const std::set<std::string> kRowKeys = {
    "schema_version", "run_id", "shape_id", "op_type", "kernel_name", "dtype", "args", "provider",
    "provider_detail", "candidate_commit", "harness_version", "backend", "device_index", "gpu", "arch",
    "driver_version", "runtime_version", "correct", "correctness_error", "correctness", "warmup_iters",
    "repeat_iters", "benchmark_status", "status_reason", "median_us", "eager_median_us",
    "graph_median_us", "host_overhead_us", "p10_us", "p90_us", "timing_method", "capture_failure", "stable", "config", "flags",
    "includes_allocation", "includes_layout_conversion", "includes_jit", "bytes", "flops",
    "kernel_only", "eager", "telemetry", "cell_wall_time_ms", "cell_phases_ms", "finished_at", "integrity"};



const std::set<std::string> kCorrectnessKeys = {"rel_fro_error", "max_scaled_error", "nonfinite",
                                                "checked_rows", "total_rows", "tolerance_rel_fro",
                                                "rtol", "atol"};

template <typename T>
json nullable(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// A field that must be present, possibly null.
void require_present(const JsonFields& f, const char* key) {
  if (!f.has(key)) f.fail(key, "missing (null when it does not apply)");
}

json to_json(const CorrectnessCheck& c) {
  return json{{"rel_fro_error", c.rel_fro_error},     {"max_scaled_error", c.max_scaled_error},
              {"nonfinite", c.nonfinite},             {"checked_rows", c.checked_rows},
              {"total_rows", c.total_rows},           {"tolerance_rel_fro", c.tolerance_rel_fro},
              {"rtol", c.rtol},                       {"atol", c.atol}};
}

// JSON has no NaN or infinity: an error that is not finite is written as null and read back as
// +infinity (it failed the check either way).
json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json cell_phases_to_json(const CellPhases& p) {
  json j = json::object();
  for (const auto& [name, member] : cell_phase_fields()) j[name] = p.*member;
  return j;
}

CellPhases cell_phases_from_json(const JsonFields& f) {
  CellPhases p;
  for (const auto& item : f.json().items()) {
    const std::string& key = item.key();
    if (std::none_of(cell_phase_fields().begin(), cell_phase_fields().end(),
                     [&](const CellPhaseField& e) { return key == e.name; })) {
      f.fail(key, "unknown field");
    }
  }
  for (const auto& [name, member] : cell_phase_fields()) {
    // Rows written before the draws were recorded have no fresh_inputs phase.
    p.*member = std::string_view(name) == "fresh_inputs" ? f.opt_non_negative(name).value_or(0.0) : f.non_negative(name);
  }
  return p;
}

CorrectnessCheck correctness_from_json(const JsonFields& f) {
  f.refuse_unknown(kCorrectnessKeys);
  CorrectnessCheck c;
  c.rel_fro_error = f.opt_non_negative("rel_fro_error").value_or(INFINITY);
  c.max_scaled_error = f.opt_non_negative("max_scaled_error").value_or(INFINITY);
  require_present(f, "rel_fro_error");
  require_present(f, "max_scaled_error");
  c.nonfinite = f.integer("nonfinite");
  c.checked_rows = f.integer("checked_rows");
  c.total_rows = f.integer("total_rows");
  c.tolerance_rel_fro = f.non_negative("tolerance_rel_fro");
  c.rtol = f.non_negative("rtol");
  c.atol = f.non_negative("atol");
  return c;
}

void check_consistency(const BenchmarkResultRow& r, const JsonFields& f) {
  const BenchmarkStatus s = r.benchmark_status;
  const StatusFacts facts{r.benchmark_status, r.correct, r.median_us.has_value(),
                          r.status_reason && !r.status_reason->empty(), r.correctness_error.has_value()};
  if (const auto v = status_rule_violation(facts)) f.fail(v->first, v->second);
  if (r.median_us && !(*r.median_us >= 0)) f.fail("median_us", "must be >= 0");
  if (s == BenchmarkStatus::ok && r.integrity.failed()) {
    f.fail("integrity", "a failed integrity check cannot end ok: " + r.integrity.first_failure());
  }
  if (r.capture_failure) {
    const CaptureFailureClass k = r.capture_failure->kind;
    const bool no_number = k == CaptureFailureClass::fatal_device_fault || k == CaptureFailureClass::poisoned_context;
    if (no_number && s == BenchmarkStatus::ok) {
      f.fail("capture_failure", fmt::format("a {} kernel-only measurement cannot end ok", to_string(k)));
    }
    if (!no_number && r.kernel_only) {
      f.fail("capture_failure", fmt::format("{}: the row was timed eagerly, so kernel_only must be null", to_string(k)));
    }
  }
  if (s == BenchmarkStatus::faster_than_physical) {
    const IntegrityCheck* c = r.integrity.find(integrity_check::physically_possible);
    if (!c || c->outcome != CheckOutcome::failed) {
      f.fail("benchmark_status", "faster_than_physical needs a failed physically_possible integrity check");
    }
  }
}

std::optional<Result> measurement_from_json(const JsonFields& f, const char* key) {
  require_present(f, key);
  if (f.get(key).is_null()) return std::nullopt;
  return result_from_json(f.get(key), f.file(), f.line(), f.field_name(key));
}

}  // namespace

json to_json(const BenchmarkResultRow& r, bool with_samples) {
  json j = json::object();
  j["schema_version"] = kBenchmarkResultsSchemaVersion;
  j["run_id"] = r.run_id;
  j["shape_id"] = r.shape_id;
  j["op_type"] = r.op_type;
  j["kernel_name"] = r.kernel_name;
  j["dtype"] = r.dtype;
  j["args"] = r.args;
  j["provider"] = r.provider;
  j["provider_detail"] = r.provider_detail;
  j["candidate_commit"] = r.candidate_commit;
  j["harness_version"] = r.harness_version;
  j["backend"] = r.backend;
  j["device_index"] = r.device_index;
  j["gpu"] = r.gpu;
  j["arch"] = r.arch;
  j["driver_version"] = r.driver_version;
  j["runtime_version"] = r.runtime_version;
  j["correct"] = nullable(r.correct);
  j["correctness_error"] = nullable(r.correctness_error);
  if (r.correctness) {
    json c = to_json(*r.correctness);
    c["rel_fro_error"] = finite_or_null(r.correctness->rel_fro_error);
    c["max_scaled_error"] = finite_or_null(r.correctness->max_scaled_error);
    j["correctness"] = c;
  } else {
    j["correctness"] = nullptr;
  }
  j["warmup_iters"] = r.warmup_iters;
  j["repeat_iters"] = r.repeat_iters;
  j["benchmark_status"] = to_string(r.benchmark_status);
  j["status_reason"] = nullable(r.status_reason);
  j["median_us"] = nullable(r.median_us);
  j["eager_median_us"] = nullable(r.eager_median_us);
  j["graph_median_us"] = nullable(r.graph_median_us);
  j["host_overhead_us"] = nullable(r.host_overhead_us);
  j["p10_us"] = nullable(r.p10_us);
  j["p90_us"] = nullable(r.p90_us);
  j["timing_method"] = nullable(r.timing_method);
  if (r.capture_failure) {
    j["capture_failure"] = {{"class", to_string(r.capture_failure->kind)}, {"detail", r.capture_failure->detail}};
  }
  j["stable"] = nullable(r.stable);
  if (r.config) {
    j["config"] = {{"pinning", to_string(r.config->pinning)},
                   {"key", r.config->key},
                   {"description", r.config->description},
                   {"source", r.config->source.empty() ? json(nullptr) : json(r.config->source)}};
  }
  j["flags"] = row_flags(r);
  j["includes_allocation"] = r.includes_allocation;
  j["includes_layout_conversion"] = r.includes_layout_conversion;
  j["includes_jit"] = r.includes_jit;
  j["bytes"] = r.bytes;
  j["flops"] = r.flops;
  j["kernel_only"] = r.kernel_only ? to_json(*r.kernel_only, with_samples) : json(nullptr);
  j["eager"] = r.eager ? to_json(*r.eager, with_samples) : json(nullptr);
  j["telemetry"] = r.telemetry ? *r.telemetry : json(nullptr);
  j["cell_wall_time_ms"] = r.cell_wall_time_ms;
  if (r.cell_phases) j["cell_phases_ms"] = cell_phases_to_json(*r.cell_phases);
  j["finished_at"] = r.finished_at;
  j["integrity"] = to_json(r.integrity);
  return j;
}

BenchmarkResultRow benchmark_result_from_json(const json& j, const std::string& file, long line) {
  JsonFields f(j, file, line, "");
  f.refuse_unknown(kRowKeys);
  const std::int64_t version = f.integer("schema_version");
  if (version < 1 || version > kBenchmarkResultsSchemaVersion) {
    f.fail("schema_version", fmt::format("unsupported schema version {} (this caliber reads 1 to {})",
                                         version, kBenchmarkResultsSchemaVersion));
  }
  BenchmarkResultRow r;
  r.run_id = f.str("run_id");
  if (r.run_id.empty()) f.fail("run_id", "must not be empty");
  r.shape_id = f.str("shape_id");
  if (!is_shape_id(r.shape_id)) f.fail("shape_id", fmt::format("'{}' is not a shape id (sha1: and 16 hex digits)", r.shape_id));
  r.op_type = f.str("op_type");
  r.kernel_name = f.str("kernel_name");
  r.dtype = f.str("dtype");
  f.parse("dtype", [](const std::string& s) { return parse_dtype(s); });
  r.args = f.object("args").json();
  r.provider = f.str("provider");
  if (r.provider.empty()) f.fail("provider", "must not be empty");
  r.provider_detail = f.str("provider_detail");
  r.candidate_commit = f.str("candidate_commit");
  r.harness_version = f.str("harness_version");
  r.backend = f.str("backend");
  f.parse("backend", [](const std::string& s) { return parse_backend(s); });
  r.device_index = static_cast<int>(f.integer_in("device_index", 0, std::numeric_limits<int>::max()));
  r.gpu = f.str("gpu");
  r.arch = f.str("arch");
  if (const auto problem = arch_problem(r.arch)) f.fail("arch", *problem);
  r.driver_version = f.str("driver_version");
  r.runtime_version = f.str("runtime_version");
  require_present(f, "correct");
  r.correct = f.opt_boolean("correct");
  require_present(f, "correctness_error");
  r.correctness_error = f.opt_str("correctness_error");
  require_present(f, "correctness");
  if (!f.get("correctness").is_null()) r.correctness = correctness_from_json(f.object("correctness"));
  r.warmup_iters = f.integer("warmup_iters");
  r.repeat_iters = f.integer("repeat_iters");
  if (r.warmup_iters < 0) f.fail("warmup_iters", "must be >= 0");
  if (r.repeat_iters < 0) f.fail("repeat_iters", "must be >= 0");
  r.benchmark_status =
      f.parse("benchmark_status", [](const std::string& s) { return parse_benchmark_status(s); });
  require_present(f, "status_reason");
  r.status_reason = f.opt_str("status_reason");
  for (const char* key : {"median_us", "eager_median_us", "graph_median_us", "host_overhead_us",
                          "p10_us", "p90_us", "timing_method", "stable"}) {
    require_present(f, key);
  }
  r.median_us = f.opt_non_negative("median_us");
  r.eager_median_us = f.opt_non_negative("eager_median_us");
  r.graph_median_us = f.opt_non_negative("graph_median_us");
  r.host_overhead_us = f.opt_number("host_overhead_us");  // eager minus kernel-only: may be < 0
  r.p10_us = f.opt_non_negative("p10_us");
  r.p90_us = f.opt_non_negative("p90_us");
  r.timing_method = f.opt_str("timing_method");
  // Absent in rows without a kernel-only failure, and in rows written before it was recorded.
  if (f.has("capture_failure")) {
    const JsonFields cf = f.object("capture_failure");
    for (const auto& [key, value] : f.get("capture_failure").items()) {
      if (key != "class" && key != "detail") cf.fail(key, "unknown field");
    }
    r.capture_failure = CaptureFailure{
        cf.parse("class", [](const std::string& s) { return parse_capture_failure_class(s); }), cf.str("detail")};
    if (r.capture_failure->detail.empty()) cf.fail("detail", "must say what failed");
  }
  r.stable = f.opt_boolean("stable");
  // Absent in rows of providers that choose no configuration, and in rows written before it was
  // recorded.
  if (f.has("config")) {
    const JsonFields cf = f.object("config");
    for (const auto& [key, value] : f.get("config").items()) {
      if (key != "pinning" && key != "key" && key != "description" && key != "source") cf.fail(key, "unknown field");
    }
    ProviderConfig c;
    c.pinning = cf.parse("pinning", [](const std::string& s) { return parse_config_pinning(s); });
    c.key = cf.str("key");
    c.description = cf.str("description");
    c.source = cf.opt_str("source").value_or("");
    if (c.key.empty()) cf.fail("key", "must hold the provider's text for its choice");
    if (c.pinning == ConfigPinning::replayed && c.source.empty()) cf.fail("source", "a replayed config names the run it was recorded in");
    if (c.pinning != ConfigPinning::replayed && !c.source.empty()) {
      cf.fail("source", fmt::format("only a replayed config has a source (this one is {})", to_string(c.pinning)));
    }
    r.config = std::move(c);
  }
  r.includes_allocation = f.boolean("includes_allocation");
  r.includes_layout_conversion = f.boolean("includes_layout_conversion");
  r.includes_jit = f.boolean("includes_jit");
  const std::int64_t bytes = f.integer("bytes");
  const std::int64_t flops = f.integer("flops");
  if (bytes < 0) f.fail("bytes", "must be >= 0");
  if (flops < 0) f.fail("flops", "must be >= 0");
  r.bytes = static_cast<std::uint64_t>(bytes);
  r.flops = static_cast<std::uint64_t>(flops);
  r.kernel_only = measurement_from_json(f, "kernel_only");
  r.eager = measurement_from_json(f, "eager");
  // Derived from the primary measurement; absent in rows written before flags existed.
  if (f.has("flags") && f.strings("flags") != row_flags(r)) {
    f.fail("flags", "must be the flags of the primary measurement (kernel_only, else eager)");
  }
  require_present(f, "telemetry");
  if (!f.get("telemetry").is_null()) r.telemetry = f.object("telemetry").json();
  r.cell_wall_time_ms = f.non_negative("cell_wall_time_ms");
  if (f.has("cell_phases_ms")) r.cell_phases = cell_phases_from_json(f.object("cell_phases_ms"));
  r.finished_at = f.str("finished_at");
  if (version >= 2) {
    r.integrity = integrity_from_json(f.get("integrity"), file, line, "integrity");
  } else if (f.has("integrity")) {
    f.fail("integrity", "schema version 1 rows have no integrity record");
  }
  if (version < 2 && r.benchmark_status == BenchmarkStatus::faster_than_physical) {
    f.fail("benchmark_status", "faster_than_physical does not exist in schema version 1");
  }
  check_consistency(r, f);
  return r;
}

std::vector<BenchmarkResultRow> parse_benchmark_results(const std::string& text, const std::string& file) {
  std::vector<BenchmarkResultRow> rows;
  ResultCells cells(file);
  for_each_jsonl_row(text, file, [&](const json& value, long line) {
    BenchmarkResultRow r = benchmark_result_from_json(value, file, line);
    cells.add(r.run_id, r.shape_id, r.provider, line);
    rows.push_back(std::move(r));
  });
  return rows;
}

ResultCells::ResultCells(std::string file) : file_(std::move(file)) {}

void ResultCells::add(const std::string& run_id, const std::string& shape_id, const std::string& provider, long line) {
  if (run_id_.empty()) {
    run_id_ = run_id;
    first_line_ = line;
  } else if (run_id != run_id_) {
    throw InputError(file_, line, "run_id",
                     fmt::format("'{}' differs from run {} on line {}: a results file holds one run (two "
                                 "writers in one --out?)",
                                 run_id, run_id_, first_line_));
  }
  const auto [it, inserted] = seen_.emplace(shape_id + '\n' + provider, line);
  if (!inserted) {
    throw InputError(file_, line, "provider",
                     fmt::format("duplicate cell: shape {} provider {} already on line {}", shape_id, provider,
                                 it->second));
  }
}

void for_each_benchmark_result(const std::string& file,
                               const std::function<void(std::string_view text, BenchmarkResultRow row, long line)>& row) {
  ResultCells cells(file);
  for_each_jsonl_line(file, [&](std::string_view text, const json& value, long line) {
    BenchmarkResultRow r = benchmark_result_from_json(value, file, line);
    cells.add(r.run_id, r.shape_id, r.provider, line);
    row(text, std::move(r), line);
  });
}

std::vector<BenchmarkResultRow> read_benchmark_results(const std::string& file) {
  std::vector<BenchmarkResultRow> rows;
  for_each_benchmark_result(file, [&](std::string_view, BenchmarkResultRow r, long) { rows.push_back(std::move(r)); });
  return rows;
}

BenchmarkResultsAppender::BenchmarkResultsAppender(const std::string& file, bool with_samples)
    : appender_(file), with_samples_(with_samples) {}

void BenchmarkResultsAppender::append(const BenchmarkResultRow& row) {
  appender_.append(to_json(row, with_samples_).dump());
}

}  // namespace caliber
