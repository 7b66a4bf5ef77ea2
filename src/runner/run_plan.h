// What a run measures: the ledger's shapes of the op (filtered by stage, dtype, limit), the
// baseline matrix's providers, and the two contracts. Built identically by the parent and the
// worker, from the same options, without touching any device.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "matrix/baseline_matrix.h"
#include "caliber/contract.h"
#include "ledger/shape_ledger.h"
#include "ops/op_catalog.h"
#include "preflight/preflight.h"
#include "runner/run_options.h"

namespace caliber::runner {

struct RunPlan {
  ops::OpType op = ops::OpType::rmsnorm;  // OpType::described for an op of your own
  std::string op_name;                    // --op: a shipped op's name or the description's
  // The op of --op (set by make_run_plan; null only in a plan made by hand): a shipped op's
  // built-in description, or the matrix's op_description, registered.
  const ops::DescribedOp* described = nullptr;
  BaselineMatrix matrix;
  std::vector<ShapeRow> shapes;           // in ledger order
  std::vector<std::string> notices;       // what the filters left out, one line each
  std::set<std::string> selected;         // --providers; empty = all

  std::size_t cells() const { return shapes.size() * matrix.providers.size(); }
  bool selected_provider(const std::string& name) const { return selected.empty() || selected.count(name) > 0; }
};

// Checks the options (check_run_options, UsageError), reads and checks the ledger and the matrix
// (InputError), applies the filters. Loads no plugin and opens no device.
RunPlan make_run_plan(const RunOptions& options);

// The plugin_loads preflight of every enabled plugin provider of the matrix (docs/preflight.md):
// the library exists, loads, exports its entry and speaks this caliber's plugin ABI. A failure's
// detail starts with the matrix file, the provider's line and its entrypoint field. `backend`:
// the run's backend when --backend names one (a described op's cuda reference needs cuda).
// `load_timeout_s`: how long each plugin's load and entry may take (--start-timeout-s).
std::vector<PreflightCheck> plugin_preflight_checks(const RunPlan& plan, SharedLibraries& libs,
                                                    std::optional<BackendKind> backend = std::nullopt,
                                                    double load_timeout_s = 300);

// Where a worker's provider entry ("RESOLVED_FILE:NAME", as the worker is told it) is named:
// "matrix.yaml:9: field 'providers.mine.entrypoint': " or the description's reference field; ""
// when no enabled provider of the plan has that entry.
std::string worker_entry_origin(const RunPlan& plan, const std::string& entry);

// (provider name, resolved library path) of every enabled plugin provider, and of a described
// op's reference ("op_description.reference"): what the run identity and the host code fingerprint hash.
std::vector<std::pair<std::string, std::string>> plugin_libraries(const RunPlan& plan);

// The kernel-only and eager contracts of a run on `backend` (docs/runner.md):
//  cuda: kernel-only = event / graph / warm, eager = event / per_iter / warm;
//  host: kernel-only = wallclock / per_iter / warm, eager = wallclock / isolated / warm;
// both with the options' warmup and adaptive iteration rule; statistic median.
// graph_calls is a placeholder when auto_graph_calls (chosen per cell, see graph_calls_for).
// --graph-calls N: each captured call may have an input set of its own, so N is bounded.
inline constexpr std::int64_t kMaxGraphCalls = 4096;
struct RunContracts {
  Contract kernel_only;
  Contract eager;
  bool auto_graph_calls = true;
};
RunContracts make_run_contracts(const RunOptions& options, BackendKind backend);

// Auto graph_calls: the largest power of two <= 16 whose replay (graph_calls x the eager
// median) stays within 200 us; at least 1. Fewer calls per replay for slow kernels keep a cell's
// time bounded; 200 us keeps the replay launch (a few us) a small share of a sample.
std::int64_t graph_calls_for(double eager_median_us);

}  // namespace caliber::runner
