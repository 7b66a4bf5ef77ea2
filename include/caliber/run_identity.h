// Run identity: everything that decides what a run's numbers mean, written with every run as
// run_identity.json and compared before any two runs are compared (docs/identity.md).
//
// Which of these fields are the *caliber* (must match for a comparison), which are hazards
// (warned about) and which are informative is defined once, in identity_fields()
// (include/caliber/caliber_check.h). Nothing else restates that list.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "caliber/contract.h"
#include "caliber/device.h"

namespace caliber {

inline constexpr int kRunIdentitySchemaVersion = 1;
inline constexpr const char* kRunIdentityFileName = "run_identity.json";

// A file whose content changes what a run means: a provider library, a shape ledger, a matrix.
struct HashedFile {
  std::string role;    // the provider's name, "shape_ledger" or "baseline_matrix"
  std::string path;    // absolute path at the time of the run
  std::string sha256;  // of the file's bytes
  friend bool operator==(const HashedFile&, const HashedFile&) = default;
};

// The device's clocks when the run started. Known or "not available (reason)", never guessed.
struct ClocksAtStart {
  bool available = false;
  std::string source;     // "nvml", "sysfs cpufreq"
  std::string reason;     // why not available; empty when available
  int sm_clock_mhz = 0;   // current SM clock (host: current clock of cpu0), MHz
  int mem_clock_mhz = 0;  // current memory clock, MHz; 0 when the source has none
  friend bool operator==(const ClocksAtStart&, const ClocksAtStart&) = default;
};

struct DeviceProcess {
  std::int64_t pid = 0;
  std::string name;                    // executable name when known
  std::uint64_t used_memory_bytes = 0;  // device memory it holds; 0 when unknown
  friend bool operator==(const DeviceProcess&, const DeviceProcess&) = default;
};

// Other compute processes on the device when the run started (this process excluded).
struct DeviceProcesses {
  bool available = false;
  std::string source;  // "nvml", "nvidia-smi", "not applicable"
  std::string reason;  // why the list is not available, or why it does not apply
  std::vector<DeviceProcess> processes;
  friend bool operator==(const DeviceProcesses&, const DeviceProcesses&) = default;
};

// One contract a run measured under, with its role in the run: "kernel_only" and "eager" for the
// multi-shape runner, "<schedule>/<cache>" for caliber bench.
struct NamedContract {
  std::string role;
  Contract contract;
  friend bool operator==(const NamedContract&, const NamedContract&) = default;
};

// The harness that measured.
struct HarnessIdentity {
  std::string version;            // CALIBER_VERSION
  std::string git_revision;       // of the source it was built from
  std::string build_type;         // Release, Debug, ...
  std::string compiler;
  std::string executable_sha256;  // of the running binary; empty when it cannot be read
  friend bool operator==(const HarnessIdentity&, const HarnessIdentity&) = default;
};

// How `caliber run` drew and checked its rows: what a resume of the run must keep (absent for the
// other writers of an identity, and in identities written before it existed).
struct RunChecks {
  std::string integrity;       // "on", "fixed-inputs" or "off" (--integrity)
  std::uint64_t input_seed = 0;  // --seed, or drawn by the run's first session
  // "drawn" (kept nowhere: this file is readable by the code measured, and a resumed session
  // draws its own), or "sha256:<hex>" of a pinned --verification-seed's 16 hex digits.
  std::string verification_seed;
  friend bool operator==(const RunChecks&, const RunChecks&) = default;
};

struct RunIdentity {
  std::string run_id;                // unique per run: "<UTC time>-<8 hex>"
  std::string created_at;            // UTC, ISO 8601
  std::string hostname;
  std::vector<std::string> command;  // the argv that produced the run
  std::vector<std::string> outputs;  // files of this run, relative to the identity's directory
  DeviceInfo device;                 // backend, index, name, arch, uuid, driver and runtime, ...
  std::vector<NamedContract> contracts;
  ClocksAtStart clocks_at_start;
  DeviceProcesses device_processes_at_start;
  HarnessIdentity harness;
  std::vector<HashedFile> providers;         // each provider library loaded
  std::optional<HashedFile> shape_ledger;    // absent when the run had none
  std::optional<HashedFile> baseline_matrix;
  std::optional<RunChecks> run_checks;
  friend bool operator==(const RunIdentity&, const RunIdentity&) = default;
};

// The JSON projection (to_json, run_identity_from_json) is in caliber/run_identity_json.h.

// Written atomically (a killed run never leaves half an identity).
void write_run_identity(const std::string& path, const RunIdentity& identity);
RunIdentity read_run_identity(const std::string& path);

// Where the identity of a run lives (docs/identity.md, "Run directories"):
// - a directory: DIR/run_identity.json (caliber run --out DIR, caliber ab cells);
// - a results file FILE: the sidecar <dir>/<stem>.run_identity.json when it exists (caliber bench
//   --json FILE writes one), else <dir>/run_identity.json.
std::string run_identity_path_for(const std::string& run);
// The sidecar caliber bench writes for a results file: out/base.json -> out/base.run_identity.json.
std::string sidecar_identity_path(const std::string& results_file);

// The identity of a run, or nothing with *why_missing set ("no run_identity.json in DIR").
// A present but malformed identity is an InputError, never "missing".
std::optional<RunIdentity> find_run_identity(const std::string& run, std::string* why_missing);

}  // namespace caliber
