// Running Nsight Compute on one (shape, provider) cell, or recording why it was deferred.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "profile/profiler_gate.h"
#include "ledger/shape_ledger.h"

namespace caliber::profile {

struct ProfileRequest {
  std::string op_type;
  std::string shape_id;
  std::string provider;
  std::string shape_ledger;
  ShapeRow shape;               // the ledger's row of shape_id: the cell's one-shape ledger
  std::string baseline_matrix;
  std::string profiles_root;    // diagnoses go to profile_directory(profiles_root, shape_id, provider)
  std::string backend;          // "cuda" | "host"
  int device = 0;
  std::string cell_command;     // template (kProfileCellCommandTemplate unless overridden)
  std::string caliber_exe;      // what {caliber} expands to
  std::string ncu;              // the ncu executable; "" when none was found
  std::string ncu_missing;      // why there is none
  std::string provider_disabled;  // the matrix's skip_reason when the provider is disabled
};

// PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin. nullopt with *why set when none exists.
std::optional<std::string> find_ncu(std::string* why);

// The ncu command that profiles the cell (--clock-control none: clocks are never touched). The
// cell's scratch directory is <export_base's directory>/cell, its one-shape ledger
// <cell>/shape_ledger.jsonl.
std::vector<std::string> ncu_profile_command(const ProfileRequest& r, const std::string& export_base);

// Profiles the cell (or defers), writes diagnosis.json and the logs into the cell's directory, and
// returns the diagnosis.
ProfileDiagnosis run_profile(const ProfileRequest& r, std::ostream& log);

}  // namespace caliber::profile
