// A cell's first stretch (prepare, run_untimed) and how any stretch ends; its measurements are in
// runner/cell_timing.cpp.
#include "runner/cell.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/utc_time.h"
#include "runner/config_replay.h"
#include "runner/wall_clock.h"

namespace caliber::runner {

Cell::Cell(CellContext& ctx, BoundProvider& provider, const ShapeRow& shape, ShapeInputs& inputs)
    : ctx_(ctx),
      bp_(provider),
      shape_row_(shape),
      shape_(inputs.shape()),
      inputs_(inputs),
      rows_seed_(cell_rows_seed(inputs.seeds(), provider.entry->name)),
      judge_(ctx.backend, inputs) {
  resumed_ms_ = now_ms();
  row_ = base_row(ctx_.identity, shape_row_, shape_, provider.entry->name);
}

void Cell::resume() { resumed_ms_ = now_ms(); }

void Cell::pause() { spent_ms_ += now_ms() - resumed_ms_; }

void Cell::charge_trace_end(double ms) {
  phases_.untimed_check_ms += ms;
  spent_ms_ += ms;
}

void Cell::prepare() {
  if (!admitted()) return;
  phases_.inputs_ms = inputs_.build_once();
  if (!inputs_.ready()) {
    if (inputs_.device_lost()) ctx_.healthy = false;  // one device: the shape's and its batch's next cells stop
    finish(inputs_.failure()->status, inputs_.failure()->reason);
    return;
  }
  record_seeds();
  try {
    provider_called_ = true;
    const std::optional<ProviderConfig> pinned = prepare_provider();
    providers::Provider& p = *bp_.impl;
    row_.provider_detail = p.detail(shape_);  // after prepare: e.g. the algorithm a library picked
    std::string refusal;
    row_.config = row_config(p.chosen_config(), pinned, ctx_.config_replay.has_value(), &refusal);
    if (!refusal.empty()) throw providers::ConfigRefused(refusal);
    allocate_outputs();
    // The fp64 references of the checked rows, before the untimed call: the description says
    // where they were computed, and no reference work runs inside a measurement. The fresh set
    // is judged only when the integrity checks are on.
    inputs_.select_rows(rows_seed_);
    phases_.reference_ms += inputs_.ensure_reference(inputs_.original());
    if (inputs_.fresh().present() && ctx_.options.integrity_checks) {
      phases_.reference_ms += inputs_.ensure_reference(inputs_.fresh());
    }
    checked_ = std::make_unique<measurement::CheckedSubject>(ctx_.backend, make_subject());
  } catch (const std::exception& e) {
    fail(e);
  }
}

// The checks that end a cell before any provider call: not configured, not selected, a layout
// the matrix does not hold, a shape the provider does not support.
bool Cell::admitted() {
  if (bp_.not_configured) {
    row_.provider_detail = bp_.entry->provider;
    finish(BenchmarkStatus::not_configured, *bp_.not_configured);
    return false;
  }
  providers::Provider& p = *bp_.impl;
  const providers::ProviderFlags flags = p.flags();
  row_.includes_allocation = flags.includes_allocation;
  row_.includes_layout_conversion = flags.includes_layout_conversion;
  row_.includes_jit = flags.includes_jit;
  row_.provider_detail = p.detail(shape_);
  if (!ctx_.plan.selected_provider(provider())) {
    finish(BenchmarkStatus::skipped, "not selected for this run (--providers)");
    return false;
  }
  if (shape_row_.layout != ctx_.plan.matrix.layout_contract) {
    finish(BenchmarkStatus::unsupported, fmt::format("layout {} differs from the matrix's layout_contract {}",
                                                     shape_row_.layout, ctx_.plan.matrix.layout_contract));
    return false;
  }
  const providers::Support support = p.supports(shape_);
  if (support.kind == providers::Support::Kind::unsupported) {
    finish(BenchmarkStatus::unsupported, support.reason);
    return false;
  }
  if (support.kind == providers::Support::Kind::skipped) {
    finish(BenchmarkStatus::skipped, support.reason);
    return false;
  }
  return true;
}

// Prepares the provider for this shape, pinned to the config a replay recorded for the cell
// (runner/config_replay.h); released first when still prepared for another shape (the shapes of
// a chain share the provider objects). Returns the pinned config.
std::optional<ProviderConfig> Cell::prepare_provider() {
  std::optional<ProviderConfig> pinned;
  if (ctx_.config_replay) pinned = pinned_config_for(*ctx_.config_replay, shape_row_.shape_id, provider());
  if (bp_.prepared_for) bp_.impl->release();
  bp_.impl->pin_config(pinned ? std::optional<std::string>(pinned->key) : std::nullopt);
  bp_.impl->prepare(shape_, ctx_.backend);
  bp_.prepared_for = &shape_;
  return pinned;
}

// An output updated in place is its input's working buffer (docs/user-ops.md, "In-place
// outputs"): the providers and the checks see one buffer, restored before each verified call.
void Cell::allocate_outputs() {
  for (const ops::TensorSpec& t : inputs_.output_specs()) {
    if (t.in_place_of) {
      buffers_.outputs.push_back(inputs_.working().at(*t.in_place_of).get());
    } else {
      outputs_.emplace_back(ctx_.backend, t.bytes());
      buffers_.outputs.push_back(outputs_.back().get());
    }
  }
  for (const DeviceBuffer& b : inputs_.working()) buffers_.inputs.push_back(b.get());
  buffers_.output = buffers_.outputs.front();
}

integrity::Subject Cell::make_subject() {
  integrity::Subject subject;
  subject.call = [this](const LaunchContext& launch) {
    bp_.impl->run(shape_, lanes_ ? lanes_->buffers(launch.rotation, buffers_) : buffers_, launch.stream);
  };
  declare_buffers(subject);
  subject.judge = [this](bool fresh) { return judge(fresh); };
  subject.judge_description = inputs_.judge_description();
  if (inputs_.fresh().present()) subject.load_fresh_inputs = [this] { inputs_.load(inputs_.fresh()); };
  subject.restore_inputs = [this] { inputs_.load(inputs_.original()); };
  if (!ctx_.options.fresh_inputs) {
    subject.fixed_inputs_reason = "--integrity fixed-inputs (to measure what fresh inputs and audits cost)";
  } else if (!inputs_.updates_in_place()) {
    lanes_ = std::make_unique<InputLanes>(ctx_.backend, inputs_, subject.buffers.outputs);
    subject.input_sets = [this](std::size_t sets) { return lanes_->resize(sets); };
    subject.draw_inputs = [this](std::uint64_t seed) {
      const double from = now_ms();
      inputs_.draw_working(seed);
      lanes_->draw(seed);
      phases_.fresh_inputs_ms += now_ms() - from;
    };
    subject.judge_drawn = [this](std::uint64_t seed) { return judge_drawn(seed); };
  }
  if (ctx_.hooks.on_census) subject.on_census = ctx_.hooks.on_census;
  subject.checks = ctx_.options.integrity_checks;
  return subject;
}

// The outputs, the buffers updated in place, and the inputs that are only read.
void Cell::declare_buffers(integrity::Subject& subject) const {
  const std::vector<ops::TensorSpec>& outs = inputs_.output_specs();
  std::vector<bool> updated_in_place(inputs_.working().size(), false);
  // Scanned for the poison in their dtype: the shape dtypes' (NaN), unless the inputs may hold
  // non-finite values (then a NaN may be a result).
  const std::string unscanned = inputs_.unscanned_outputs_reason();
  subject.buffers.unscanned_reason = unscanned;
  const auto scanned = [&](const ops::TensorSpec& t) {
    return unscanned.empty() ? shape_dtype_of(t.element) : std::nullopt;
  };
  bool whole = true;  // the judge compares every element of every unscanned output
  for (std::size_t k = 0; k < outs.size(); ++k) whole = whole && (scanned(outs[k]) || inputs_.compared_whole(k));
  if (whole) {
    subject.buffers.unscanned_judged_whole =
        "every element of each output without a NaN poison is compared with the reference after each verified call "
        "(its poison, 0xFF bytes, fails unless the reference holds that value there)";
  }
  for (std::size_t k = 0; k < outs.size(); ++k) {
    BufferRef ref{outs[k].name, buffers_.outputs[k], outs[k].bytes(), scanned(outs[k])};
    if (outs[k].in_place_of) {
      updated_in_place.at(*outs[k].in_place_of) = true;
      subject.buffers.in_place.push_back(std::move(ref));
    } else {
      subject.buffers.outputs.push_back(std::move(ref));
    }
  }
  for (std::size_t k = 0; k < inputs_.working().size(); ++k) {
    if (updated_in_place[k]) continue;
    const DeviceBuffer& b = inputs_.working()[k];
    subject.buffers.inputs.push_back({inputs_.input_specs()[k].name, b.get(), b.bytes(), shape_dtype_of(inputs_.input_specs()[k].element)});
  }
}

// The subject's judge: the outputs against the original or the fresh set's reference; the row
// keeps the first check's numbers, or the first failing one's.
std::string Cell::judge(bool fresh) {
  InputSet& set = fresh ? inputs_.fresh() : inputs_.original();
  inputs_.select_rows(rows_seed_);  // the shape's other cells judge theirs in between
  phases_.reference_ms += inputs_.ensure_reference(set);  // already there, unless another cell's rows replaced it
  const double from = now_ms();
  const Judgement judgement = judge_.judge(set, buffers_.outputs);
  phases_.correctness_ms += now_ms() - from;
  keep_in_row(row_.correctness, judgement);
  return judgement.failure;
}

// The judge of an audited timed call: its outputs against the reference of the inputs drawn for it.
void Cell::record_seeds() {
  integrity_.verification_seed = rows_seed_;
  integrity_.input_seed = inputs_.seeds().inputs;
}

// With one input set per call of a graph replay: every set is scanned for the poison, and one,
// picked from the seed, is judged.
std::string Cell::judge_drawn(std::uint64_t seed) {
  if (std::string skipped = lanes_->nonfinite(); !skipped.empty()) return skipped;
  const std::size_t k = lanes_->picked(seed);
  double reference_ms = 0;
  InputSet& set = inputs_.audit_set(lanes_->seed_of(seed, k), reference_ms);
  phases_.reference_ms += reference_ms;
  const double from = now_ms();
  const Judgement judgement = judge_.judge(set, lanes_->buffers(k, buffers_).outputs);
  phases_.correctness_ms += now_ms() - from;
  keep_in_row(row_.correctness, judgement);
  return judgement.failure;
}

void Cell::run_untimed(SharedTrace* trace) {
  try {
    if (trace) trace->hold();
    const double from = now_ms();
    const double judged_before = judged_ms();
    checked_->run_untimed_check();
    phases_.untimed_check_ms = std::max(0.0, now_ms() - from - (judged_ms() - judged_before));
    traced_ = trace && trace->on();
    integrity_ = checked_->untimed_integrity();
    record_seeds();
  } catch (const std::exception& e) {
    fail(e);
  }
}

void Cell::release() {
  lanes_.reset();
  outputs_.clear();
  bp_.impl->release();
  bp_.prepared_for = nullptr;
}

// Every way a cell can end in an exception, in either stretch (runner/cell_failure.h).
void Cell::fail(const std::exception& e) {
  const Failure f = classify_failure(e);
  if (f.recheck_device()) ctx_.healthy = device_healthy(ctx_.backend);
  release();
  if (f.kind == FailureKind::integrity) {
    record_refusal(integrity_, f);
    row_.integrity = integrity_;
  }
  finish(f.status, f.reason(ctx_.healthy));
}

void Cell::finish(BenchmarkStatus status, std::optional<std::string> reason) {
  row_.benchmark_status = status;
  row_.status_reason = std::move(reason);
  row_.cell_wall_time_ms = spent_ms_ + (now_ms() - resumed_ms_);
  if (provider_called_ || phases_.inputs_ms > 0) {
    const CellPhases& p = phases_;
    phases_.other_ms = std::max(0.0, row_.cell_wall_time_ms - p.inputs_ms - p.reference_ms - p.correctness_ms -
                                         p.untimed_check_ms - p.timing_ms - p.fresh_inputs_ms);
    row_.cell_phases = phases_;
  }
  row_.finished_at = utc_timestamp_now();
  done_ = true;
}

}  // namespace caliber::runner
