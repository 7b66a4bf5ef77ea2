// Preflight: named checks that run before anything is measured (docs/preflight.md). A failure
// prints "PREFLIGHT_FAILED check=<name>: <detail>" and the command exits 3, so a campaign never
// burns cells on a machine or an input that could not have produced a number.
//
// Every check reaches the machine through an interface (SharedLibraries, DeviceProbe, a
// validator callable), so tests make each one fail without breaking anything.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "caliber/contract.h"
#include "core/shared_library.h"
#include "device/device_probe.h"

namespace caliber {

struct PreflightOutcome {
  enum class Status { passed, failed, warning, not_applicable };
  Status status = Status::passed;
  std::string detail;

  static PreflightOutcome pass(std::string detail = {}) { return {Status::passed, std::move(detail)}; }
  static PreflightOutcome fail(std::string detail) { return {Status::failed, std::move(detail)}; }
  static PreflightOutcome warn(std::string detail) { return {Status::warning, std::move(detail)}; }
  static PreflightOutcome not_applicable(std::string detail) { return {Status::not_applicable, std::move(detail)}; }
};

struct PreflightCheck {
  std::string name;  // stable, printed as check=<name>
  std::function<PreflightOutcome()> run;
  // Name of an earlier check this one needs; when that check is in the same preflight and did not
  // pass, this one is not run. "" when none.
  std::string requires_passed;
};

struct PreflightRecord {
  std::string name;
  PreflightOutcome outcome;
};

// Runs every check in order (a check whose prerequisite failed is not run). Warnings are printed
// to `log` as "warning [preflight] check=<name>: <detail>". Throws PreflightError listing every
// failure; returns the records when none failed.
std::vector<PreflightRecord> run_preflight(const std::vector<PreflightCheck>& checks, std::ostream& log);

// --- The named checks -----------------------------------------------------------------------

// device_visible: the backend is compiled in and device `index` exists.
PreflightCheck check_device_visible(BackendKind backend, int index,
                                    std::function<std::vector<BackendAvailability>()> backends = available_backends);

// device_exclusive: no other compute process on the device. With allow_shared, processes found
// are a warning. When neither NVML nor nvidia-smi can list processes: a warning saying so.
// `device` is called only when the check runs (after device_visible passed).
PreflightCheck check_device_exclusive(std::function<DeviceInfo()> device, DeviceProbe& probe, bool allow_shared);

// <name>: one of `candidates` loads (dlopen). `why` says which part of the contract needs it.
PreflightCheck check_library_loadable(const std::string& name, const std::vector<std::string>& candidates,
                                      const std::string& why, SharedLibraries& libs);

// cupti_loadable when a contract uses instrument cupti; nvml_loadable when a cuda contract's
// throttle policy is discard or fail (throttling cannot be detected without NVML; with `flag`
// telemetry is evidence, not a requirement).
std::vector<PreflightCheck> checks_for_contract_libraries(const std::vector<Contract>& contracts,
                                                          SharedLibraries& libs);

// CUPTI's library names, most specific first.
const std::vector<std::string>& cupti_library_candidates();

struct PluginSpec {
  std::string provider;  // the matrix's provider name
  std::string path;      // shared library
  std::string symbol;    // entry symbol
  // ABI hook: given the open library and the entry symbol's address, returns "" when the plugin
  // speaks caliber's plugin ABI (include/caliber/plugin_abi.h), else the problem, phrased to
  // follow "provider <name> (<lib>:<symbol>): ". caliber run sets it to
  // providers::plugin_entry_problem; an empty function (caliber ab/screen, whose plugins are
  // whatever their cell program loads) checks load + symbol only and says "ABI version not checked".
  std::function<std::string(SharedLibraries& libs, void* handle, void* entry)> abi_check;
  // Where the plugin is named, printed first: "baseline_matrix.yaml:9: field
  // 'providers.mine.entrypoint': ". Empty for a command-line option.
  std::string origin;
  // How long loading it and calling its entry may take (caliber run's --start-timeout-s).
  double load_timeout_s = 300;
};

// plugin_loads: the library is a regular file, loads (RTLD_NOW), exports the symbol, and (when
// abi_check is set) has a matching ABI. All of it runs in a child process (call_in_child) within
// plugin.load_timeout_s: a library whose constructor, entry or destroy() exits, crashes, hangs or
// throws fails the check, with how the child ended.
PreflightCheck check_plugin_loads(const PluginSpec& plugin, SharedLibraries& libs);

// plugin_loads for a Python provider (entrypoint python:FILE.py:NAME): the file exists and is a
// readable regular file. The file is imported, and NAME looked up, by the Python worker that runs
// it (docs/python.md, "Python providers"), which reports what fails there as the run's error.
PreflightCheck check_python_provider_file(const std::string& provider, const std::string& path,
                                          const std::string& name, const std::string& origin);

struct InputFileSpec {
  std::string kind;  // "shape_ledger", "baseline_matrix", "side binary", ...
  std::string path;
  // Validation hook: throws (InputError names file, line, field) when the file is invalid.
  // Empty: existence and readability only.
  std::function<void(const std::string& path)> validate;
};

// input_valid: the file exists, is readable and validates.
PreflightCheck check_input_file(const InputFileSpec& input);

// output_writable: the directory exists or can be created, and a file can be created in it. With
// must_be_empty, an existing non-empty directory fails (a run directory holds one run).
PreflightCheck check_output_writable(const std::string& directory, bool must_be_empty);

// The checks every measuring command (bench, run) runs first: device_visible and
// device_exclusive (not for the host backend), and the libraries its contracts need.
std::vector<PreflightCheck> measurement_preflight_checks(BackendKind backend, int device_index,
                                                         const std::vector<Contract>& contracts,
                                                         bool allow_shared_device, DeviceProbe& probe,
                                                         SharedLibraries& libs);

}  // namespace caliber
