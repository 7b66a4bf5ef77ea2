// The measuring side of `caliber run`: for each shape, build the inputs once, then for each
// provider supports -> correctness -> eager and kernel-only measurements, one results row per
// provider whatever happens (runner/cell.h). Runs in the worker process (it owns the device).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "results/benchmark_results.h"
#include "integrity/device_ceilings.h"
#include "runner/bound_provider.h"
#include "runner/cell_context.h"
#include "runner/cell_failure.h"
#include "runner/config_replay.h"
#include "runner/result_rows.h"
#include "runner/run_plan.h"
#include "runner/shape_cells.h"
#include "runner/shape_chain.h"

namespace caliber::runner {

class ShapeRunner {
 public:
  ShapeRunner(Backend& backend, const RunPlan& plan, RunContracts contracts, const RunOptions& options,
              RowProvenance identity, std::vector<BoundProvider>& providers, CallHooks hooks = {});

  // Runs the named providers of `shape` in matrix order. Returns false when the device is no
  // longer usable (a sticky error): the caller must stop and let a fresh process continue.
  bool run(const ShapeRow& shape, const std::vector<std::string>& provider_names, const ShapeEvents& events);

  // Runs the shapes in order, each as run() does; the untimed calls of consecutive shapes share
  // one CUPTI trace, detached once before any of them is timed, while their buffers fit in 80% of
  // the device's memory (at most kMaxShapesPerTrace shapes: runner/shape_chain.h). Each shape's
  // rows come in matrix order, shape after shape. Returns false when the device is no longer
  // usable: shapes after that point may have no rows.
  bool run_shapes(const std::vector<ShapeJob>& jobs);

  // The device's calibrated ceilings for the physical-bound check (docs/integrity.md), when
  // `caliber calibrate` measured it: they refine the theoretical ones every runner starts with.
  void set_calibrated_ceilings(const DeviceCeilings* calibrated);

  // Providers denied graph capture (provider -> why): a provider that poisoned the context under
  // capture earlier in the run is timed eagerly, its rows marked capture_denied (docs/runner.md).
  void set_capture_denied(std::map<std::string, std::string> denied) { ctx_.capture_denied = std::move(denied); }

  // The run whose recorded configs the providers are pinned to (--replay-configs); nullopt: they
  // choose, and their rows record the choice.
  void set_config_replay(std::optional<ConfigReplaySource> source) { ctx_.config_replay = std::move(source); }

 private:
  CellContext ctx_;
  std::vector<BoundProvider>& providers_;
};

}  // namespace caliber::runner
