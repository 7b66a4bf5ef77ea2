// The profiler gate (docs/reports.md): for a hot shape whose kernel-only speedup against the best baseline
// is below 0.90, `caliber profile` runs Nsight Compute (ncu, clocks untouched) on that one
// (shape, provider) cell and stores its key metrics beside the results, or records why the
// profile was deferred. docs/reports.md ("Profiler gate").
//
// Layout: <profiles>/<shape id without "sha1:">/<provider>/diagnosis.json, with ncu's report
// (profile.ncu-rep), its raw CSV (ncu_raw.csv), logs and the command to reproduce (repro.sh).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace caliber {

inline constexpr int kProfileDiagnosisSchemaVersion = 1;

// The command ncu profiles: exactly one cell of the multi-shape runner (`caliber run`, through its
// worker process, as every cell runs). Placeholders: {caliber} (this executable), {op},
// {shape_ledger} (the ledger given to caliber profile), {cell_ledger} (a ledger of the one shape,
// which caliber profile writes into {cell_out}), {baseline_matrix}, {shape_id}, {provider},
// {device}, {cell_out} (a scratch directory, emptied first). The run measures the one shape for
// the one provider (--providers: the matrix's other providers get rows `skipped` without running),
// with a short contract: under ncu the cell's own timings mean nothing.
// ncu profiles only the kernels inside the NVTX range kProfileNvtxRange, so the runner must launch
// the provider's call inside it (docs/reports.md, "Profiler gate"); --cell-command overrides this.
inline constexpr std::string_view kProfileCellCommandTemplate =
    "{caliber} run --op {op} --shape-ledger {cell_ledger} --baseline-matrix {baseline_matrix} --backend cuda "
    "--device {device} --providers {provider} --out {cell_out} --warmup 1 --min-samples 6 --min-time-ms 0 "
    "--max-time-ms 1 --profile-range caliber_profile";

// The NVTX range that marks the profiled call.
inline constexpr std::string_view kProfileNvtxRange = "caliber_profile";

// The metrics ncu collects: time, DRAM traffic and throughput, SM throughput, occupancy, launch
// shape, registers, and local-memory traffic (register spills).
const std::vector<std::string>& profile_metrics();

struct ProfiledKernel {
  std::string name;
  std::map<std::string, double> metrics;      // metric -> value in ncu's base units
  std::map<std::string, std::string> units;   // metric -> unit ("nsecond", "byte", "%")
};

struct ProfileDiagnosis {
  std::string status;  // "profiled" | "deferred" | "failed"
  std::string reason;  // why deferred or failed; empty when profiled
  std::string op_type;
  std::string shape_id;
  std::string provider;
  std::string created_at;            // UTC, ISO 8601
  std::vector<std::string> command;  // the ncu command (empty when deferred before building it)
  std::vector<ProfiledKernel> kernels;

  // Sums over the kernels; nullopt when no kernel reported the metric(s).
  std::optional<double> total(const std::string& metric) const;
  // Local-memory load + store bytes (register spills), summed over kernels.
  std::optional<double> local_memory_bytes() const;
  // One line for reports: "profiled: 1 kernel, 12.3 us, DRAM 1.00 GiB, local memory 0 B" or
  // "deferred: ncu not found ...".
  std::string summary_line() const;
};

// <profiles>/<hex>/<provider>
std::string profile_directory(const std::string& profiles_root, const std::string& shape_id,
                              const std::string& provider);

std::string profile_diagnosis_json(const ProfileDiagnosis& d);
void write_profile_diagnosis(const std::string& file, const ProfileDiagnosis& d);
// Strict reader (InputError naming file and field).
ProfileDiagnosis read_profile_diagnosis(const std::string& file);
// The diagnosis of a cell when one exists under `profiles_root`, else nullopt.
std::optional<ProfileDiagnosis> find_profile_diagnosis(const std::string& profiles_root, const std::string& shape_id,
                                                       const std::string& provider);

// Parses `ncu --import R --csv --page raw --print-units base`: a header record (with "Kernel Name"),
// a units record, then one record per profiled kernel. Lines ncu prefixes with "==" are skipped;
// thousands separators are removed; "n/a" values are left out. InputError on a malformed table.
std::vector<ProfiledKernel> parse_ncu_raw_csv(const std::string& text, const std::string& file);

// Substitutes the placeholders of a cell-command template, token by token (a value with spaces
// stays one argument). Throws UsageError on an unknown placeholder.
std::vector<std::string> expand_cell_command(std::string_view templ, const std::map<std::string, std::string>& values);

}  // namespace caliber
