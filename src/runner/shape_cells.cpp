#include "runner/shape_cells.h"

#include <algorithm>

#include "ops/op_catalog.h"

namespace caliber::runner {
namespace {

ops::OpShape parse(const ShapeRow& shape) {
  return ops::parse_shape(shape.op_type, shape.dtype, shape.layout, shape.args, shape.shape_id, shape.line, "args");
}

}  // namespace

ShapeCells::ShapeCells(CellContext& ctx, std::vector<BoundProvider>& providers, const ShapeJob& job)
    : ctx_(ctx),
      providers_(providers),
      job_(job),
      shape_(parse(*job.shape)),
      inputs_(ctx.backend, shape_, shape_seeds(job.shape->shape_id, job.seed, job.verification_seed),
              ctx.described_reference),
      trace_bytes_(untimed_trace_bytes()),
      shares_trace_(trace_bytes_.has_value()) {}

bool ShapeCells::named(const BoundProvider& bp) const {
  return std::find(job_.providers.begin(), job_.providers.end(), bp.entry->name) != job_.providers.end();
}

// One measured provider is enough: its trace may be shared with the next shape's.
std::optional<std::uint64_t> ShapeCells::untimed_trace_bytes() const {
  if (!ctx_.options.integrity_checks || !ctx_.backend.observes_device_work()) return std::nullopt;
  std::size_t runnable = 0;
  for (const BoundProvider& bp : providers_) {
    runnable += !bp.not_configured && ctx_.plan.selected_provider(bp.entry->name) && named(bp);
  }
  if (runnable == 0) return std::nullopt;
  std::uint64_t in_bytes = 0;
  for (const ops::TensorSpec& t : inputs_.input_specs()) in_bytes += t.bytes();
  std::uint64_t out_bytes = 0;
  for (const ops::TensorSpec& t : inputs_.output_specs()) out_bytes += t.in_place_of ? 0 : t.bytes();
  const std::uint64_t need = 3 * in_bytes + runnable * out_bytes;
  const std::uint64_t have = ctx_.backend.device().memory_bytes;
  if (have > 0 && need > have / 5 * 4) return std::nullopt;
  return need;
}

void ShapeCells::run_untimed(SharedTrace& trace) {
  for (BoundProvider& bp : providers_) {
    if (!named(bp)) continue;
    if (!ctx_.healthy) break;
    if (job_.events.started) job_.events.started(bp.entry->name);
    cells_.push_back(std::make_unique<Cell>(ctx_, bp, *job_.shape, inputs_));
    Cell& c = *cells_.back();
    c.prepare();
    if (!c.done()) c.run_untimed(shares_trace_ ? &trace : nullptr);
    if (!c.done()) c.pause();
    shares_trace_ = shares_trace_ && !trace.refused();
    if (!shares_trace_) time_and_report();
  }
}

std::size_t ShapeCells::traced_cells() const {
  std::size_t n = 0;
  for (std::size_t i = reported_; i < cells_.size(); ++i) n += cells_[i]->traced();
  return n;
}

void ShapeCells::charge_trace_end(double ms_per_cell) {
  for (std::size_t i = reported_; i < cells_.size(); ++i) {
    if (cells_[i]->traced()) cells_[i]->charge_trace_end(ms_per_cell);
  }
}

void ShapeCells::time_and_report() {
  for (; reported_ < cells_.size(); ++reported_) {
    Cell& c = *cells_[reported_];
    if (!c.done()) {
      if (!ctx_.healthy) continue;
      if (job_.events.started) job_.events.started(c.provider());
      c.resume();  // the time it waited for the other untimed calls is not its own
      c.time();
    }
    if (c.done() && job_.events.finished) job_.events.finished(c.row());
  }
}

void ShapeCells::release_providers() {
  if (!ctx_.healthy) return;
  for (BoundProvider& bp : providers_) {
    if (bp.prepared_for != &shape_) continue;
    bp.impl->release();
    bp.prepared_for = nullptr;
  }
}

}  // namespace caliber::runner
