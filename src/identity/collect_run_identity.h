// Builds a run's identity from what the run knows (device, contracts, providers, inputs) and
// what the machine says now (clocks, other processes), hashing every file that changes meaning.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "caliber/run_identity.h"
#include "device/device_probe.h"

namespace caliber {

struct IdentityRequest {
  DeviceInfo device;
  std::vector<NamedContract> contracts;
  // (provider name, shared library path) of every provider library the run loads.
  std::vector<std::pair<std::string, std::string>> provider_libraries;
  std::optional<std::string> shape_ledger;     // path
  std::optional<std::string> baseline_matrix;  // path
  std::vector<std::string> command;            // empty: this process's command line
  std::vector<std::string> outputs;            // file names, relative to the identity's directory
  // The caliber executable the run is by; empty: this process's. A worker Python hosts runs
  // caliber from libcaliber_c.so and names the executable that started it.
  std::string harness_executable;
};

// Throws InputError when a named file cannot be hashed.
RunIdentity collect_run_identity(const IdentityRequest& request, DeviceProbe& probe);

// One NamedContract per distinct contract, role "<schedule>/<cache>" (caliber bench's combos).
std::vector<NamedContract> contracts_by_schedule_and_cache(const std::vector<Contract>& contracts);

// This process's argv, from /proc/self/cmdline (empty when unreadable).
std::vector<std::string> current_command_line();

// A run id: "<UTC time, compact>-<8 random hex digits>" ("20261129T120000Z-1a2b3c4d") from an ISO
// 8601 time ("2026-11-29T12:00:00Z"). Results rows and run_identity.json carry the same one.
std::string make_run_id(const std::string& created_at);

}  // namespace caliber
