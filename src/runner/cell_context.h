// What every cell of a `caliber run` worker shares (a ShapeRunner owns it): the device, the plan
// and its options, what the worker set for the run, and whether the device still works.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "caliber/backend.h"
#include "integrity/device_ceilings.h"
#include "providers/described_reference.h"
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

struct CellContext {
  CellContext(Backend& b, const RunPlan& p, RunContracts c, const RunOptions& o, RowProvenance id, CallHooks h)
      : backend(b), plan(p), contracts(std::move(c)), options(o), identity(std::move(id)), hooks(std::move(h)) {}

  Backend& backend;
  const RunPlan& plan;
  RunContracts contracts;
  const RunOptions& options;
  RowProvenance identity;
  CallHooks hooks;
  // The ceilings of the physical-bound check (docs/integrity.md): the device's theoretical ones,
  // refined by its calibrated ones when the worker found them (integrity/bound_ceilings.h).
  DeviceCeilings ceilings;
  // Providers denied graph capture (provider -> why): timed eagerly, rows marked capture_denied.
  std::map<std::string, std::string> capture_denied;
  // The run whose recorded configs the providers are pinned to (--replay-configs).
  std::optional<ConfigReplaySource> config_replay;
  // A described op's reference provider, loaded at its first shape (docs/user-ops.md).
  std::unique_ptr<providers::DescribedReference> described_reference;
  // The device still works: a cell that loses it stops the shapes of its batch, and the worker
  // lets a fresh process run the next cells.
  bool healthy = true;
};

}  // namespace caliber::runner
