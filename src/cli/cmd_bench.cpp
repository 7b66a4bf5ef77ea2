// caliber bench: the built-in micro-kernels (copy, scale, tiny) under any valid contract.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "bench/bench_run.h"
#include "kernels/workload.h"
#include "core/atomic_file.h"
#include "caliber/backend.h"
#include "caliber/errors.h"
#include "caliber/instrument_policy.h"
#include "caliber/measure.h"
#include "io/device_ceilings_file.h"
#include "io/result_csv.h"
#include "caliber/result_json.h"
#include "caliber/result_table.h"
#include "caliber/run_identity.h"
#include "caliber/run_identity_json.h"
#include "cli/cli_common.h"
#include "cli/command.h"
#include "cli/history_options.h"
#include "core/iteration_bounds.h"
#include "core/sampling_limits.h"
#include "identity/collect_run_identity.h"
#include "preflight/preflight.h"
#include "core/unit_text.h"
#include "modules/builtins.h"

namespace caliber::cli {
namespace {

struct BenchOptions {
  std::string backend = "auto";
  int device = 0;
  std::string kernels = "all";
  std::optional<std::string> size;
  std::optional<std::string> instrument;
  std::optional<std::string> cupti_reduction;
  std::optional<std::string> cupti_value;
  std::string throttle_policy = "flag";
  std::string cupti_tracing = "off";
  std::optional<std::string> schedules;
  std::string caches = "cold";
  std::string statistic = "median";
  std::string measure = "device";
  std::int64_t warmup = 10;
  std::optional<std::int64_t> iters;
  std::optional<std::int64_t> min_samples;
  std::optional<double> min_time_ms;
  std::optional<double> max_time_ms;
  std::optional<double> target_precision;
  std::int64_t graph_calls = 20;
  std::uint64_t seed = 1;
  bool samples = false;
  bool no_telemetry = false;
  double telemetry_period_ms = 10.0;
  bool telemetry_samples = false;
  std::int64_t selftest_extra_launches = 0;  // gate self-test: a deliberately slower run
  bool allow_shared_device = false;
  std::optional<std::string> json_path;
  std::optional<std::string> csv_path;
  // Not an option: the run identity sidecars, collected by run_bench before the backend opens
  // and written with every write of the results.
  std::vector<PendingFile> identity_sidecars;
};

IterationRule iteration_rule(const BenchOptions& o) {
  IterationRule rule;
  const bool adaptive_given = o.min_samples || o.min_time_ms || o.max_time_ms || o.target_precision;
  if (o.iters) {
    if (adaptive_given) {
      throw UsageError("--iters (a fixed count) cannot be combined with --min-samples, "
                       "--min-time-ms, --max-time-ms or --target-precision (the adaptive rule)");
    }
    require_count_option(*o.iters, "--iters", kMaxSampleCount);
    rule.mode = IterationRule::Mode::fixed;
    rule.count = *o.iters;
    return rule;
  }
  rule.mode = IterationRule::Mode::adaptive;
  if (o.min_samples) {
    require_count_option(*o.min_samples, "--min-samples", kMaxSampleCount);
    rule.min_samples = *o.min_samples;
  }
  if (o.min_time_ms) {
    require_time_option(*o.min_time_ms, "--min-time-ms", /*positive=*/false);
    rule.min_time_ms = *o.min_time_ms;
  }
  if (o.max_time_ms) {
    require_time_option(*o.max_time_ms, "--max-time-ms", /*positive=*/true);
    rule.max_time_ms = *o.max_time_ms;
  }
  if (o.target_precision) rule.target_rel_halfwidth = *o.target_precision;
  if (auto why = why_invalid_adaptive_bounds(rule, kAdaptiveBoundOptions)) throw UsageError(*why);
  return rule;
}

// Expands "all" or a comma list into names, each checked by `parse` (which throws UsageError).
template <typename T, typename Parse>
std::vector<T> expand(const std::string& text, const std::vector<T>& all, const char* option,
                      Parse parse, bool& is_all) {
  is_all = text == "all";
  if (is_all) return all;
  std::vector<T> out;
  for (const auto& item : split_list(text, option)) {
    try {
      out.push_back(parse(item));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: {}", option, e.what()));
    }
  }
  return out;
}

// --instrument: a name, auto, or the backend's default; host-dispatch is always wallclock.
InstrumentSelection choose_instrument(const BenchOptions& o, BackendKind backend) {
  if (o.measure == "host-dispatch") {
    if (o.instrument && *o.instrument != "wallclock" && *o.instrument != "auto") {
      throw UsageError(fmt::format("--measure host-dispatch is read from the host clock: "
                                   "--instrument must be wallclock (got {})",
                                   *o.instrument));
    }
    InstrumentSelection s;
    s.instrument = Instrument::wallclock;
    s.choice.requested = o.instrument.value_or("wallclock");
    s.choice.reason = "host-dispatch is read from the host clock";
    return s;
  }
  try {
    return select_instrument(o.instrument.value_or(""), backend, [backend](Instrument i) {
      return instrument_unavailable_reason(backend, i);
    });
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--instrument: {}", e.what()));
  }
}

std::vector<bool> tracing_modes(const std::string& text) {
  std::vector<bool> out;
  for (const auto& item : split_list(text, "--cupti-tracing")) {
    if (item == "off") out.push_back(false);
    else if (item == "on") out.push_back(true);
    else throw UsageError(fmt::format("--cupti-tracing: unknown value '{}' (expected off, on, or off,on)", item));
  }
  return out;
}

// The contract every combination starts from: the options that are the same for all of them.
Contract base_contract(const BenchOptions& o, BackendKind backend, Instrument instrument) {
  require_count_option(o.warmup, "--warmup", kMaxWarmupCalls);
  require_count_option(o.graph_calls, "--graph-calls", kMaxSampleCount);
  Contract base = default_contract(backend);
  base.instrument = instrument;
  if (o.cupti_reduction) {
    try {
      base.cupti_reduction = parse_cupti_reduction(*o.cupti_reduction);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--cupti-reduction: {}", e.what()));
    }
    // auto may fall back to event, where the reduction is moot; anything else is a mistake.
    if (instrument != Instrument::cupti && o.instrument.value_or("") != "auto") {
      throw UsageError(fmt::format("--cupti-reduction applies to instrument cupti only (the instrument is {})",
                                   to_string(instrument)));
    }
  }
  if (o.cupti_value) {
    try {
      base.cupti_value = parse_cupti_value(*o.cupti_value);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--cupti-value: {}", e.what()));
    }
    if (instrument != Instrument::cupti) {
      if (o.instrument.value_or("") != "auto") {
        throw UsageError(fmt::format("--cupti-value applies to instrument cupti only (the instrument is {})",
                                     to_string(instrument)));
      }
      base.cupti_value = CuptiValue::automatic;  // auto fell back to event: no CUPTI value to choose
    }
  }
  try {
    base.throttle_policy = parse_throttle_policy(o.throttle_policy);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--throttle-policy: {}", e.what()));
  }
  return base;
}

// The rest of the base contract, then the lists the combinations are drawn from.
bench::BenchPlanRequest plan_request(const BenchOptions& o, BackendKind backend, Instrument instrument) {
  bench::BenchPlanRequest request;
  Contract& base = request.base;
  base = base_contract(o, backend, instrument);
  request.tracing = tracing_modes(o.cupti_tracing);
  try {
    base.statistic = parse_statistic(o.statistic);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--statistic: {}", e.what()));
  }
  if (o.measure == "host-dispatch") {
    base.quantity = Quantity::host_dispatch;
  } else if (o.measure != "device") {
    throw UsageError(fmt::format("--measure: unknown value '{}' (expected device|host-dispatch)", o.measure));
  }
  if (base.quantity == Quantity::host_dispatch) base.schedule = Schedule::isolated;
  base.warmup = o.warmup;
  base.iterations = iteration_rule(o);
  base.graph_calls = o.graph_calls;

  std::vector<std::string> kernel_names;
  for (const auto& k : bench::builtin_kernels(backend)) {
    if (k.in_all) kernel_names.push_back(k.name);  // self-tests and heavy probes run only when named
  }
  bool kernels_all = false, schedules_all = false, caches_all = false;
  request.kernels = expand<std::string>(o.kernels, kernel_names, "--kernel", [](const std::string& s) { return s; },
                                        kernels_all);
  request.schedules =
      o.schedules ? expand<Schedule>(*o.schedules,
                                     {Schedule::isolated, Schedule::per_iter, Schedule::pipelined, Schedule::graph},
                                     "--schedule", parse_schedule, schedules_all)
                  : std::vector<Schedule>{base.schedule};
  request.caches = expand<CachePolicy>(o.caches, {CachePolicy::warm, CachePolicy::cold, CachePolicy::rotate},
                                       "--cache", parse_cache_policy, caches_all);
  request.skip_refused = schedules_all || caches_all;
  return request;
}

// The combinations to measure; the refused ones of "all" are named on stderr.
std::vector<bench::BenchCombination> plan(const BenchOptions& o, BackendKind backend, Instrument instrument) {
  const bench::BenchPlan planned = bench::plan_bench(plan_request(o, backend, instrument));
  for (const auto& line : planned.skipped) std::cerr << line << '\n';
  if (planned.combinations.empty()) throw UsageError("no valid contract to measure: every combination was refused");
  return planned.combinations;
}

// Every results file gets its run identity as a sidecar, <dir>/<stem>.run_identity.json
// (docs/identity.md, "Run directories"). Collected before the backend opens; written with the
// results (write_outputs), so a run that fails before its first result leaves nothing behind.
std::vector<PendingFile> identity_sidecars(const BenchOptions& o, const RunIdentity& base) {
  std::vector<std::string> files;
  if (o.json_path) files.push_back(*o.json_path);
  if (o.csv_path) files.push_back(*o.csv_path);
  std::vector<PendingFile> out;
  for (const std::string& f : files) {
    RunIdentity id = base;
    for (const std::string& g : files) {
      if (std::filesystem::path(g).parent_path() == std::filesystem::path(f).parent_path()) {
        id.outputs.push_back(std::filesystem::path(g).filename().string());
      }
    }
    const std::string path = sidecar_identity_path(f);
    // a.json and a.csv share a.run_identity.json (the same content: both list both files).
    if (std::none_of(out.begin(), out.end(), [&](const PendingFile& p) { return p.path == path; })) {
      out.push_back({path, to_json(id).dump(2) + "\n"});
    }
  }
  return out;
}

// The results so far and their identity sidecars, all or nothing (a full disk leaves the files
// of the previous write, never a sidecar without results); the CSV only once complete.
void write_outputs(const BenchOptions& o, const std::vector<Result>& results, bool complete) {
  std::vector<PendingFile> files = o.identity_sidecars;
  if (o.json_path) {
    std::ostringstream out;
    write_results_json(out, results, complete, o.samples);
    files.push_back({*o.json_path, out.str()});
  }
  // The CSV has no completeness mark (compare would read a partial one as the whole run): it is
  // written once every measurement is done, and none stands beside an incomplete JSON.
  if (o.csv_path && complete) {
    std::ostringstream out;
    write_results_csv(out, results);
    files.push_back({*o.csv_path, out.str()});
  } else if (o.csv_path) {
    std::error_code ec;
    std::filesystem::remove(*o.csv_path, ec);
  }
  if (!files.empty()) write_files_atomically(files);
}

// --json, --csv and their sidecars are distinct files: one written over another would lose it.
void require_distinct_outputs(const BenchOptions& o) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> named;  // (normalized path, what it is)
  auto add = [&](const std::string& path, const std::string& what) {
    const std::string key = fs::absolute(path).lexically_normal().string();
    for (const auto& [other, other_what] : named) {
      if (other == key) throw UsageError(fmt::format("{} {} is also {}: each output needs its own file", what, path, other_what));
    }
    named.emplace_back(key, what);
  };
  if (o.json_path) add(*o.json_path, "--json");
  if (o.csv_path) add(*o.csv_path, "--csv");
  std::vector<std::string> sidecars;
  for (const auto* f : {&o.json_path, &o.csv_path}) {
    if (!*f) continue;
    const std::string sidecar = sidecar_identity_path(**f);
    if (std::find(sidecars.begin(), sidecars.end(), sidecar) != sidecars.end()) continue;
    sidecars.push_back(sidecar);
    add(sidecar, fmt::format("the run identity sidecar of {}", **f));
    require_writable_file(sidecar, fmt::format("the run identity sidecar of {}", **f));
  }
}

// The output files: writable, and each its own.
void check_run_options(const BenchOptions& o) {
  if (o.json_path) require_writable_file(*o.json_path, "--json");
  if (o.csv_path) require_writable_file(*o.csv_path, "--csv");
  require_distinct_outputs(o);
}

// Whether every combination can run here: tracing needs CUPTI, kernel names must exist.
// Refused before the device is opened.
void check_combinations(const std::vector<bench::BenchCombination>& combos, BackendKind kind) {
  for (const auto& c : combos) {
    if (c.cupti_tracing && c.contract.instrument != Instrument::cupti) {
      if (auto why = instrument_unavailable_reason(kind, Instrument::cupti)) {
        throw ContractError(fmt::format("--cupti-tracing on: CUPTI is not available: {}", *why));
      }
    }
  }
  for (const auto& c : combos) {
    bool known = false;
    for (const auto& k : bench::builtin_kernels(kind)) known = known || k.name == c.kernel;
    if (!known) {
      std::string names;
      for (const auto& k : bench::builtin_kernels(kind)) names += (names.empty() ? "" : "|") + k.name;
      throw UsageError(fmt::format("--kernel: unknown kernel '{}' for the {} backend (expected {})",
                                   c.kernel, to_string(kind), names));
    }
  }
}

// Named checks before anything is measured (exit 3), then the run identity of the results files.
void check_and_identify(BenchOptions& o, BackendKind kind, const std::vector<bench::BenchCombination>& combos) {
  std::vector<Contract> contracts;
  for (const auto& c : combos) contracts.push_back(c.contract);
  run_preflight(measurement_preflight_checks(kind, o.device, contracts, o.allow_shared_device, system_device_probe(),
                                             system_shared_libraries()),
                std::cerr);
  if (o.json_path || o.csv_path) {
    // Before the backend opens: the clocks are those at the start, and this process holds no
    // context yet, so the device's process list shows only others.
    IdentityRequest request;
    const std::vector<DeviceInfo> devices = list_devices(kind);
    if (o.device < static_cast<int>(devices.size())) {
      request.device = devices[static_cast<std::size_t>(o.device)];
      request.contracts = contracts_by_schedule_and_cache(contracts);
      o.identity_sidecars = identity_sidecars(o, collect_run_identity(request, system_device_probe()));
    }
  }
}

// How each combination is measured; the instrument's selection is added once chosen.
bench::BenchRunOptions run_options(const BenchOptions& o, BackendKind kind) {
  bench::BenchRunOptions r;
  r.size_bytes = o.size ? parse_size_bytes(*o.size, "--size") : (kind == BackendKind::cuda ? 256ull << 20 : 32ull << 20);
  r.seed = o.seed;
  r.extra_launches = o.selftest_extra_launches;
  r.keep_samples = o.samples;
  r.telemetry = !o.no_telemetry;
  r.telemetry_period_ms = o.telemetry_period_ms;
  r.keep_telemetry_samples = o.telemetry_samples;
  return r;
}

// One line per measurement on stderr, and the results so far written (a run cut short keeps them).
bench::BenchProgress report_progress(const BenchOptions& o, std::size_t total) {
  return [&o, total](const bench::BenchCombination& combo, const std::vector<Result>& results) {
    const Result& r = results.back();
    const Contract& c = r.contract;
    const bool integrity_failed = r.integrity.failed();
    std::cerr << fmt::format("[{}/{}] {} {}/{}/{}{}: {} {} us (n={}{}){}\n", results.size(), total, r.name,
                             to_string(c.instrument), to_string(c.schedule), to_string(c.cache),
                             combo.cupti_tracing ? " +cupti-tracing" : "", c.statistic.name(),
                             format_us(r.value_us), r.summary.n, r.stable ? "" : ", UNSTABLE",
                             integrity_failed ? " INTEGRITY FAILED: " + r.integrity.first_failure() : "");
    write_outputs(o, results, /*complete=*/false);
  };
}

int run_bench(BenchOptions o) {
  // Everything the user typed is checked before any device is touched or file created.
  check_run_options(o);
  const BackendKind kind = parse_backend_option(o.backend);
  if (o.device < 0) throw UsageError(fmt::format("--device must be >= 0 (got {})", o.device));
  bench::BenchRunOptions run = run_options(o, kind);
  if (o.selftest_extra_launches < 0) {
    throw UsageError(fmt::format("--selftest-extra-launches must be >= 0 (got {})", o.selftest_extra_launches));
  }
  if (!(o.telemetry_period_ms > 0)) {
    throw UsageError(fmt::format("--telemetry-period-ms must be > 0 (got {})", o.telemetry_period_ms));
  }
  run.instrument_selection = choose_instrument(o, kind);
  const std::vector<bench::BenchCombination> combos = plan(o, kind, run.instrument_selection.instrument);
  check_combinations(combos, kind);
  check_and_identify(o, kind, combos);

  auto backend = open_backend(kind, o.device);
  run.calibrated_ceilings = calibrated_ceilings(std::nullopt, backend->device());
  const std::vector<Result> results = bench::run_bench_plan(*backend, combos, run, report_progress(o, combos.size()));
  write_outputs(o, results, /*complete=*/true);
  write_results_table(std::cout, results);
  const auto integrity_failures = std::count_if(results.begin(), results.end(),
                                                [](const Result& r) { return r.integrity.failed(); });
  if (integrity_failures > 0) {
    std::cerr << fmt::format("caliber bench: {} of {} measurements failed an integrity check; their numbers are not "
                             "results (docs/integrity.md)\n",
                             integrity_failures, results.size());
    return kExitFailed;
  }
  return kExitOk;
}

const RegisterCommand registration{20, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = root.add_subcommand("bench", "Measure the built-in micro-kernels (copy, scale, tiny, ...)");
  cmd->add_option("--backend", o->backend, "host | cuda | auto (the GPU if one is visible, else host)")
      ->capture_default_str();
  cmd->add_option("--device", o->device, "Device index")->capture_default_str();
  cmd->add_option("--kernel", o->kernels,
                  "Kernel name or comma list: copy, scale, tiny; cuda also: two_streams (tiny plus a "
                  "scale on a second stream), gemm_bf16 (cuBLAS 4096^3), fault (a self-test that must "
                  "fail); all = copy,scale,tiny")
      ->capture_default_str();
  cmd->add_option("--size", o->size,
                  "Bytes of one input for copy/scale, e.g. 1GiB (default: 256MiB cuda, 32MiB host)");
  cmd->add_option("--instrument", o->instrument,
                  "cupti | event | wallclock | auto (cupti when available, else event, recorded with "
                  "the reason) (default: event on cuda, wallclock on host); docs/cupti.md");
  cmd->add_option("--cupti-value", o->cupti_value,
                  "auto (default) | cupti | event: with instrument cupti, which clock gives the value; the same "
                  "call is also measured with events (tracing off) and the difference reported "
                  "(docs/cupti.md, Perturbation)");
  cmd->add_option("--cupti-reduction", o->cupti_reduction,
                  "busy (union of kernel intervals, default) | sum | span: how a sample's CUPTI "
                  "records become one duration");
  cmd->add_option("--throttle-policy", o->throttle_policy,
                  "flag | discard | fail: what happens to samples that may have run throttled "
                  "(docs/telemetry.md)")
      ->capture_default_str();
  cmd->add_option("--cupti-tracing", o->cupti_tracing,
                  "off | on | off,on: keep CUPTI tracing on while measuring with event or wallclock, "
                  "to measure what tracing costs (off,on measures both in one process)")
      ->capture_default_str();
  cmd->add_flag("--no-telemetry", o->no_telemetry, "Do not sample device telemetry (NVML)");
  cmd->add_option("--telemetry-period-ms", o->telemetry_period_ms,
                  "Milliseconds between telemetry readings during a measurement")
      ->capture_default_str();
  cmd->add_flag("--telemetry-samples", o->telemetry_samples,
                "Include the raw telemetry readings in the JSON output");
  cmd->add_option("--schedule", o->schedules,
                  "isolated | per_iter | pipelined | graph, a comma list, or all (all valid ones; "
                  "default: per_iter on cuda, isolated on host)");
  cmd->add_option("--cache", o->caches, "warm | cold | rotate, a comma list, or all")->capture_default_str();
  cmd->add_option("--statistic", o->statistic, "median | mean | min | pNN")->capture_default_str();
  cmd->add_option("--measure", o->measure,
                  "device (the work's duration) | host-dispatch (host clock around the launch "
                  "only; device drained after the timer)")
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Untimed calls before sampling (>= 1)")->capture_default_str();
  cmd->add_option("--iters", o->iters,
                  "Fixed iteration count: samples, or calls in the one pipelined window "
                  "(default: the adaptive rule)");
  cmd->add_option("--min-samples", o->min_samples, "Adaptive: minimum samples (default 20)");
  cmd->add_option("--min-time-ms", o->min_time_ms, "Adaptive: minimum sampling wall time, ms (default 20)");
  cmd->add_option("--max-time-ms", o->max_time_ms, "Adaptive: maximum sampling wall time, ms (default 1000)");
  cmd->add_option("--target-precision", o->target_precision,
                  "Adaptive: stop when the median's 95% CI is within +/- this fraction (default 0.005)");
  cmd->add_option("--graph-calls", o->graph_calls, "Calls captured per graph replay (schedule graph)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the random inputs")->capture_default_str();
  cmd->add_flag("--samples", o->samples, "Include raw samples in the JSON output");
  cmd->add_option("--selftest-extra-launches", o->selftest_extra_launches,
                  "Gate self-test: launch the kernel this many extra times per call, so the run is "
                  "deliberately slower under the same name and contract (recorded as a warning; "
                  "docs/gate.md)")
      ->capture_default_str();
  cmd->add_flag("--allow-shared-device", o->allow_shared_device,
                "Measure even when another compute process is on the device (preflight warns instead of failing)");
  cmd->add_option("--json", o->json_path,
                  "Write results as JSON (schemas/results.schema.json), and the run identity beside it as "
                  "<stem>.run_identity.json");
  cmd->add_option("--csv", o->csv_path,
                  "Write results as CSV (with the same run identity sidecar) once every measurement is done");
  auto h = std::make_shared<RunHistory>();
  add_run_history_options(*cmd, *h);
  cmd->callback([o, h, &exit_code] {
    if (h->history && !o->json_path && !o->csv_path) {
      throw UsageError("--history needs --json or --csv: the results file it adds");
    }
    exit_code = with_run_history(*h, [&] { return run_bench(*o); },
                                 [&] { return o->json_path ? *o->json_path : *o->csv_path; });
  });
}};

}  // namespace
}  // namespace caliber::cli
