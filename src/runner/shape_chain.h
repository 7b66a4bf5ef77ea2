// Consecutive shapes whose untimed calls share one CUPTI trace (docs/runner.md, "Several shapes
// share the trace"): their cells' untimed calls run shape after shape under the trace, which ends
// once, before any of them is timed; then the shapes are timed and reported in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "caliber/backend.h"
#include "runner/shape_cells.h"
#include "runner/shared_trace.h"

namespace caliber::runner {

// How many consecutive shapes' untimed calls may share one CUPTI trace (docs/runner.md).
inline constexpr std::size_t kMaxShapesPerTrace = 8;

class ShapeChain {
 public:
  // `budget_bytes`: what the shapes' buffers may hold together (0: no limit known).
  ShapeChain(Backend& backend, std::uint64_t budget_bytes) : trace_(backend), budget_(budget_bytes) {}

  // Whether `shape` may join: the first shape always does; a later one when it shares the trace,
  // the chain holds fewer than kMaxShapesPerTrace shapes and its buffers fit beside theirs.
  bool admits(const ShapeCells& shape) const;
  bool full() const { return shapes_.size() >= kMaxShapesPerTrace; }
  // Runs the shape's untimed calls under the chain's trace (ShapeCells::run_untimed). False when
  // it did not share the trace (its cells were timed at once): the chain ends with it.
  bool add(std::unique_ptr<ShapeCells> shape);
  // Ends the trace, charges what that cost to the traced cells in equal parts, then times and
  // reports the shapes in order and releases what stayed prepared for them.
  void time_and_report();

 private:
  SharedTrace trace_;
  std::uint64_t budget_;
  std::uint64_t bytes_ = 0;  // what the shapes' untimed calls keep alive
  std::vector<std::unique_ptr<ShapeCells>> shapes_;
};

}  // namespace caliber::runner
