// The measuring side of `caliber run`: for one shape, build the inputs once, then for each
// provider supports -> correctness -> eager and kernel-only measurements, one results row per
// provider whatever happens. Runs in the worker process (it owns the device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "caliber/benchmark_results.h"
#include "caliber/device_ceilings.h"
#include "providers/described_reference.h"
#include "providers/provider.h"
#include "runner/bound_provider.h"
#include "runner/cell_failure.h"
#include "runner/config_replay.h"
#include "runner/result_rows.h"
#include "runner/run_plan.h"

namespace caliber::runner {

// What the worker adds around a provider's untimed calls, per backend (none on the host).
struct CallHooks {
  // Sees the census of the untimed correctness call: the cuda worker records which kernels it
  // launched (code fingerprint, docs/screen.md).
  std::function<void(const DeviceWorkCensus& census)> on_census;
  // Runs one call inside the named profiler range (caliber profile). Empty: no range.
  std::function<void(const std::string& range, const std::function<void()>& call)> in_profiler_range;
};

struct ShapeEvents {
  std::function<void(const std::string& provider)> started;
  std::function<void(const BenchmarkResultRow& row)> finished;
};

// One shape of a batch of shapes (ShapeRunner::run_shapes): the providers to run and its events.
struct ShapeJob {
  const ShapeRow* shape = nullptr;
  std::vector<std::string> providers;
  ShapeEvents events;
};

// How many consecutive shapes' untimed calls may share one CUPTI trace (docs/runner.md).
inline constexpr std::size_t kMaxShapesPerTrace = 8;

class ShapeRunner {
 public:
  ShapeRunner(Backend& backend, const RunPlan& plan, RunContracts contracts, const RunOptions& options,
              RowProvenance identity, std::vector<BoundProvider>& providers, CallHooks hooks = {});

  // Runs the named providers of `shape` in matrix order. Returns false when the device is no
  // longer usable (a sticky error): the caller must stop and let a fresh process continue.
  bool run(const ShapeRow& shape, const std::vector<std::string>& provider_names, const ShapeEvents& events);

  // Runs the shapes in order, each as run() does; the untimed calls of consecutive shapes share
  // one CUPTI trace, detached once before any of them is timed, while their buffers fit in 80% of
  // the device's memory (at most kMaxShapesPerTrace shapes). Each shape's rows come in matrix
  // order, shape after shape. Returns false when the device is no longer usable: shapes after
  // that point may have no rows.
  bool run_shapes(const std::vector<ShapeJob>& jobs);

  // The device's calibrated ceilings for the physical-bound check (docs/integrity.md); without
  // them the check is recorded as not run, with `why_missing`.
  void set_device_ceilings(std::optional<DeviceCeilings> ceilings, std::string why_missing);

  // Providers denied graph capture (provider -> why): a provider that poisoned the context under
  // capture earlier in the run is timed eagerly, its rows marked capture_denied (docs/runner.md).
  void set_capture_denied(std::map<std::string, std::string> denied) { capture_denied_ = std::move(denied); }

  // The run whose recorded configs the providers are pinned to (--replay-configs); nullopt: they
  // choose, and their rows record the choice.
  void set_config_replay(std::optional<ConfigReplaySource> source) { config_replay_ = std::move(source); }

 private:
  struct UntimedChain;
  // What the shape's untimed calls keep alive at once (3 copies of the inputs and an output set
  // per measured provider), or nullopt when they would not share a trace (no tracer, checks off,
  // nothing to measure). `chained`: within a chain one measured provider is enough.
  std::optional<std::uint64_t> untimed_trace_bytes(const ShapeRow& shape, const std::vector<std::string>& names,
                                                   bool chained) const;
  bool run_one(const ShapeRow& shape, const std::vector<std::string>& provider_names, const ShapeEvents& events);

  Backend& backend_;
  const RunPlan& plan_;
  RunContracts contracts_;
  const RunOptions& options_;
  RowProvenance identity_;
  std::vector<BoundProvider>& providers_;
  CallHooks hooks_;
  std::optional<DeviceCeilings> ceilings_;
  std::string ceilings_missing_ = "no device ceilings were given";
  std::map<std::string, std::string> capture_denied_;
  std::optional<ConfigReplaySource> config_replay_;
  // A described op's reference provider, loaded at its first shape (docs/user-ops.md).
  std::unique_ptr<providers::DescribedReference> described_reference_;
  bool healthy_ = true;             // the device still works (shared by the shapes of a batch)
  UntimedChain* chain_ = nullptr;   // the trace the current shapes' untimed calls share
};

}  // namespace caliber::runner
