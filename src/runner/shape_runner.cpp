#include "runner/shape_runner.h"

#include <memory>

#include "integrity/bound_ceilings.h"
#include "integrity/theoretical_ceilings.h"

namespace caliber::runner {

ShapeRunner::ShapeRunner(Backend& backend, const RunPlan& plan, RunContracts contracts, const RunOptions& options,
                         RowProvenance identity, std::vector<BoundProvider>& providers, CallHooks hooks)
    : ctx_(backend, plan, std::move(contracts), options, std::move(identity), std::move(hooks)),
      providers_(providers) {
  ctx_.ceilings = theoretical_ceilings(backend.device());
}

void ShapeRunner::set_calibrated_ceilings(const DeviceCeilings* calibrated) {
  ctx_.ceilings = refine_ceilings(theoretical_ceilings(ctx_.backend.device()), calibrated);
}

bool ShapeRunner::run(const ShapeRow& shape, const std::vector<std::string>& names, const ShapeEvents& events) {
  return run_shapes({ShapeJob{&shape, names, events, ctx_.options.seed, ctx_.options.verification_seed}});
}

// Chain after chain: a chain takes shape after shape while they share its trace and fit (a shape
// that does not fit starts the next chain), then times them all.
bool ShapeRunner::run_shapes(const std::vector<ShapeJob>& jobs) {
  ctx_.healthy = true;
  const std::uint64_t budget = ctx_.backend.device().memory_bytes / 5 * 4;
  std::unique_ptr<ShapeCells> next;  // parsed, not yet run
  std::size_t taken = 0;             // jobs made into shapes
  while (ctx_.healthy && (next || taken < jobs.size())) {
    ShapeChain chain(ctx_.backend, budget);
    for (;;) {
      if (!next) next = std::make_unique<ShapeCells>(ctx_, providers_, jobs[taken++]);
      if (!chain.admits(*next)) break;
      const bool shared = chain.add(std::move(next));
      if (!shared || !ctx_.healthy || taken >= jobs.size() || chain.full()) break;
    }
    chain.time_and_report();
  }
  return ctx_.healthy;
}

}  // namespace caliber::runner
