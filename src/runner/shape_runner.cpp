#include "runner/shape_runner.h"

#include <algorithm>
#include <chrono>
#include <new>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/measure.h"
#include "caliber/result_json.h"
#include "core/utc_time.h"
#include "integrity/checked_subject.h"
#include "integrity/physical_bound.h"
#include "ops/correctness.h"
#include "ops/op_catalog.h"
#include "providers/described_reference.h"
#include "runner/capture_failure.h"
#include "runner/cell_verdict.h"
#include "runner/config_replay.h"

namespace caliber::runner {
namespace {

std::string contract_brief(const Contract& c) {
  std::string s = fmt::format("{}/{}/{}", to_string(c.instrument), to_string(c.schedule), to_string(c.cache));
  if (c.schedule == Schedule::graph) s += fmt::format("(graph_calls={})", c.graph_calls);
  return s;
}

// One set of input values: drawn on the device when the backend can (kept there: a device copy
// restores the inputs in a device-to-device copy), else drawn on the host and kept on the device
// too when it fits; with its fp64 reference of the checked rows (computed once, by the first cell
// of the shape that calls a provider).
struct InputSet {
  std::vector<ops::HostTensor> host;  // empty when drawn on the device (copied back only if needed)
  std::vector<DeviceBuffer> device;   // empty: the host tensors are the source (host backend, or no room)
  // Either computed on the host, or computed and kept on the device (the backend compares the
  // outputs there too: only the comparison's sums come back).
  std::unique_ptr<ops::Reference> reference;
  std::optional<DeviceReference> device_reference;
  // A described op: every row of every output, from its reference provider (docs/user-ops.md).
  std::vector<ops::Reference> output_references;
  bool present() const { return !host.empty() || !device.empty(); }
  bool has_reference() const { return reference || device_reference || !output_references.empty(); }
};

// The inputs of one shape. Providers read `working`; before the verified timed call of each
// measurement the fresh set is written there (same addresses, other values), and the original
// set afterwards, so a provider that remembers its last result cannot pass (docs/integrity.md).
struct ShapeInputs {
  InputSet original;
  InputSet fresh;  // not present: no fresh set (the shape does not fit three times)
  std::vector<DeviceBuffer> working;
  std::vector<std::int64_t> rows;  // the output rows compared with the reference
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::size_t tensor_bytes(const ops::TensorSpec& t, DType dtype) {
  return static_cast<std::size_t>(t.rows) * static_cast<std::size_t>(t.cols) * dtype_size_bytes(dtype);
}

// The reference of a described op's output `t` on the rows a check compares: every row up to
// kCheckedElementsBudget elements, else rows drawn from `seed` (docs/user-ops.md).
ops::Reference checked_rows_of(const ops::TensorSpec& t, const std::vector<double>& values, std::uint64_t seed) {
  std::vector<std::int64_t> rows = ops::sample_rows(
      t.rows, std::max<std::int64_t>(ops::kMinCheckedRows, ops::kCheckedElementsBudget / t.cols), seed);
  if (static_cast<std::int64_t>(rows.size()) == t.rows) return ops::Reference(t.rows, t.cols, std::move(rows), values);
  const auto cols = static_cast<std::size_t>(t.cols);
  std::vector<double> picked(rows.size() * cols);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(rows[i]) * cols), cols,
                picked.begin() + static_cast<std::ptrdiff_t>(i * cols));
  }
  return ops::Reference(t.rows, t.cols, std::move(rows), std::move(picked));
}

// Copies the output rows a check compares into `out` (the rest stays unread): the whole tensor
// when the rows are most of it, else only those rows (Backend::copy_rows_to_host).
void copy_checked_rows(Backend& backend, const void* device_out, ops::HostTensor& out,
                       const std::vector<std::int64_t>& rows) {
  const std::size_t row_bytes = static_cast<std::size_t>(out.cols()) * dtype_size_bytes(out.dtype());
  if (rows.size() * 4 >= static_cast<std::size_t>(out.rows())) {
    backend.copy_to_host(out.data(), device_out, out.bytes());
    return;
  }
  backend.copy_rows_to_host(out.data(), device_out, row_bytes, rows);
}

}  // namespace

ShapeRunner::ShapeRunner(Backend& backend, const RunPlan& plan, RunContracts contracts, const RunOptions& options,
                         RowProvenance identity, std::vector<BoundProvider>& providers, CallHooks hooks)
    : backend_(backend),
      plan_(plan),
      contracts_(std::move(contracts)),
      options_(options),
      identity_(std::move(identity)),
      providers_(providers),
      hooks_(std::move(hooks)) {}

void ShapeRunner::set_device_ceilings(std::optional<DeviceCeilings> ceilings, std::string why_missing) {
  ceilings_ = std::move(ceilings);
  ceilings_missing_ = std::move(why_missing);
}

// Consecutive shapes whose untimed calls share one CUPTI trace (docs/runner.md, "The untimed
// calls of a shape"). Each shape's run_one() runs its untimed calls, joins the chain and runs the
// next shape's from inside (so that every shape's buffers stay alive); the last one detaches the
// trace once and times the shapes in order; then they return one after the other.
struct ShapeRunner::UntimedChain {
  // A shape waiting to be timed: its traced cells, what detaching charges each, its timing.
  struct Shape {
    std::function<std::size_t()> traced_cells;
    std::function<void(double ms_per_cell)> charge;
    std::function<void()> time_and_report;
  };
  UntimedChain(ShapeRunner& r, const std::vector<ShapeJob>& j, std::size_t first, std::uint64_t budget_bytes)
      : runner(r), jobs(j), next(first + 1), budget(budget_bytes) {}
  ShapeRunner& runner;
  const std::vector<ShapeJob>& jobs;
  std::size_t next;             // the next job, when the chain takes it
  std::uint64_t budget;         // bytes the chain's buffers may hold (0: no limit known)
  std::uint64_t bytes = 0;      // bytes its shapes' untimed calls keep alive
  std::unique_ptr<ActivityTracing> trace;
  std::vector<Shape> waiting;
  bool timed = false;

  // Runs the next job's untimed calls under the trace when it fits; false at the chain's end.
  bool extend() {
    if (next >= jobs.size() || waiting.size() >= kMaxShapesPerTrace || !runner.healthy_) return false;
    const ShapeJob& j = jobs[next];
    const std::optional<std::uint64_t> need = runner.untimed_trace_bytes(*j.shape, j.providers, true);
    if (!need || (budget > 0 && bytes + *need > budget)) return false;
    ++next;
    bytes += *need;
    runner.run_one(*j.shape, j.providers, j.events);
    return true;
  }
  // Detaches the trace (nothing is timed under it), charges what that cost to the traced cells of
  // every waiting shape, and times the shapes in order.
  void time_all() {
    if (timed) return;
    timed = true;
    const double from = now_ms();
    trace.reset();
    const double detach_ms = now_ms() - from;
    std::size_t traced = 0;
    for (const Shape& w : waiting) traced += w.traced_cells();
    for (const Shape& w : waiting) {
      if (traced > 0) w.charge(detach_ms / static_cast<double>(traced));
    }
    for (const Shape& w : waiting) w.time_and_report();
  }
};

bool ShapeRunner::run(const ShapeRow& shape, const std::vector<std::string>& names, const ShapeEvents& events) {
  return run_shapes({ShapeJob{&shape, names, events}});
}

bool ShapeRunner::run_shapes(const std::vector<ShapeJob>& jobs) {
  healthy_ = true;
  const std::uint64_t have = backend_.device().memory_bytes;
  std::size_t i = 0;
  while (i < jobs.size() && healthy_) {
    UntimedChain chain(*this, jobs, i, have / 5 * 4);
    if (const auto need = untimed_trace_bytes(*jobs[i].shape, jobs[i].providers, true)) chain.bytes = *need;
    struct Reset {
      UntimedChain*& at;
      ~Reset() { at = nullptr; }
    } reset{chain_};
    chain_ = &chain;
    run_one(*jobs[i].shape, jobs[i].providers, jobs[i].events);
    i = chain.next;
  }
  return healthy_;
}

std::optional<std::uint64_t> ShapeRunner::untimed_trace_bytes(const ShapeRow& shape,
                                                              const std::vector<std::string>& names,
                                                              bool chained) const {
  if (!options_.integrity_checks || !backend_.observes_device_work()) return std::nullopt;
  std::size_t runnable = 0;
  for (const BoundProvider& bp : providers_) {
    runnable += !bp.not_configured && plan_.selected_provider(bp.entry->name) &&
                std::find(names.begin(), names.end(), bp.entry->name) != names.end();
  }
  if (runnable == 0 || (!chained && runnable < 2)) return std::nullopt;
  const ops::OpShape s =
      ops::parse_shape(shape.op_type, shape.dtype, shape.layout, shape.args, shape.shape_id, shape.line, "args");
  const ops::Op& op = ops::op_of(s);
  std::uint64_t in_bytes = 0;
  for (const ops::TensorSpec& t : op.inputs(s)) in_bytes += tensor_bytes(t, s.dtype);
  std::uint64_t out_bytes = 0;
  for (const ops::TensorSpec& t : op.outputs(s)) out_bytes += t.in_place_of ? 0 : tensor_bytes(t, s.dtype);
  const std::uint64_t need = 3 * in_bytes + runnable * out_bytes;
  const std::uint64_t have = backend_.device().memory_bytes;
  if (have > 0 && need > have / 5 * 4) return std::nullopt;
  return need;
}

bool ShapeRunner::run_one(const ShapeRow& shape, const std::vector<std::string>& names, const ShapeEvents& events) {
  const ops::OpShape s =
      ops::parse_shape(shape.op_type, shape.dtype, shape.layout, shape.args, shape.shape_id, shape.line, "args");
  const ops::Op& op = ops::op_of(s);
  const std::vector<ops::TensorSpec> output_specs = op.outputs(s);
  const bool updates_in_place = std::any_of(output_specs.begin(), output_specs.end(),
                                            [](const ops::TensorSpec& t) { return t.in_place_of.has_value(); });
  const ops::Tolerance tol = s.op_description().description().tolerance(s.dtype);
  // The reference is a provider the description names (an op of your own), not caliber's fp64 row
  // reference (a shipped op's, ops/row_reference.h).
  const bool provider_reference = s.op_description().row_reference() == nullptr;
  // Each shape's own seed: --seed mixed with the 64 bits of its id (the same on every platform).
  const std::uint64_t id_bits = std::stoull(shape.shape_id.substr(shape.shape_id.find(':') + 1, 16), nullptr, 16);
  const std::uint64_t seed = ops::mix64(options_.seed ^ ops::mix64(id_bits));
  // The rows compared with the reference: drawn from the run's verification seed, which a
  // provider cannot know in advance (docs/integrity.md); recorded in every row.
  const std::uint64_t row_seed = ops::mix64(options_.verification_seed ^ ops::mix64(id_bits));
  ShapeInputs inputs;
  std::optional<std::string> inputs_failed;  // set once building the inputs failed: every cell gets it
  BenchmarkStatus inputs_status = BenchmarkStatus::failed;
  bool& healthy = healthy_;  // one device: a shape that loses it stops the shapes it is chained with
  std::string no_fresh_reason;

  double inputs_built_ms = 0;  // the time the last build_inputs() spent building (0: they existed)
  const std::vector<ops::TensorSpec> input_specs = op.inputs(s);
  const std::uint64_t fresh_seed = ops::mix64(seed ^ 0x66726573685f696eull);
  // Draws a set on the device, where the backend can (false: it cannot, nothing is kept).
  auto draw_on_device = [&](InputSet& set, std::uint64_t set_seed) -> bool {
    const std::vector<ops::InputDraw> draws = op.input_draws(s, set_seed);
    for (std::size_t k = 0; k < input_specs.size(); ++k) {
      const ops::TensorSpec& t = input_specs[k];
      set.device.emplace_back(backend_, tensor_bytes(t, s.dtype));
      if (!backend_.fill_uniform(set.device.back().get(), s.dtype,
                                 static_cast<std::size_t>(t.rows) * static_cast<std::size_t>(t.cols), draws.at(k).seed,
                                 draws[k].lo, draws[k].hi)) {
        set.device.clear();
        return false;
      }
    }
    return true;
  };
  auto build_inputs = [&]() -> bool {
    inputs_built_ms = 0;
    if (inputs.original.present()) return true;
    if (inputs_failed) return false;
    const double built_from = now_ms();
    struct Charge {  // charges the build to the cell that asked, whichever way it ends
      double& to;
      double from;
      ~Charge() { to = now_ms() - from; }
    } charge{inputs_built_ms, built_from};
    try {
      const std::uint64_t need = op.bytes(s);
      const std::uint64_t have = backend_.device().memory_bytes;
      if (have > 0 && need > have) {
        inputs_status = BenchmarkStatus::oom;
        inputs_failed = fmt::format("inputs and output need {} bytes; the device has {} bytes", need, have);
        return false;
      }
      std::uint64_t in_bytes = 0;
      for (const ops::TensorSpec& t : input_specs) in_bytes += tensor_bytes(t, s.dtype);
      inputs.rows = ops::rows_to_check(op, s, row_seed);
      // The fresh set, and device copies of both sets on an asynchronous device (restoring from
      // the host would cost a host-to-device copy per measurement): three times the inputs.
      const bool device_copies = backend_.asynchronous();
      const bool room_for_three = have == 0 || need + 2 * in_bytes <= have;
      // Drawn on the device: nothing crosses from the host (the host draw of a large shape and
      // its copies cost tens of milliseconds).
      if (device_copies && room_for_three && draw_on_device(inputs.original, seed) &&
          draw_on_device(inputs.fresh, fresh_seed)) {
        for (const DeviceBuffer& b : inputs.original.device) {
          inputs.working.emplace_back(backend_, b.bytes());
          backend_.copy_on_device(inputs.working.back().get(), b.get(), b.bytes());
        }
        return true;
      }
      inputs.original.device.clear();
      inputs.original.host = op.make_inputs(s, seed);
      for (const ops::HostTensor& t : inputs.original.host) {
        inputs.working.emplace_back(backend_, t.bytes());
        backend_.copy_to_device(inputs.working.back().get(), t.data(), t.bytes());
      }
      if (!device_copies || room_for_three) {
        inputs.fresh.host = op.make_inputs(s, fresh_seed);
        if (device_copies) {
          for (InputSet* set : {&inputs.original, &inputs.fresh}) {
            for (const ops::HostTensor& t : set->host) {
              set->device.emplace_back(backend_, t.bytes());
              backend_.copy_to_device(set->device.back().get(), t.data(), t.bytes());
            }
          }
        }
      } else {
        no_fresh_reason = fmt::format("no fresh inputs: three copies of the {} input bytes do not fit", in_bytes);
      }
      return true;
    } catch (const OutOfMemoryError& e) {
      inputs_status = BenchmarkStatus::oom;
      inputs_failed = std::string("building the inputs: ") + e.what();
    } catch (const std::bad_alloc&) {
      inputs_status = BenchmarkStatus::oom;
      inputs_failed = "building the inputs: host allocation failed";
    } catch (const DeviceError& e) {
      inputs_failed = std::string("building the inputs: ") + e.what();
      healthy = device_healthy(backend_);
    }
    inputs = ShapeInputs{};
    return false;
  };

  // The host tensors of a set drawn on the device, copied back (only a host reference needs them).
  auto host_tensors = [&](InputSet& set) -> const std::vector<ops::HostTensor>& {
    if (set.host.empty()) {
      for (std::size_t k = 0; k < input_specs.size(); ++k) {
        const ops::TensorSpec& t = input_specs[k];
        set.host.emplace_back(t.name, s.dtype, t.rows, t.cols);
        backend_.copy_to_host(set.host.back().data(), set.device[k].get(), set.host.back().bytes());
      }
    }
    return set.host;
  };

  // The fp64 reference of one input set: on the device when its inputs are there and the
  // backend has one (the host's, tens of milliseconds on a big shape, is the last resort).
  const ReferenceProblem problem{std::string(ops::to_string(s.op)), s.dtype, s.m, s.n, s.k, s.eps};
  auto compute_reference = [&](InputSet& set) {
    if (provider_reference) {
      if (!described_reference_) described_reference_ = std::make_unique<providers::DescribedReference>(*s.described, &backend_);
      const std::vector<std::vector<double>> values = described_reference_->compute(s, host_tensors(set));
      for (std::size_t k = 0; k < output_specs.size(); ++k) {
        // The same rows for both input sets: drawn from the verification seed and the output.
        set.output_references.push_back(checked_rows_of(output_specs[k], values[k], ops::mix64(row_seed + k + 1)));
      }
      return;
    }
    if (!set.device.empty()) {
      std::vector<const void*> device_inputs;
      for (const DeviceBuffer& b : set.device) device_inputs.push_back(b.get());
      set.device_reference = backend_.reference_rows_on_device(problem, device_inputs, inputs.rows);
      if (set.device_reference) return;
    }
    set.reference = std::make_unique<ops::Reference>(op, s, host_tensors(set), inputs.rows);
  };
  // A described op's checked rows per output, for the check's description: "y: 64 of 64 rows, ...".
  auto checked_outputs = [&]() -> std::string {
    std::string out;
    for (std::size_t k = 0; k < inputs.original.output_references.size(); ++k) {
      const ops::Reference& r = inputs.original.output_references[k];
      out += fmt::format("{}{}: {} of {} rows", out.empty() ? "" : ", ", output_specs[k].name, r.rows().size(),
                         r.total_rows());
    }
    return out;
  };
  // Where the references were computed, for the check's description.
  auto reference_origin = [&]() -> std::string {
    if (described_reference_) {
      return fmt::format("from {} in {} on the {}", described_reference_->where(),
                         described_reference_->precision(s.dtype), described_reference_->on_device() ? "device" : "host");
    }
    const auto where = [](const InputSet& set) { return set.device_reference ? "on the device" : "on the host"; };
    if (!inputs.fresh.has_reference() ||
        inputs.fresh.device_reference.has_value() == inputs.original.device_reference.has_value()) {
      return where(inputs.original);
    }
    return fmt::format("{} (original inputs), {} (fresh inputs)", where(inputs.original), where(inputs.fresh));
  };

  // Writes one input set into the working buffers (same addresses).
  auto load_set = [&](InputSet& set) {
    for (std::size_t k = 0; k < inputs.working.size(); ++k) {
      if (!set.device.empty()) {
        backend_.copy_on_device(inputs.working[k].get(), set.device[k].get(), inputs.working[k].bytes());
      } else {
        backend_.copy_to_device(inputs.working[k].get(), set.host[k].data(), inputs.working[k].bytes());
      }
    }
  };

  // A cell's state between its untimed check and its measurements. The untimed calls of a shape's
  // providers run first, one after the other under one CUPTI trace, then each provider is timed
  // with the trace detached (docs/runner.md, "The untimed calls of a shape"): detaching CUPTI costs
  // milliseconds, once per shape instead of once per cell. Rows are reported in matrix order.
  struct Cell {
    BoundProvider* bp = nullptr;
    BenchmarkResultRow row;
    CellPhases phases;
    bool provider_called = false;
    bool done = false;      // the row is final
    bool untimed = false;   // its untimed call ran under the shape's trace
    double spent_ms = 0;    // wall time of its finished stretches
    double resumed_ms = 0;  // when its current stretch began
    std::vector<DeviceBuffer> outputs;  // in the op's output order
    std::vector<std::optional<ops::HostTensor>> host_outs;  // the checked rows copied back: only for a host reference
    providers::OpBuffers buffers;
    // The integrity record the row ends with (the measurements' records merged), also when a
    // measurement throws.
    Integrity integrity;
    std::unique_ptr<integrity::CheckedSubject> checked;
    double judged_ms() const { return phases.reference_ms + phases.correctness_ms; }  // judging so far
  };
  auto finish = [&](Cell& c, BenchmarkStatus status, std::optional<std::string> reason) {
    c.row.benchmark_status = status;
    c.row.status_reason = std::move(reason);
    c.row.cell_wall_time_ms = c.spent_ms + (now_ms() - c.resumed_ms);
    if (c.provider_called || c.phases.inputs_ms > 0) {
      const CellPhases& p = c.phases;
      c.phases.other_ms = std::max(0.0, c.row.cell_wall_time_ms - p.inputs_ms - p.reference_ms - p.correctness_ms -
                                            p.untimed_check_ms - p.timing_ms);
      c.row.cell_phases = c.phases;
    }
    c.row.finished_at = utc_timestamp_now();
    c.done = true;
  };
  auto release = [&](Cell& c) {
    c.outputs.clear();
    c.bp->impl->release();
    c.bp->prepared_for = nullptr;
  };
  // Prepares a provider for this shape, pinned to the config a replay recorded for the cell
  // (runner/config_replay.h); released first when still prepared for another shape (the shapes of
  // a chain share the provider objects). Returns the pinned config.
  auto prepare_for_shape = [&](BoundProvider& bp) -> std::optional<ProviderConfig> {
    std::optional<ProviderConfig> pinned;
    if (config_replay_) pinned = pinned_config_for(*config_replay_, shape.shape_id, bp.entry->name);
    if (bp.prepared_for) bp.impl->release();
    bp.impl->pin_config(pinned ? std::optional<std::string>(pinned->key) : std::nullopt);
    bp.impl->prepare(s, backend_);
    bp.prepared_for = &s;
    return pinned;
  };
  // Every way a provider's cell can end in an exception, in either stretch.
  auto fail = [&](Cell& c, const std::exception_ptr& error) {
    try {
      std::rethrow_exception(error);
    } catch (const IntegrityError& e) {
      release(c);
      c.integrity.record(e.check(), CheckOutcome::failed, e.what());
      c.integrity.record(integrity_check::output_after_timing, CheckOutcome::not_run, "not measured");
      c.row.integrity = c.integrity;
      finish(c, BenchmarkStatus::failed, std::string("integrity: ") + e.what());
    } catch (const OutOfMemoryError& e) {
      release(c);
      finish(c, BenchmarkStatus::oom, e.what());
    } catch (const std::bad_alloc&) {
      release(c);
      finish(c, BenchmarkStatus::oom, "host allocation failed");
    } catch (const providers::UnsupportedShape& e) {
      release(c);
      finish(c, BenchmarkStatus::unsupported, e.what());
    } catch (const DeviceError& e) {
      healthy = device_healthy(backend_);
      release(c);
      finish(c, BenchmarkStatus::failed, healthy ? std::string(e.what())
                                                 : std::string(e.what()) + " (the device is no longer usable: the "
                                                                           "next cells run in a fresh process)");
    } catch (const std::exception& e) {
      release(c);
      finish(c, BenchmarkStatus::failed, e.what());
    }
  };

  // The shape's trace of the untimed calls: taken at the first untimed call, where the backend
  // traces device work and every provider's output fits beside the inputs (the outputs of a
  // shape's providers are alive together until they are timed); else each untimed call traces
  // itself and the cell is timed at once. Within a batch of shapes (run_shapes) the trace is the
  // chain's, shared with the next shapes'.
  UntimedChain* const chain = chain_;
  std::unique_ptr<ActivityTracing> own_trace;
  std::unique_ptr<ActivityTracing>& untimed_trace = chain ? chain->trace : own_trace;
  bool trace_the_shape = untimed_trace_bytes(shape, names, chain != nullptr).has_value();
  std::vector<std::unique_ptr<Cell>> cells;

  // The first stretch of a cell: everything up to and including its untimed call.
  auto start_cell = [&](BoundProvider& bp) -> Cell& {
    cells.push_back(std::make_unique<Cell>());
    Cell& c = *cells.back();
    c.bp = &bp;
    c.resumed_ms = now_ms();
    const std::string& name = bp.entry->name;
    c.row = base_row(identity_, shape, name);
    if (bp.not_configured) {
      c.row.provider_detail = bp.entry->provider;
      finish(c, BenchmarkStatus::not_configured, *bp.not_configured);
      return c;
    }
    providers::Provider& p = *bp.impl;
    const providers::ProviderFlags flags = p.flags();
    c.row.includes_allocation = flags.includes_allocation;
    c.row.includes_layout_conversion = flags.includes_layout_conversion;
    c.row.includes_jit = flags.includes_jit;
    c.row.provider_detail = p.detail(s);
    if (!plan_.selected_provider(name)) {
      finish(c, BenchmarkStatus::skipped, "not selected for this run (--providers)");
      return c;
    }
    if (shape.layout != plan_.matrix.layout_contract) {
      finish(c, BenchmarkStatus::unsupported, fmt::format("layout {} differs from the matrix's layout_contract {}",
                                                          shape.layout, plan_.matrix.layout_contract));
      return c;
    }
    const providers::Support support = p.supports(s);
    if (support.kind == providers::Support::Kind::unsupported) {
      finish(c, BenchmarkStatus::unsupported, support.reason);
      return c;
    }
    if (support.kind == providers::Support::Kind::skipped) {
      finish(c, BenchmarkStatus::skipped, support.reason);
      return c;
    }
    const bool have_inputs = build_inputs();
    c.phases.inputs_ms = inputs_built_ms;
    if (!have_inputs) {
      finish(c, inputs_status, *inputs_failed);
      return c;
    }
    c.integrity.verification_seed = row_seed;
    try {
      c.provider_called = true;
      const std::optional<ProviderConfig> pinned = prepare_for_shape(bp);
      c.row.provider_detail = p.detail(s);  // after prepare: e.g. the algorithm a library picked
      {
        std::string refusal;
        c.row.config = row_config(p.chosen_config(), pinned, config_replay_.has_value(), &refusal);
        if (!refusal.empty()) throw providers::ConfigRefused(refusal);
      }
      // An output updated in place is its input's working buffer (docs/user-ops.md, "In-place
      // outputs"): the providers and the checks see one buffer, restored before each verified call.
      for (const ops::TensorSpec& t : output_specs) {
        if (t.in_place_of) {
          c.buffers.outputs.push_back(inputs.working.at(*t.in_place_of).get());
        } else {
          c.outputs.emplace_back(backend_, tensor_bytes(t, s.dtype));
          c.buffers.outputs.push_back(c.outputs.back().get());
        }
      }
      c.host_outs.resize(output_specs.size());
      for (const DeviceBuffer& b : inputs.working) c.buffers.inputs.push_back(b.get());
      c.buffers.output = c.buffers.outputs.front();

      integrity::Subject subject;
      subject.call = [&p, &s, &c](const LaunchContext& ctx) { p.run(s, c.buffers, ctx.stream); };
      std::vector<bool> updated_in_place(inputs.working.size(), false);
      for (std::size_t k = 0; k < output_specs.size(); ++k) {
        const ops::TensorSpec& t = output_specs[k];
        BufferRef ref{t.name, c.buffers.outputs[k], tensor_bytes(t, s.dtype), s.dtype};
        if (t.in_place_of) {
          updated_in_place.at(*t.in_place_of) = true;
          subject.buffers.in_place.push_back(std::move(ref));
        } else {
          subject.buffers.outputs.push_back(std::move(ref));
        }
      }
      for (std::size_t k = 0; k < inputs.working.size(); ++k) {
        if (updated_in_place[k]) continue;
        subject.buffers.inputs.push_back(
            {input_specs[k].name, inputs.working[k].get(), inputs.working[k].bytes(), s.dtype});
      }
      // The fp64 references of the checked rows, before the untimed call: the description says
      // where they were computed, and no reference work runs inside a measurement. The fresh set
      // is judged only when the integrity checks are on.
      const auto charge_reference = [&, cell = &c](InputSet& set) {
        if (set.has_reference()) return;
        const double reference_from = now_ms();
        compute_reference(set);
        cell->phases.reference_ms += now_ms() - reference_from;
      };
      charge_reference(inputs.original);
      if (inputs.fresh.present() && options_.integrity_checks) charge_reference(inputs.fresh);
      // The row keeps the first check's numbers, or the first failing one's.
      subject.judge = [&, charge_reference, cell = &c](bool fresh) -> std::string {
        InputSet& set = fresh ? inputs.fresh : inputs.original;
        charge_reference(set);  // already there, unless a judge no one foresaw asks
        const double compare_from = now_ms();
        // One check per output; the row keeps the first failing output's, else the worst.
        CorrectnessCheck check;
        std::string failure;
        for (std::size_t k = 0; k < output_specs.size(); ++k) {
          const ops::TensorSpec& out_spec = output_specs[k];
          CorrectnessCheck one;
          if (set.device_reference) {
            const DeviceReference& ref = *set.device_reference;
            const RowComparison sums = backend_.compare_rows_on_device(
                ref, cell->buffers.outputs[k], s.dtype, tol.rtol,
                ops::absolute_bound(tol, ref.sum_of_squares, ref.row_count * static_cast<std::size_t>(ref.n)));
            one = ops::check_from_sums(sums, ref.sum_of_squares, static_cast<std::int64_t>(ref.row_count), s.m, tol);
          } else {
            std::optional<ops::HostTensor>& host_out = cell->host_outs[k];
            if (!host_out) host_out.emplace(out_spec.name, s.dtype, out_spec.rows, out_spec.cols);
            const ops::Reference& ref = provider_reference ? set.output_references.at(k) : *set.reference;
            copy_checked_rows(backend_, cell->buffers.outputs[k], *host_out, ref.rows());
            one = ops::check_output(ref, *host_out, tol);
          }
          const bool one_ok = ops::passed(one);
          if (k == 0 || (!one_ok && failure.empty()) ||
              (failure.empty() && one.max_scaled_error > check.max_scaled_error)) {
            check = one;
          }
          if (!one_ok && failure.empty()) {
            failure = output_specs.size() > 1 ? fmt::format("output {}: {}", out_spec.name, ops::failure_reason(one))
                                              : ops::failure_reason(one);
          }
        }
        cell->phases.correctness_ms += now_ms() - compare_from;
        const bool ok = failure.empty();
        if (!cell->row.correctness || (!ok && ops::passed(*cell->row.correctness))) cell->row.correctness = check;
        return failure;
      };
      subject.judge_description =
          (provider_reference ? fmt::format("reference {}, on {} (rows drawn at random where an output exceeds {} elements, "
                                     "seed {:016x})",
                                     reference_origin(), checked_outputs(), ops::kCheckedElementsBudget, row_seed)
                       : fmt::format("fp64 reference {}, on {} of {} rows, drawn at random (seed {:016x})",
                                     reference_origin(), inputs.rows.size(), s.m, row_seed)) +
          (no_fresh_reason.empty() ? "" : "; " + no_fresh_reason);
      if (inputs.fresh.present()) {
        subject.load_fresh_inputs = [&] { load_set(inputs.fresh); };
      }
      subject.restore_inputs = [&] { load_set(inputs.original); };
      if (hooks_.on_census) subject.on_census = hooks_.on_census;
      subject.checks = options_.integrity_checks;

      c.checked = std::make_unique<integrity::CheckedSubject>(backend_, std::move(subject));
      if (trace_the_shape && !untimed_trace) {
        try {
          untimed_trace = backend_.keep_activity_tracing_on();
        } catch (const ContractError&) {
          trace_the_shape = false;  // each untimed call says why it was not traced
        }
      }
      const double untimed_from = now_ms();
      const double judged_before_untimed = c.judged_ms();
      c.checked->run_untimed_check();
      c.phases.untimed_check_ms =
          std::max(0.0, now_ms() - untimed_from - (c.judged_ms() - judged_before_untimed));
      c.untimed = untimed_trace != nullptr;
      c.integrity = c.checked->untimed_integrity();
      c.integrity.verification_seed = row_seed;
    } catch (...) {
      fail(c, std::current_exception());
    }
    return c;
  };

  // The second stretch: the measurements and the verdict.
  auto time_cell = [&](Cell& c) {
    providers::Provider& p = *c.bp->impl;
    const std::string& name = c.bp->entry->name;
    BenchmarkResultRow& row = c.row;
    Integrity& integrity = c.integrity;
    try {
      if (c.bp->prepared_for != &s) {
        // Prepared for another shape since its untimed call (the shapes of a chain share a
        // trace): prepared again for this one, and it must choose what its untimed call ran.
        prepare_for_shape(*c.bp);
        const auto again = p.chosen_config();
        const std::string now = again ? again->key : "";
        const std::string was = row.config ? row.config->key : "";
        if (now != was) {
          throw providers::ProviderError(fmt::format(
              "prepared again to be timed (its shape's untimed call shared a trace with other shapes'), it chose "
              "config '{}' where its untimed call ran '{}': the timed call would not be the checked one",
              now, was));
        }
      }
      if (options_.profile_range && hooks_.in_profiler_range) {
        hooks_.in_profiler_range(*options_.profile_range, [&] { p.run(s, c.buffers, backend_.stream()); });
        backend_.synchronize_device();
        backend_.check_errors();
      }

      // Timing: eager first (its median sizes the kernel-only graph), then kernel-only. An
      // integrity refusal of either ends the cell failed: no fallback number is reported for a
      // call the contract cannot time truthfully.
      MeasureOptions mo;
      mo.name = fmt::format("{}/{}", plan_.op_name, name);
      mo.params = params_from_json(shape.args, "(shape ledger)", 0, "args");
      mo.keep_samples = options_.samples;
      mo.working_set_bytes = row.bytes;
      // Inside the contracts: each measurement's own wall time less the judging it did (the
      // verified samples' outputs are judged inside the measurement's window of wall time).
      const auto timed = [&](const Contract& contract) {
        const double judged_before = c.judged_ms();
        Result r = c.checked->measure(contract, mo);
        c.phases.timing_ms += std::max(0.0, r.wall_time_ms - (c.judged_ms() - judged_before));
        return r;
      };
      row.eager = timed(contracts_.eager);
      integrity.merge(row.eager->integrity);
      Contract ko = contracts_.kernel_only;
      if (contracts_.auto_graph_calls && ko.schedule == Schedule::graph) {
        // An op updated in place is verified one call per graph (integrity/checked_subject.h); a
        // replayed run takes the count its source measured the cell with (same contract).
        const auto replayed = config_replay_ ? pinned_graph_calls_for(*config_replay_, shape.shape_id, name)
                                             : std::nullopt;
        ko.graph_calls = updates_in_place ? 1 : replayed ? *replayed : graph_calls_for(row.eager->summary.median_us);
      }
      // A failed kernel-only measurement is classified (runner/capture_failure.h): only a
      // recoverable one lets the row report its eager median, marked and kept apart.
      std::string kernel_only_failure;
      const auto failed_as = [&](CaptureFailureClass kind, const char* what) {
        kernel_only_failure = what;
        row.capture_failure = CaptureFailure{kind, fmt::format("kernel-only {}: {}", contract_brief(ko), what)};
      };
      const auto denied = capture_denied_.find(name);
      if (denied != capture_denied_.end() && ko.schedule == Schedule::graph) {
        row.capture_failure = CaptureFailure{CaptureFailureClass::capture_denied, denied->second};
        kernel_only_failure = "not attempted: " + denied->second;
      } else {
        try {
          row.kernel_only = timed(ko);
          integrity.merge(row.kernel_only->integrity);
        } catch (const IntegrityError& e) {
          // Not a fallback: the row records the refusal and cannot end ok.
          kernel_only_failure = e.what();
          integrity.record(e.check(), CheckOutcome::failed,
                           fmt::format("kernel-only {}: {}", contract_brief(ko), e.what()));
        } catch (const OutOfMemoryError&) {
          throw;  // the cell is oom, like an allocation anywhere else in it
        } catch (const DeviceError& e) {
          healthy = device_healthy(backend_);
          failed_as(classify_capture_failure({dynamic_cast<const CaptureError*>(&e) != nullptr, e.fault(), healthy}),
                    e.what());
        } catch (const ContractError& e) {
          failed_as(CaptureFailureClass::recoverable, e.what());
        } catch (const providers::ProviderError& e) {
          failed_as(CaptureFailureClass::recoverable, e.what());
        }
      }
      if (row.capture_failure && !capture_failure_keeps_eager_number(row.capture_failure->kind)) {
        // No number: the eager measurement stays in the row for the record, the cell failed.
        release(c);
        row.eager_median_us = row.eager->summary.median_us;
        row.timing_method = fmt::format("eager={} (kernel-only {}: {})", contract_brief(row.eager->contract),
                                        contract_brief(ko), to_string(row.capture_failure->kind));
        row.integrity = integrity;
        std::string why = fmt::format("kernel-only measurement: {}: {}", to_string(row.capture_failure->kind),
                                      kernel_only_failure);
        if (!healthy) why += " (the device is no longer usable: the next cells run in a fresh process)";
        finish(c, BenchmarkStatus::failed, std::move(why));
        return;
      }

      const Result& primary = row.kernel_only ? *row.kernel_only : *row.eager;
      row.median_us = primary.summary.median_us;
      row.p10_us = primary.summary.p10_us;
      row.p90_us = primary.summary.p90_us;
      row.stable = primary.stable;
      row.warmup_iters = primary.contract.warmup;
      row.telemetry = to_json(primary.telemetry);
      row.repeat_iters = primary.summary.n;
      row.eager_median_us = row.eager->summary.median_us;
      if (row.kernel_only) {
        if (row.kernel_only->contract.schedule == Schedule::graph) row.graph_median_us = row.kernel_only->summary.median_us;
        row.host_overhead_us = *row.eager_median_us - row.kernel_only->summary.median_us;
        row.timing_method = fmt::format("kernel_only={} eager={}", contract_brief(row.kernel_only->contract),
                                        contract_brief(row.eager->contract));
      } else {
        row.timing_method = fmt::format("eager={} (kernel-only {} {}: {})", contract_brief(row.eager->contract),
                                        contract_brief(ko),
                                        row.capture_failure ? to_string(row.capture_failure->kind) : "failed",
                                        kernel_only_failure);
      }
      // Faster than the device can move the bytes or do the flops: not a result.
      if (ceilings_) {
        for (const Result* r : {row.eager ? &*row.eager : nullptr, row.kernel_only ? &*row.kernel_only : nullptr}) {
          if (!r) continue;
          const IntegrityCheck check = integrity::physical_bound_check(
              {row.bytes, row.flops, r->summary.median_us, s.dtype, r->contract.cache, backend_.device().llc_bytes},
              *ceilings_);
          integrity.record(check.name, check.outcome, check.detail);
        }
      } else {
        integrity.record(integrity_check::physically_possible, CheckOutcome::not_run, ceilings_missing_);
      }
      release(c);
      row.integrity = integrity;
      const IntegrityCheck* before = integrity.find(integrity_check::output_before_timing);
      const bool correct_before = before && before->outcome == CheckOutcome::passed;
      row.correct = correct_before && !integrity_failure_is_incorrect(integrity);
      if (!correct_before) {
        // The judge's own words (they name the output of an op with several); else from the record.
        row.correctness_error = before && before->outcome == CheckOutcome::failed ? before->detail
                                : row.correctness                                 ? ops::failure_reason(*row.correctness)
                                : before                                          ? before->detail
                                                                                  : "";
        finish(c, BenchmarkStatus::incorrect, "output failed the correctness check: " + *row.correctness_error);
      } else if (!*row.correct) {
        row.correctness_error = integrity.first_failure();
        finish(c, BenchmarkStatus::incorrect, "integrity: " + integrity.first_failure());
      } else if (integrity.failed()) {
        const IntegrityCheck* physics = integrity.find(integrity_check::physically_possible);
        if (physics && physics->outcome == CheckOutcome::failed) {
          finish(c, BenchmarkStatus::faster_than_physical, "integrity: " + integrity.first_failure());
        } else {
          finish(c, BenchmarkStatus::failed, "integrity: " + integrity.first_failure());
        }
      } else {
        finish(c, BenchmarkStatus::ok, std::nullopt);
      }
    } catch (...) {
      fail(c, std::current_exception());
    }
  };

  // Ends the shape's trace (CUPTI detaches: nothing is timed under it), charging what detaching
  // cost to the cells whose untimed calls it traced, then times the waiting cells and reports
  // every row, in matrix order. A device that stopped working leaves the waiting cells unreported:
  // a fresh process runs them.
  std::size_t reported = 0;
  auto time_and_report = [&] {
    if (untimed_trace) {
      const double detach_from = now_ms();
      untimed_trace.reset();
      const double detach_ms = now_ms() - detach_from;
      std::size_t traced = 0;
      for (std::size_t i = reported; i < cells.size(); ++i) traced += cells[i]->untimed;
      for (std::size_t i = reported; i < cells.size(); ++i) {
        if (!cells[i]->untimed) continue;
        cells[i]->phases.untimed_check_ms += detach_ms / static_cast<double>(traced);
        cells[i]->spent_ms += detach_ms / static_cast<double>(traced);
      }
    }
    for (; reported < cells.size(); ++reported) {
      Cell& c = *cells[reported];
      if (!c.done) {
        if (!healthy) continue;
        if (events.started) events.started(c.bp->entry->name);
        c.resumed_ms = now_ms();  // the time it waited for the other untimed calls is not its own
        time_cell(c);
      }
      if (c.done && events.finished) events.finished(c.row);
    }
  };

  for (BoundProvider& bp : providers_) {
    if (std::find(names.begin(), names.end(), bp.entry->name) == names.end()) continue;
    if (!healthy) break;
    if (events.started) events.started(bp.entry->name);
    Cell& c = start_cell(bp);
    if (!c.done) c.spent_ms += now_ms() - c.resumed_ms;
    if (!trace_the_shape) time_and_report();
  }
  if (chain && trace_the_shape) {
    // Waits in the chain; the next shape's untimed calls run under the same trace, or, at the
    // chain's end, every waiting shape is timed (this one first when it is the chain's first).
    chain->waiting.push_back(
        {[&] {
           std::size_t n = 0;
           for (std::size_t i = reported; i < cells.size(); ++i) n += cells[i]->untimed;
           return n;
         },
         [&](double ms_per_cell) {
           for (std::size_t i = reported; i < cells.size(); ++i) {
             if (!cells[i]->untimed) continue;
             cells[i]->phases.untimed_check_ms += ms_per_cell;
             cells[i]->spent_ms += ms_per_cell;
           }
         },
         time_and_report});
    if (!chain->extend()) chain->time_all();
  }
  time_and_report();
  // A provider left prepared for this shape (a cell the device loss kept from being timed) is
  // released while the shape's token still means this shape.
  if (healthy) {
    for (BoundProvider& bp : providers_) {
      if (bp.prepared_for != &s) continue;
      bp.impl->release();
      bp.prepared_for = nullptr;
    }
  }
  return healthy;
}

}  // namespace caliber::runner
