#include "runner/shape_chain.h"

namespace caliber::runner {

bool ShapeChain::admits(const ShapeCells& shape) const {
  if (shapes_.empty()) return true;
  const std::optional<std::uint64_t> need = shape.trace_bytes();
  return !full() && need && (budget_ == 0 || bytes_ + *need <= budget_);
}

bool ShapeChain::add(std::unique_ptr<ShapeCells> shape) {
  bytes_ += shape->trace_bytes().value_or(0);
  shapes_.push_back(std::move(shape));
  ShapeCells& added = *shapes_.back();
  added.run_untimed(trace_);
  return added.shares_trace();
}

void ShapeChain::time_and_report() {
  const double end_ms = trace_.end();  // nothing is timed under the trace
  std::size_t traced = 0;
  for (const auto& s : shapes_) traced += s->traced_cells();
  for (const auto& s : shapes_) {
    if (traced > 0) s->charge_trace_end(end_ms / static_cast<double>(traced));
  }
  for (const auto& s : shapes_) s->time_and_report();
  for (const auto& s : shapes_) s->release_providers();
}

}  // namespace caliber::runner
