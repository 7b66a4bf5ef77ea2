#include "runner/shape_runner.h"

#include <chrono>
#include <new>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/measure.h"
#include "caliber/result_json.h"
#include "core/utc_time.h"
#include "ops/correctness.h"
#include "providers/plugin_provider.h"

namespace caliber::runner {
namespace {

std::string contract_brief(const Contract& c) {
  std::string s = fmt::format("{}/{}/{}", to_string(c.instrument), to_string(c.schedule), to_string(c.cache));
  if (c.schedule == Schedule::graph) s += fmt::format("(graph_calls={})", c.graph_calls);
  return s;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// The inputs of one shape, built once on the host and copied once to the device.
struct ShapeInputs {
  std::vector<ops::HostTensor> host;
  std::vector<DeviceBuffer> device;
  std::unique_ptr<ops::Reference> reference;  // computed on first use
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::vector<BoundProvider> bind_providers(const RunPlan& plan, BackendKind backend) {
  std::vector<BoundProvider> out;
  for (const MatrixProvider& p : plan.matrix.providers) {
    BoundProvider b;
    b.entry = &p;
    if (!p.enabled) {
      b.not_configured = fmt::format("disabled in the baseline matrix: {}", p.skip_reason.value_or(""));
    } else if (p.entrypoint->kind == Entrypoint::Kind::builtin) {
      b.impl = providers::make_builtin_provider(backend, plan.op, p.entrypoint->builtin);
      if (!b.impl) {
        b.not_configured = fmt::format("no built-in provider '{}' for {} on the {} backend (built-ins: {})",
                                       p.entrypoint->builtin, ops::to_string(plan.op), to_string(backend),
                                       join_names(providers::builtin_provider_names(backend, plan.op)));
      }
    } else {
      try {
        b.impl = providers::load_plugin_provider(resolved_library(*p.entrypoint, plan.matrix.file),
                                                 p.entrypoint->symbol, plan.op, backend);
      } catch (const std::exception& e) {
        b.not_configured = e.what();
      }
    }
    if (b.impl) {
      if (auto why = b.impl->unavailable()) {
        b.not_configured = *why;
        b.impl.reset();
      }
    }
    out.push_back(std::move(b));
  }
  return out;
}

bool device_healthy(Backend& backend) {
  try {
    backend.synchronize_device();
    backend.check_errors();
    return true;
  } catch (...) {
    return false;
  }
}

ShapeRunner::ShapeRunner(Backend& backend, const RunPlan& plan, RunContracts contracts, const RunOptions& options,
                         RowProvenance identity, std::vector<BoundProvider>& providers, CallHooks hooks)
    : backend_(backend),
      plan_(plan),
      contracts_(std::move(contracts)),
      options_(options),
      identity_(std::move(identity)),
      providers_(providers),
      hooks_(std::move(hooks)) {}

bool ShapeRunner::run(const ShapeRow& shape, const std::vector<std::string>& names, const ShapeEvents& events) {
  const ops::OpShape s = ops::parse_op_shape(plan_.op, shape.dtype, shape.layout, shape.args, shape.shape_id,
                                             shape.line, "args");
  const ops::Op& op = ops::op_for(plan_.op);
  // Each shape's own seed: --seed mixed with the 64 bits of its id (the same on every platform).
  const std::uint64_t id_bits = std::stoull(shape.shape_id.substr(shape.shape_id.find(':') + 1, 16), nullptr, 16);
  const std::uint64_t seed = ops::mix64(options_.seed ^ ops::mix64(id_bits));
  ShapeInputs inputs;
  std::optional<std::string> inputs_failed;  // set once building the inputs failed: every cell gets it
  BenchmarkStatus inputs_status = BenchmarkStatus::failed;
  bool healthy = true;

  auto build_inputs = [&]() -> bool {
    if (!inputs.host.empty()) return true;
    if (inputs_failed) return false;
    try {
      const std::uint64_t need = op.bytes(s);
      const std::uint64_t have = backend_.device().memory_bytes;
      if (have > 0 && need > have) {
        inputs_status = BenchmarkStatus::oom;
        inputs_failed = fmt::format("inputs and output need {} bytes; the device has {} bytes", need, have);
        return false;
      }
      inputs.host = op.make_inputs(s, seed);
      for (const ops::HostTensor& t : inputs.host) {
        inputs.device.emplace_back(backend_, t.bytes());
        backend_.copy_to_device(inputs.device.back().get(), t.data(), t.bytes());
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
    inputs.host.clear();
    inputs.device.clear();
    return false;
  };

  for (BoundProvider& bp : providers_) {
    const std::string& name = bp.entry->name;
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    if (!healthy) break;
    if (events.started) events.started(name);
    const double t0 = now_ms();
    BenchmarkResultRow row = base_row(identity_, shape, name);
    auto finish = [&](BenchmarkStatus status, std::optional<std::string> reason) {
      row.benchmark_status = status;
      row.status_reason = std::move(reason);
      row.cell_wall_time_ms = now_ms() - t0;
      row.finished_at = utc_timestamp_now();
      if (events.finished) events.finished(row);
    };

    if (bp.not_configured) {
      row.provider_detail = bp.entry->provider;
      finish(BenchmarkStatus::not_configured, *bp.not_configured);
      continue;
    }
    providers::Provider& p = *bp.impl;
    const providers::ProviderFlags flags = p.flags();
    row.includes_allocation = flags.includes_allocation;
    row.includes_layout_conversion = flags.includes_layout_conversion;
    row.includes_jit = flags.includes_jit;
    row.provider_detail = p.detail(s);
    if (!plan_.selected_provider(name)) {
      finish(BenchmarkStatus::skipped, "not selected for this run (--providers)");
      continue;
    }
    if (shape.layout != plan_.matrix.layout_contract) {
      finish(BenchmarkStatus::unsupported, fmt::format("layout {} differs from the matrix's layout_contract {}",
                                                       shape.layout, plan_.matrix.layout_contract));
      continue;
    }
    const providers::Support support = p.supports(s);
    if (support.kind == providers::Support::Kind::unsupported) {
      finish(BenchmarkStatus::unsupported, support.reason);
      continue;
    }
    if (support.kind == providers::Support::Kind::skipped) {
      finish(BenchmarkStatus::skipped, support.reason);
      continue;
    }
    if (!build_inputs()) {
      finish(inputs_status, *inputs_failed);
      continue;
    }

    DeviceBuffer output;
    try {
      p.prepare(s, backend_);
      row.provider_detail = p.detail(s);  // after prepare: e.g. the algorithm a library picked
      const ops::TensorSpec out_spec = op.output(s);
      ops::HostTensor host_out(out_spec.name, s.dtype, out_spec.rows, out_spec.cols);
      output = DeviceBuffer(backend_, host_out.bytes());
      providers::OpBuffers buffers;
      for (const DeviceBuffer& b : inputs.device) buffers.inputs.push_back(b.get());
      buffers.output = output.get();

      // Correctness: poison the output with NaN (0xFF bytes are NaN in every dtype), one call,
      // compare with the fp64 reference.
      backend_.fill_bytes(output.get(), 0xFF, output.bytes());
      const auto untimed_call = [&] { p.run(s, buffers, backend_.stream()); };
      if (hooks_.record_code) {
        hooks_.record_code(untimed_call);
      } else {
        untimed_call();
      }
      backend_.synchronize_device();
      backend_.check_errors();
      backend_.copy_to_host(host_out.data(), output.get(), host_out.bytes());
      if (!inputs.reference) inputs.reference = std::make_unique<ops::Reference>(op, s, inputs.host);
      const CorrectnessCheck check = ops::check_output(*inputs.reference, host_out, ops::tolerance_for(s.dtype));
      row.correctness = check;
      row.correct = ops::passed(check);
      if (!*row.correct) row.correctness_error = ops::failure_reason(check);
      if (options_.profile_range && hooks_.in_profiler_range) {
        hooks_.in_profiler_range(*options_.profile_range, untimed_call);
        backend_.synchronize_device();
        backend_.check_errors();
      }

      // Timing: eager first (its median sizes the kernel-only graph), then kernel-only.
      MeasureOptions mo;
      mo.name = fmt::format("{}/{}", ops::to_string(plan_.op), name);
      mo.params = shape.args;
      mo.keep_samples = options_.samples;
      mo.working_set_bytes = row.bytes;
      const Callable call = [&](const LaunchContext& ctx) { p.run(s, buffers, ctx.stream); };
      row.eager = measure(backend_, call, contracts_.eager, mo);
      Contract ko = contracts_.kernel_only;
      if (contracts_.auto_graph_calls && ko.schedule == Schedule::graph) {
        ko.graph_calls = graph_calls_for(row.eager->summary.median_us);
      }
      std::string kernel_only_failure;
      try {
        row.kernel_only = measure(backend_, call, ko, mo);
      } catch (const DeviceError& e) {
        kernel_only_failure = e.what();
        healthy = device_healthy(backend_);
      } catch (const ContractError& e) {
        kernel_only_failure = e.what();
      } catch (const providers::ProviderError& e) {
        kernel_only_failure = e.what();
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
        row.timing_method = fmt::format("eager={} (kernel-only {} failed: {})", contract_brief(row.eager->contract),
                                        contract_brief(ko), kernel_only_failure);
      }
      p.release();
      output.reset();
      if (*row.correct) {
        finish(BenchmarkStatus::ok, std::nullopt);
      } else {
        finish(BenchmarkStatus::incorrect, "output failed the correctness check: " + *row.correctness_error);
      }
      continue;
    } catch (const OutOfMemoryError& e) {
      output.reset();
      p.release();
      finish(BenchmarkStatus::oom, e.what());
      continue;
    } catch (const std::bad_alloc&) {
      output.reset();
      p.release();
      finish(BenchmarkStatus::oom, "host allocation failed");
      continue;
    } catch (const providers::UnsupportedShape& e) {
      p.release();
      finish(BenchmarkStatus::unsupported, e.what());
      continue;
    } catch (const DeviceError& e) {
      healthy = device_healthy(backend_);
      output.reset();
      p.release();
      finish(BenchmarkStatus::failed, healthy ? std::string(e.what())
                                              : std::string(e.what()) + " (the device is no longer usable: the "
                                                                        "next cells run in a fresh process)");
      continue;
    } catch (const std::exception& e) {
      output.reset();
      p.release();
      finish(BenchmarkStatus::failed, e.what());
      continue;
    }
  }
  return healthy;
}

}  // namespace caliber::runner
