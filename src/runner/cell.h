// One cell of `caliber run`: a provider on a shape, one results row whatever happens (docs/runner.md).
// A cell runs in two stretches, with the untimed calls of its shape's other cells (and of the
// shapes sharing their trace) between them:
//   prepare()      supports -> inputs -> the provider prepared, its outputs allocated, the
//                  references of the checked rows, the checked subject (measure/checked_subject.h);
//   run_untimed()  the untimed verified call, under the shared trace when its shape takes part;
//   time()         the eager and kernel-only measurements, the physical bound, the verdict.
// Any of them may end the cell (done()): its row is then final. Its wall time counts its own
// stretches, not the wait between them (resume(), pause()).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/benchmark_results.h"
#include "caliber/measure.h"
#include "measure/checked_subject.h"
#include "providers/provider.h"
#include "runner/bound_provider.h"
#include "runner/cell_context.h"
#include "runner/input_lanes.h"
#include "runner/reference_judge.h"
#include "runner/shape_inputs.h"
#include "runner/shared_trace.h"

namespace caliber::runner {

class Cell {
 public:
  // The cell of `provider` (shared with the other shapes of the run) on `shape`, whose inputs
  // are `inputs`; its first stretch starts now.
  Cell(CellContext& ctx, BoundProvider& provider, const ShapeRow& shape, ShapeInputs& inputs);
  Cell(const Cell&) = delete;
  Cell& operator=(const Cell&) = delete;

  void prepare();
  // `trace`: the trace its shape's untimed calls share, or nullptr when its shape does not share one.
  void run_untimed(SharedTrace* trace);
  void time();

  bool done() const { return done_; }
  // Its untimed call ran under the shared trace (what ending it costs is charged to such cells).
  bool traced() const { return traced_; }
  const BenchmarkResultRow& row() const { return row_; }
  const std::string& provider() const { return bp_.entry->name; }

  // Starts and ends a stretch of its own wall time.
  void resume();
  void pause();
  // Adds its part of what ending the shared trace cost to its untimed check.
  void charge_trace_end(double ms);

 private:
  // prepare()
  bool admitted();
  std::optional<ProviderConfig> prepare_provider();
  void prepare_again();
  void allocate_outputs();
  integrity::Subject make_subject();
  void declare_buffers(integrity::Subject& subject) const;
  std::string judge(bool fresh);
  std::string judge_drawn(std::uint64_t seed);
  // time()
  void run_in_profiler_range();
  MeasureOptions measure_options() const;
  Result timed(const Contract& contract, const MeasureOptions& options);
  Contract kernel_only_contract() const;
  std::string measure_kernel_only(const Contract& ko, const MeasureOptions& options);
  std::string kernel_only_failed(const Contract& ko, const Failure& failure);
  void end_without_number(const Contract& ko, const std::string& failure);
  void record_numbers(const Contract& ko, const std::string& kernel_only_failure);
  void check_physical_bound();
  void record();
  // Either stretch
  void release();
  void fail(const std::exception& e);
  // The shape's input and verification seeds, into the integrity record (reproducible rows).
  void record_seeds();
  void finish(BenchmarkStatus status, std::optional<std::string> reason);
  // Judging and fresh-input draws so far: harness work inside a measurement's wall time.
  double judged_ms() const { return phases_.reference_ms + phases_.correctness_ms + phases_.fresh_inputs_ms; }

  CellContext& ctx_;
  BoundProvider& bp_;
  const ShapeRow& shape_row_;
  const ops::OpShape& shape_;
  ShapeInputs& inputs_;
  const std::uint64_t rows_seed_;  // the rows its checks compare (cell_rows_seed)
  BenchmarkResultRow row_;
  CellPhases phases_;
  bool provider_called_ = false;
  bool done_ = false;     // the row is final
  bool traced_ = false;   // its untimed call ran under the shared trace
  double spent_ms_ = 0;   // wall time of its finished stretches
  double resumed_ms_ = 0; // when its current stretch began
  std::vector<DeviceBuffer> outputs_;  // its own outputs (not those updated in place), in the op's order
  providers::OpBuffers buffers_;
  // With fresh inputs: the other input sets of a graph replay's calls (set 0 is buffers_).
  std::unique_ptr<InputLanes> lanes_;
  ReferenceJudge judge_;
  // The integrity record the row ends with (the measurements' records merged), also when a
  // measurement throws.
  Integrity integrity_;
  std::unique_ptr<measurement::CheckedSubject> checked_;
};

}  // namespace caliber::runner
