#include "runner/shape_inputs.h"

#include <algorithm>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "modules/builtins.h"
#include "ops/op_catalog.h"
#include "ops/rule_checks.h"
#include "providers/provider.h"
#include "runner/wall_clock.h"

namespace caliber::runner {
namespace {

// The reference of a described op's output `t` on the rows a check compares: every row up to
// kCheckedElementsBudget elements, else rows drawn from `seed` (docs/user-ops.md).
std::int64_t described_row_count(const ops::TensorSpec& t) {
  return std::max<std::int64_t>(ops::kMinCheckedRows, ops::kCheckedElementsBudget / t.cols);
}
std::vector<std::int64_t> described_rows(const ops::TensorSpec& t, std::uint64_t seed) {
  return ops::sample_rows(t.rows, described_row_count(t), seed);
}

ops::Reference checked_rows_of(const ops::TensorSpec& t, const std::vector<double>& values, std::uint64_t seed) {
  std::vector<std::int64_t> rows = described_rows(t, seed);
  if (static_cast<std::int64_t>(rows.size()) == t.rows) return ops::Reference(t.rows, t.cols, std::move(rows), values);
  const auto cols = static_cast<std::size_t>(t.cols);
  std::vector<double> picked(rows.size() * cols);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(rows[i]) * cols), cols,
                picked.begin() + static_cast<std::ptrdiff_t>(i * cols));
  }
  return ops::Reference(t.rows, t.cols, std::move(rows), std::move(picked));
}

}  // namespace

ShapeSeeds shape_seeds(const std::string& shape_id, std::uint64_t seed, std::uint64_t verification_seed) {
  const std::uint64_t id_bits = std::stoull(shape_id.substr(shape_id.find(':') + 1, 16), nullptr, 16);
  ShapeSeeds s;
  s.inputs = ops::mix64(seed ^ ops::mix64(id_bits));
  s.fresh = ops::mix64(s.inputs ^ 0x66726573685f696eull);
  s.rows = ops::mix64(verification_seed ^ ops::mix64(id_bits));
  return s;
}

std::uint64_t cell_rows_seed(const ShapeSeeds& seeds, const std::string& provider) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the name, then mixed
  for (const unsigned char c : provider) h = (h ^ c) * 0x100000001b3ull;
  return ops::mix64(seeds.rows ^ ops::mix64(h));
}

ShapeInputs::ShapeInputs(Backend& backend, const ops::OpShape& shape, ShapeSeeds seeds,
                         std::unique_ptr<providers::DescribedReference>& described_reference)
    : backend_(backend),
      shape_(shape),
      op_(ops::op_of(shape)),
      input_specs_(op_.inputs(shape)),
      output_specs_(op_.outputs(shape)),
      seeds_(seeds),
      provider_reference_(shape.op_description().row_reference() == nullptr),
      described_reference_(described_reference),
      device_math_(ops::make_device_reference_math(backend)),
      rows_seed_(seeds.rows) {}

bool ShapeInputs::updates_in_place() const {
  return std::any_of(output_specs_.begin(), output_specs_.end(),
                     [](const ops::TensorSpec& t) { return t.in_place_of.has_value(); });
}

bool ShapeInputs::compared_whole(std::size_t k) const {
  return provider_reference_ && output_specs_.at(k).rows <= described_row_count(output_specs_[k]);
}

std::string ShapeInputs::unscanned_outputs_reason() const {
  const ops::DescribedTensor* input = shape_.op_description().nonfinite_input();
  if (!input) return "";
  return fmt::format("input {} is drawn with non-finite values, so a NaN output may be a result: the outputs are not "
                     "scanned for the poison; the judge compares them with the reference, NaN for NaN",
                     input->name);
}

double ShapeInputs::build_once() {
  if (ready() || failure_) return 0;
  const double from = now_ms();
  try {
    build();
    built_ = !failure_;
  } catch (const std::exception& e) {
    const Failure f = classify_failure(e);
    failure_ = inputs_failure(f);
    if (!failure_) throw;
    device_lost_ = f.recheck_device() && !device_healthy(backend_);
    original_ = InputSet{};
    fresh_ = InputSet{};
    working_.clear();
    rows_.clear();
  }
  return now_ms() - from;
}

// Three times the inputs when they fit: the original and fresh sets, kept on an asynchronous
// device (restoring from the host would cost a host-to-device copy per measurement), and the
// working buffers.
void ShapeInputs::build() {
  const std::uint64_t need = op_.bytes(shape_);
  const std::uint64_t have = backend_.device().memory_bytes;
  if (have > 0 && need > have) {
    failure_ = InputsFailure{BenchmarkStatus::oom,
                             fmt::format("inputs and output need {} bytes; the device has {} bytes", need, have)};
    return;
  }
  std::uint64_t in_bytes = 0;
  for (const ops::TensorSpec& t : input_specs_) in_bytes += t.bytes();
  rows_ = ops::rows_to_check(op_, shape_, rows_seed_);
  const bool device_copies = backend_.asynchronous();
  const bool room_for_three = have == 0 || need + 2 * in_bytes <= have;
  // Drawn on the device: nothing crosses from the host (the host draw of a large shape and its
  // copies cost tens of milliseconds).
  if (device_copies && room_for_three && draw_on_device(original_, seeds_.inputs) &&
      draw_on_device(fresh_, seeds_.fresh)) {
    make_working(original_);
    return;
  }
  original_.device.clear();
  original_.host = op_.make_inputs(shape_, seeds_.inputs);
  make_working(original_);
  if (device_copies && !room_for_three) {
    no_fresh_reason_ = fmt::format("no fresh inputs: three copies of the {} input bytes do not fit", in_bytes);
    return;
  }
  fresh_.host = op_.make_inputs(shape_, seeds_.fresh);
  if (device_copies) {
    keep_on_device(original_);
    keep_on_device(fresh_);
  }
}

// Draws a set on the device, where the backend can (false: it cannot, nothing is kept).
bool ShapeInputs::draw_on_device(InputSet& set, std::uint64_t seed) {
  for (const ops::TensorSpec& t : input_specs_) set.device.emplace_back(backend_, t.bytes());
  if (draw_into(set.device, seed)) return true;
  set.device.clear();
  return false;
}

// draw_on_device, or false when the device has no room for another set.
bool ShapeInputs::draw_on_device_if_room(InputSet& set, std::uint64_t seed) {
  try {
    return draw_on_device(set, seed);
  } catch (const OutOfMemoryError&) {
    set.device.clear();
    return false;
  }
}

// Copies a set drawn on the host to the device.
void ShapeInputs::keep_on_device(InputSet& set) {
  for (const ops::HostTensor& t : set.host) {
    set.device.emplace_back(backend_, t.bytes());
    backend_.copy_to_device(set.device.back().get(), t.data(), t.bytes());
  }
}

// The working buffers, holding `set`'s values.
void ShapeInputs::make_working(const InputSet& set) {
  if (!set.device.empty()) {
    for (const DeviceBuffer& b : set.device) {
      working_.emplace_back(backend_, b.bytes());
      backend_.copy_on_device(working_.back().get(), b.get(), b.bytes());
    }
    return;
  }
  for (const ops::HostTensor& t : set.host) {
    working_.emplace_back(backend_, t.bytes());
    backend_.copy_to_device(working_.back().get(), t.data(), t.bytes());
  }
}

void ShapeInputs::load(const InputSet& set) {
  for (std::size_t k = 0; k < working_.size(); ++k) {
    if (!set.device.empty()) {
      backend_.copy_on_device(working_[k].get(), set.device[k].get(), working_[k].bytes());
    } else {
      backend_.copy_to_device(working_[k].get(), set.host[k].data(), working_[k].bytes());
    }
  }
}

// Draws the inputs' values from `seed` into `buffers` on the device (false: the backend cannot).
bool ShapeInputs::draw_into(const std::vector<DeviceBuffer>& buffers, std::uint64_t seed) {
  const std::vector<ops::InputDraw> draws = op_.input_draws(shape_, seed);
  for (std::size_t k = 0; k < buffers.size(); ++k) {
    const ops::TensorSpec& t = input_specs_[k];
    if (!backend_.fill_draw(buffers[k].get(), t.element, static_cast<std::size_t>(t.elements()), draws.at(k).params)) {
      return false;
    }
  }
  return true;
}

void ShapeInputs::draw_buffers(const std::vector<DeviceBuffer>& buffers, std::uint64_t seed) {
  if (draw_into(buffers, seed)) return;
  const std::vector<ops::InputDraw> draws = op_.input_draws(shape_, seed);
  for (std::size_t k = 0; k < buffers.size(); ++k) {
    const ops::TensorSpec& t = input_specs_[k];
    if (draw_scratch_.size() <= k) draw_scratch_.emplace_back(t.name, t.element, t.rows, t.cols);
    ops::fill_draw(draw_scratch_[k], draws.at(k));
    backend_.copy_to_device(buffers[k].get(), draw_scratch_[k].data(), draw_scratch_[k].bytes());
  }
}

InputSet& ShapeInputs::audit_set(std::uint64_t seed, double& reference_ms) {
  const bool refill = !audit_.device.empty();
  audit_.reference.reset();
  audit_.device_reference.reset();
  audit_.output_references.clear();
  audit_.provider_values.clear();
  audit_.reference_rows.clear();
  audit_.host.clear();
  if (refill) {
    draw_into(audit_.device, seed);  // drawn there before, so the backend draws on its device
  } else if (!backend_.asynchronous() || !draw_on_device_if_room(audit_, seed)) {
    audit_.host = op_.make_inputs(shape_, seed);  // its reference is computed on the host
  }
  // Its own rows, drawn from the audit's seed (which no option sets and no file records): a
  // provider that learned the run's verification seed cannot compute only the rows it names.
  const std::uint64_t rows_seed = ops::mix64(seed ^ 0x617564697472ull);
  const double from = now_ms();
  compute_reference(audit_, ops::rows_to_check(op_, shape_, rows_seed), rows_seed);
  reference_ms = now_ms() - from;
  return audit_;
}

// The host tensors of a set drawn on the device, copied back (only a host reference needs them).
const std::vector<ops::HostTensor>& ShapeInputs::host_tensors(InputSet& set) {
  if (set.host.empty()) {
    for (std::size_t k = 0; k < input_specs_.size(); ++k) {
      const ops::TensorSpec& t = input_specs_[k];
      set.host.emplace_back(t.name, t.element, t.rows, t.cols);
      backend_.copy_to_host(set.host.back().data(), set.device[k].get(), set.host.back().bytes());
    }
  }
  return set.host;
}

void ShapeInputs::select_rows(std::uint64_t rows_seed) {
  if (rows_seed == rows_seed_) return;
  rows_seed_ = rows_seed;
  rows_ = ops::rows_to_check(op_, shape_, rows_seed_);
}

std::vector<std::vector<std::int64_t>> ShapeInputs::selected_rows() const {
  if (!provider_reference_) return {rows_};
  std::vector<std::vector<std::int64_t>> out;
  for (std::size_t k = 0; k < output_specs_.size(); ++k) out.push_back(described_rows(output_specs_[k], ops::mix64(rows_seed_ + k + 1)));
  return out;
}

double ShapeInputs::ensure_reference(InputSet& set) {
  std::vector<std::vector<std::int64_t>> wanted = selected_rows();
  if (set.has_reference() && set.reference_rows == wanted) return 0;
  set.reference.reset();
  set.device_reference.reset();
  set.output_references.clear();
  const double from = now_ms();
  compute_reference(set, rows_, rows_seed_);
  set.reference_rows = std::move(wanted);
  return now_ms() - from;
}

void ShapeInputs::compute_reference(InputSet& set, const std::vector<std::int64_t>& rows, std::uint64_t rows_seed) {
  if (provider_reference_) {
    if (!described_reference_) {
      described_reference_ = std::make_unique<providers::DescribedReference>(*shape_.described, &backend_);
    }
    if (set.provider_values.empty()) {
      set.provider_values = described_reference_->compute(shape_, host_tensors(set));
      refuse_invalid_indices(set);
    }
    for (std::size_t k = 0; k < output_specs_.size(); ++k) {
      // The original and fresh sets: the cell's rows; an audit set: its own.
      set.output_references.push_back(
          checked_rows_of(output_specs_[k], set.provider_values[k], ops::mix64(rows_seed + k + 1)));
    }
    return;
  }
  if (!set.device.empty() && device_math_) {
    const ops::ReferenceProblem problem{std::string(ops::to_string(shape_.op)), shape_.dtype, shape_.m, shape_.n,
                                   shape_.k, shape_.eps};
    std::vector<const void*> device_inputs;
    for (const DeviceBuffer& b : set.device) device_inputs.push_back(b.get());
    set.device_reference = device_math_->reference_rows(problem, device_inputs, rows);
    if (set.device_reference) return;
  }
  set.reference = std::make_unique<ops::Reference>(op_, shape_, host_tensors(set), rows);
}

// A reference whose output of indices is not one cannot judge the providers' indices.
void ShapeInputs::refuse_invalid_indices(InputSet& set) const {
  const ops::OpDescription& d = shape_.op_description().description();
  for (std::size_t k = 0; k < d.outputs.size(); ++k) {
    if (d.outputs[k].check.kind != ops::CheckRule::Kind::indices) continue;
    const std::string why =
        ops::invalid_reference_indices(set.provider_values[k], output_specs_[k].name, set.host.at(d.outputs[k].check.indices_into));
    if (!why.empty()) {
      set.provider_values.clear();
      throw providers::ProviderError(fmt::format("reference {}: {}", described_reference_->where(), why));
    }
  }
}

// Where the references were computed.
std::string ShapeInputs::reference_origin() const {
  if (described_reference_) {
    return fmt::format("from {} in {} on the {}", described_reference_->where(),
                       described_reference_->precision(shape_.dtype),
                       described_reference_->on_device() ? "device" : "host");
  }
  const auto where = [](const InputSet& set) { return set.device_reference ? "on the device" : "on the host"; };
  if (!fresh_.has_reference() || fresh_.device_reference.has_value() == original_.device_reference.has_value()) {
    return where(original_);
  }
  return fmt::format("{} (original inputs), {} (fresh inputs)", where(original_), where(fresh_));
}

// A described op's checked rows per output: "y: 64 of 64 rows, ...".
std::string ShapeInputs::checked_outputs() const {
  std::string out;
  for (std::size_t k = 0; k < original_.output_references.size(); ++k) {
    const ops::Reference& r = original_.output_references[k];
    const ops::TensorSpec& t = output_specs_[k];
    const ops::CheckRule& rule = shape_.op_description().description().outputs.at(k).check;
    // An output of another dtype than the shape's, or checked otherwise than by the tolerance, says so.
    const std::string how = t.element == element_of(shape_.dtype) && rule.kind == ops::CheckRule::Kind::tolerance
                                ? ""
                                : fmt::format(" ({}, {})", to_string(t.element), rule.text());
    out += fmt::format("{}{}: {} of {} rows{}", out.empty() ? "" : ", ", t.name, r.rows().size(), r.total_rows(), how);
  }
  return out;
}

std::string ShapeInputs::judge_description() const {
  const std::string what =
      provider_reference_
          ? fmt::format("reference {}, on {} (rows drawn at random where an output exceeds {} elements, seed {:016x})",
                        reference_origin(), checked_outputs(), ops::kCheckedElementsBudget, rows_seed_)
          : fmt::format("fp64 reference {}, on {} of {} rows, drawn at random (seed {:016x})", reference_origin(),
                        rows_.size(), shape_.m, rows_seed_);
  return what + (provider_reference_ ? "; inputs: " + drawn_inputs() : "") +
         (no_fresh_reason_.empty() ? "" : "; " + no_fresh_reason_);
}

// A described op's inputs as drawn: "x (fp32): normal(0, 1), ties 25% on 4 levels; ...".
std::string ShapeInputs::drawn_inputs() const {
  const std::vector<ops::InputDraw> draws = op_.input_draws(shape_, 0);
  std::string out;
  for (std::size_t k = 0; k < draws.size(); ++k) {
    out += fmt::format("{}{} ({}): {}", out.empty() ? "" : "; ", input_specs_[k].name, to_string(input_specs_[k].element),
                       ops::draw_text(draws[k]));
  }
  return out;
}

}  // namespace caliber::runner
