// One shape of a batch of `caliber run` (docs/runner.md, "The untimed calls of a shape"): its
// parsed arguments and inputs, and one cell per provider it names, in matrix order. Every cell's
// first stretch runs (its untimed call), then each is timed; the rows come in matrix order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/benchmark_results.h"
#include "ledger/shape_ledger.h"
#include "ops/op.h"
#include "runner/bound_provider.h"
#include "runner/cell.h"
#include "runner/cell_context.h"
#include "runner/shape_inputs.h"
#include "runner/shared_trace.h"

namespace caliber::runner {

struct ShapeEvents {
  std::function<void(const std::string& provider)> started;
  std::function<void(const BenchmarkResultRow& row)> finished;
};

// One shape of a batch of shapes (ShapeRunner::run_shapes): the providers to run and its events.
struct ShapeJob {
  const ShapeRow* shape = nullptr;
  std::vector<std::string> providers;
  ShapeEvents events;
  // The run's seeds (--seed, --verification-seed, or drawn by the parent), sent with the command.
  std::uint64_t seed = 0;
  std::uint64_t verification_seed = 0;
};

class ShapeCells {
 public:
  // Parses the job's shape (once: its cells, its inputs and its rows share it).
  ShapeCells(CellContext& ctx, std::vector<BoundProvider>& providers, const ShapeJob& job);
  ShapeCells(const ShapeCells&) = delete;
  ShapeCells& operator=(const ShapeCells&) = delete;

  // What its untimed calls keep alive at once when they share a trace (3 copies of the inputs and
  // an output set per measured provider), or nullopt when they would not share one: no tracer,
  // checks off, nothing to measure, or more than 80% of the device's memory.
  std::optional<std::uint64_t> trace_bytes() const { return trace_bytes_; }

  // The first stretch of each cell, in matrix order (a measured cell reports `started` here and
  // again when it is timed, so that the parent's cell timeout follows the cell that runs). While
  // the shape shares `trace` its cells wait to be timed; otherwise (or once the backend refused
  // the trace) each is timed and reported at once. Stops at a device that no longer works.
  void run_untimed(SharedTrace& trace);
  // Its cells wait to be timed: their untimed calls shared the trace.
  bool shares_trace() const { return shares_trace_; }
  // The cells whose untimed calls ran under the trace, and their part of what ending it cost.
  std::size_t traced_cells() const;
  void charge_trace_end(double ms_per_cell);
  // Times the cells still waiting and reports every row not reported yet, in matrix order. A
  // device that stopped working leaves the waiting cells unreported: a fresh process runs them.
  void time_and_report();
  // Releases the providers still prepared for this shape (a cell the device loss kept from being
  // timed), while the device works.
  void release_providers();

 private:
  bool named(const BoundProvider& bp) const;
  std::optional<std::uint64_t> untimed_trace_bytes() const;

  CellContext& ctx_;
  std::vector<BoundProvider>& providers_;
  const ShapeJob& job_;
  const ops::OpShape shape_;
  ShapeInputs inputs_;
  const std::optional<std::uint64_t> trace_bytes_;
  bool shares_trace_;
  std::vector<std::unique_ptr<Cell>> cells_;
  std::size_t reported_ = 0;  // cells_[0, reported_) have been reported (or dropped with the device)
};

}  // namespace caliber::runner
