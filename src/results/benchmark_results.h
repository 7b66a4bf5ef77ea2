// The multi-shape results (benchmark_results.jsonl): one JSON object per line, one row per
// (shape_id, provider) cell of a run, kept whatever happened to the cell.
//
// The row's fields plus the full contract of each measurement; docs/runner.md documents
// every field, every status and which timing fields are null for which status. Rows are appended
// one at a time and fsynced (LineAppender), so a killed run loses no finished row.
// benchmark_results.csv is a flat projection (write_benchmark_results_csv).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliber/result.h"
#include "ops/correctness_check.h"

namespace caliber {

// 2: rows carry their integrity record and the status faster_than_physical exists. Version 1 rows
// are still read: their integrity is unknown (unverified).
inline constexpr int kBenchmarkResultsSchemaVersion = 2;
// The files of a run directory (caliber run --out DIR).
inline constexpr const char* kBenchmarkResultsFileName = "benchmark_results.jsonl";
inline constexpr const char* kBenchmarkResultsCsvFileName = "benchmark_results.csv";

enum class BenchmarkStatus {
  ok,              // correct and timed
  failed,          // the provider raised an error, the device failed, or the worker died or hung
  skipped,         // the provider could run the shape but this run chose not to (docs/runner.md)
  oom,             // inputs, outputs or workspace did not fit in device (or host) memory
  unsupported,     // the provider's supports() said no, with its reason
  incorrect,       // ran and was timed, but the output failed the correctness check
  not_configured,  // disabled in the baseline matrix, or not available in this build or backend
  // correct, but its time is below what the device's calibrated ceilings allow for its bytes or
  // flops (docs/integrity.md): not a result, excluded like an incorrect row
  faster_than_physical,
};

std::string_view to_string(BenchmarkStatus s);
// Unknown names throw UsageError listing the accepted values.
BenchmarkStatus parse_benchmark_status(std::string_view s);
const std::vector<BenchmarkStatus>& all_benchmark_statuses();

// How the kernel-only measurement of a cell failed, when it did (docs/runner.md, "When the
// kernel-only measurement fails"). The classes decide what the row may report.
enum class CaptureFailureClass {
  recoverable,         // capture refused the call and the device still works: the row's number
                       // is the eager median, and the row is never compared with kernel-only rows
  fatal_device_fault,  // the device faulted running the captured work: the cell failed, no number
  poisoned_context,    // the attempt left the device unusable although the eager measurement of
                       // the same call had worked: the cell failed, the worker is replaced, and
                       // capture is denied to the provider for the rest of the run
  capture_denied,      // not attempted: the provider poisoned the context earlier in this run;
                       // timed eagerly like a recoverable failure
};
std::string_view to_string(CaptureFailureClass c);
// Unknown names throw UsageError listing the accepted values.
CaptureFailureClass parse_capture_failure_class(std::string_view s);

struct CaptureFailure {
  CaptureFailureClass kind = CaptureFailureClass::recoverable;
  std::string detail;  // the error, with the contract it happened under
  friend bool operator==(const CaptureFailure&, const CaptureFailure&) = default;
};

// The configuration a provider that chooses one (cuBLASLt's algorithm, an autotuner's winner)
// ran with (docs/runner.md, "Configs recorded and replayed").
enum class ConfigPinning {
  recorded,              // chosen in this run; another run can replay it (--replay-configs)
  replayed,              // pinned to the config recorded in another run (`source`)
  not_in_replay_source,  // a replay was asked for, but its source recorded nothing for this
                         // cell: chosen afresh here, so not pinned
};
std::string_view to_string(ConfigPinning p);
// Unknown names throw UsageError listing the accepted values.
ConfigPinning parse_config_pinning(std::string_view s);

struct ProviderConfig {
  ConfigPinning pinning = ConfigPinning::recorded;
  std::string key;          // the provider's own text for the choice: what a replay pins
  std::string description;  // the choice for people ("algo 66 tile 256x128 stages 3")
  std::string source;       // replayed: the run_id it was recorded in; empty otherwise
  friend bool operator==(const ProviderConfig&, const ProviderConfig&) = default;
};

// Where a cell's wall time went, in milliseconds (docs/runner.md, "Where a cell's time goes").
// The phases add up to the cell's wall time.
struct CellPhases {
  double inputs_ms = 0;         // the shape's inputs built and copied to the device (its first cell only)
  double reference_ms = 0;      // the fp64 reference of the checked rows (per input set, once per shape)
  double correctness_ms = 0;    // the checked rows copied back and compared with the reference
  double untimed_check_ms = 0;  // the untimed verified call: poison, census of device work, scans
  double timing_ms = 0;         // inside the contracts: the measurements' own wall time, judging and draws excluded
  double other_ms = 0;          // the rest: provider preparation, checks between and after measurements
  double fresh_inputs_ms = 0;   // fresh input values drawn and outputs poisoned before each call (docs/integrity.md)
  friend bool operator==(const CellPhases&, const CellPhases&) = default;
};
// The phases by their JSON names ("inputs", "reference", ...), in the order rows write them.
struct CellPhaseField {
  const char* name;
  double CellPhases::*member;
};
const std::array<CellPhaseField, 7>& cell_phase_fields();

struct BenchmarkResultRow {
  std::string run_id;
  std::string shape_id;
  std::string op_type;
  std::string kernel_name;
  std::string dtype;
  nlohmann::json args = nlohmann::json::object();
  std::string provider;          // the baseline matrix's name for it
  std::string provider_detail;   // the implementation actually run (or why it is opaque)
  std::string candidate_commit;  // revision of the code under test
  std::string harness_version;   // caliber version (git revision, build type)

  std::string backend;           // host | cuda
  int device_index = 0;
  std::string gpu;               // device name
  std::string arch;
  std::string driver_version;
  std::string runtime_version;

  std::optional<bool> correct;                   // null when the provider did not run
  std::optional<std::string> correctness_error;  // why correct is false (or the run failed first)
  std::optional<CorrectnessCheck> correctness;   // the numbers behind `correct`

  std::int64_t warmup_iters = 0;  // untimed calls before the primary measurement
  std::int64_t repeat_iters = 0;  // samples of the primary measurement (0 when not timed)
  BenchmarkStatus benchmark_status = BenchmarkStatus::failed;
  std::optional<std::string> status_reason;  // why the status is not ok; null when ok

  // Microseconds. median_us is the PRIMARY number: the kernel-only median when measured, else
  // the eager median. graph_median_us is the kernel-only median when its schedule is graph.
  // host_overhead_us = eager_median_us - kernel-only median.
  std::optional<double> median_us;
  std::optional<double> eager_median_us;
  std::optional<double> graph_median_us;
  std::optional<double> host_overhead_us;
  std::optional<double> p10_us;  // of the primary measurement
  std::optional<double> p90_us;
  std::optional<std::string> timing_method;  // "kernel_only=event/graph/warm eager=event/per_iter/warm"
  std::optional<CaptureFailure> capture_failure;  // set when the kernel-only measurement failed or was denied
  std::optional<bool> stable;                // primary measurement: p90 / p10 <= 1.2
  std::optional<ProviderConfig> config;      // set when the provider chose a configuration

  bool includes_allocation = false;
  bool includes_layout_conversion = false;
  bool includes_jit = false;

  std::uint64_t bytes = 0;  // minimum bytes one call reads plus writes (docs/ops.md)
  std::uint64_t flops = 0;  // floating-point operations of one call (docs/ops.md)

  std::optional<Result> kernel_only;  // the full measurement: contract, summary, notes
  std::optional<Result> eager;
  std::optional<nlohmann::json> telemetry;  // device telemetry summary when the run had one

  double cell_wall_time_ms = 0;  // harness wall time spent on this cell, correctness included
  std::optional<CellPhases> cell_phases;  // absent in rows written before it was recorded, and in rows
                                          // of cells that never ran (skipped, unsupported, killed)
  std::string finished_at;       // UTC, ISO 8601 ("2026-11-29T12:00:00Z")

  // What was verified about the cell (docs/integrity.md): its measurements' records merged, with
  // the physical-bound check of the row.
  Integrity integrity;
};

// The measurement the row's timing fields (median_us, p10_us, p90_us, stable) come from:
// kernel-only when it was measured, else eager; null when neither was.
const Result* primary_measurement(const BenchmarkResultRow& row);
// The primary measurement's flags (caliber/result_flags.h): the row's "flags" field and column.
std::vector<std::string> row_flags(const BenchmarkResultRow& row);
// Why the row is not stable (instability_reason of the primary measurement); when no
// measurement is kept, from the row's p10/p90. Empty when the row is stable or never timed.
std::string row_instability_reason(const BenchmarkResultRow& row);

// The rules that tie a row's timing and correctness fields to its status (docs/runner.md), on
// what both the JSONL and the CSV hold. The first field that breaks one, with why; nothing when
// the row keeps them.
struct StatusFacts {
  BenchmarkStatus status = BenchmarkStatus::ok;
  std::optional<bool> correct;
  bool has_median = false;             // median_us is a number
  bool has_status_reason = false;      // status_reason is a non-empty text
  bool has_correctness_error = false;  // correctness_error is a text
};
std::optional<std::pair<std::string, std::string>> status_rule_violation(const StatusFacts& row);

}  // namespace caliber
