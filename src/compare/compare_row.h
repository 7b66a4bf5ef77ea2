// The comparable row: what `caliber compare` knows about one measured thing in one input file,
// whatever format it came from (caliber results JSON or CSV, nvbench JSON, google-benchmark JSON;
// caliber run's benchmark_results.jsonl rows map onto it the same way: name = op, params =
// {shape_id, provider}, value_us = median_us, status = benchmark_status/correct).
//
// Contract fields are kept as text so an importer can record exactly what its format says, and
// an empty text means "this format (or this old file) did not record it".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/benchmark_results.h"
#include "caliber/result.h"

namespace caliber::compare {

// The contract fields the gate checks before it compares two latencies: every field of
// core/contract_fields.h's table, as text keyed by the field's name. Importers set what their
// format records ("instrument" may be a clock the format names itself); the rest stays empty.
class ContractFields {
 public:
  ContractFields();  // nothing recorded
  // The field's text; empty: not recorded. Throws std::logic_error for a name the table lacks.
  std::string& operator[](std::string_view field);
  const std::string& operator[](std::string_view field) const;
  friend bool operator==(const ContractFields&, const ContractFields&) = default;

 private:
  std::vector<std::string> text_;  // one per contract_field_table() entry, in its order
};

// The contract fields of a caliber Contract, with caliber's names for every value; a field that
// does not apply to the contract (graph_calls outside graph) stays empty.
ContractFields contract_fields(const Contract& contract);

// One field that differs between two contracts ("schedule": "isolated" -> "graph").
struct ContractDifference {
  std::string field;
  std::string baseline;  // empty: not recorded
  std::string current;
};

// Field by field, in table order. A field empty on both sides is equal; empty on one side is a
// difference (a baseline whose contract was never recorded cannot vouch for its number).
std::vector<ContractDifference> contract_differences(const ContractFields& baseline,
                                                     const ContractFields& current);

// "schedule isolated→graph, warmup 10→5"; an unrecorded value reads "(unrecorded)".
std::string describe_differences(const std::vector<ContractDifference>& diffs);

// What happened to the measurement (the statuses of the results rows, docs/runner.md).
enum class RowStatus { ok, failed, skipped, oom, unsupported, incorrect, not_configured, faster_than_physical };
std::string_view to_string(RowStatus status);

struct CompareRow {
  std::string name;                                  // benchmark, kernel or op
  nlohmann::json params = nlohmann::json::object();  // axis values / shape selection
  std::string arch;           // "sm_90", "x86_64"; empty when the format records none
  bool arch_assumed = false;  // arch came from --assume-arch, not from the file
  std::string device_name;    // for display only
  ContractFields contract;
  std::optional<double> value_us;  // raw latency under contract.statistic; none: not recorded
  std::vector<double> samples_us;  // raw samples, when the file carries them
  std::int64_t n = 0;              // samples behind value_us (0 when unknown)
  RowStatus status = RowStatus::ok;
  std::string status_detail;       // error message, skip reason
  // What caliber verified about the number (docs/integrity.md): a verdict name, or empty when the
  // format records none (another tool's file, a caliber file older than integrity records).
  std::string integrity;
  std::string integrity_detail;    // the first failed check, or what could not be checked
  // The configuration the provider chose (caliber run rows' `config`: docs/runner.md, "Configs
  // recorded and replayed"); none for a provider that chooses none, and in other formats.
  std::optional<ProviderConfig> config;
  std::string run_id;  // the run the row was measured in (caliber run rows); empty when not recorded
  // Why the number is not stable, as the reports call it (core/result_flags.h,
  // instability_reason: "p90/p10 = 1.56 > 1.2"); empty when stable or when the format records no
  // stability.
  std::string unstable;

  // Where the row is in its file, for errors: line (0 when the format has none for rows) and
  // the field path of the row ("results[3]", "benchmarks[1].states[0]", "row").
  long line = 0;
  std::string origin;
  std::string arch_field;  // the field the architecture was read from ("results[3].device.arch")

  // The identity within a file: name, canonical params and the measurement variant
  // (quantity/instrument/schedule/cache), since one file may hold one kernel under several
  // contracts. Two rows of one file with the same key are a duplicate.
  std::string key() const;
  // name and params only: pairs a baseline row with a current row whose variant changed.
  std::string base_key() const;
  // "copy size_bytes=268435456 [event/per_iter/cold]" for tables.
  std::string label() const;
};

// Records an integrity record's verdict and its first failure (or why the outputs were not verified).
void set_integrity(CompareRow& row, const Integrity& integrity);

// A caliber result as a comparable row.
CompareRow row_from_result(const Result& result, std::string origin);

}  // namespace caliber::compare
