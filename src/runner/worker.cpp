#include "runner/worker.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "results/benchmark_results.h"
#include "caliber/clock.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "caliber/run_identity.h"
#include "caliber/run_identity_json.h"
#include "core/json_fields.h"
#include "device/device_probe.h"
#include "identity/collect_run_identity.h"
#include "preflight/preflight.h"
#include "runner/shape_runner.h"
#include "runner/worker_token.h"
#include "caliber/config.h"
#include "core/subprocess.h"
#include "integrity/device_ceilings.h"
#include "modules/backend_module.h"
#include "fingerprint/code_fingerprint.h"
#include "io/device_ceilings_file.h"
#include "io/benchmark_results_json.h"

namespace caliber::runner {
namespace {

// Every event carries the worker's channel token (runner/worker_token.h).
class EventWriter {
 public:
  EventWriter(int fd, std::string token) : fd_(fd), token_(std::move(token)) {}
  void send(nlohmann::json event) {
    event["token"] = token_;
    const std::string line = event.dump() + "\n";
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        // The parent is gone: nothing left to report to.
        std::_Exit(1);
      }
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  int fd_;
  std::string token_;
};

// The device half of caliber run's preflight, in the measuring process (the parent never
// initializes CUDA, and a process holding no context yet lists only the others on the device).
// A failure is reported to the parent, which prints it and exits 3.
bool device_preflight(const RunOptions& options, BackendKind kind, const RunContracts& contracts,
                      EventWriter& events) {
  try {
    run_preflight(measurement_preflight_checks(kind, options.device, {contracts.kernel_only, contracts.eager},
                                               options.allow_shared_device, system_device_probe(),
                                               system_shared_libraries()),
                  std::cerr);
    return true;
  } catch (const PreflightError& e) {
    nlohmann::json failures = nlohmann::json::array();
    for (const auto& f : e.failures()) failures.push_back({{"check", f.check}, {"detail", f.detail}});
    events.send({{"event", "preflight_failed"}, {"failures", failures}});
    return false;
  }
}

// The run identity, collected before the device is opened: the clocks are those at the start and
// the process list shows only other processes (docs/identity.md).
caliber::RunIdentity start_identity(const RunOptions& options, const RunPlan& plan, BackendKind kind,
                           const RunContracts& contracts) {
  IdentityRequest request;
  const std::vector<DeviceInfo> devices = list_devices(kind);
  if (options.device >= 0 && options.device < static_cast<int>(devices.size())) {
    request.device = devices[static_cast<std::size_t>(options.device)];
  }
  request.contracts = {{"kernel_only", contracts.kernel_only}, {"eager", contracts.eager}};
  request.provider_libraries = plugin_libraries(plan);
  // A described op's description defines what its numbers mean (tensors, bytes, flops, tolerance).
  if (plan.described && !plan.described->shipped()) request.provider_libraries.emplace_back("op_description", plan.described->description().file);
  // A worker Python hosts (runner/worker_command.h): the run is by the caliber executable that
  // started it, and the caliber code that measures is the library this process loaded.
  if (const std::string lib = harness_binary(); lib != self_executable()) {
    if (const char* exe = std::getenv("CALIBER_HARNESS_EXECUTABLE"); exe && *exe) request.harness_executable = exe;
    request.provider_libraries.emplace_back("caliber_worker_library", lib);
  }
  request.shape_ledger = options.shape_ledger;
  request.baseline_matrix = options.baseline_matrix;
  request.outputs = {kBenchmarkResultsFileName, kBenchmarkResultsCsvFileName};
  return collect_run_identity(request, system_device_probe());
}

// Adds what this worker's cells executed to the run's code_fingerprint.json (workers of one run
// write in turn, so the file is the union over the run; docs/screen.md).
void merge_into_run_fingerprint(const RunOptions& options, const CodeFingerprint& mine) {
  if (mine.source.empty()) return;
  const std::string path = (std::filesystem::path(options.out) / kCodeFingerprintFileName).string();
  CodeFingerprint all = mine;
  if (std::filesystem::exists(path)) all = merge_code_fingerprints(read_code_fingerprint(path), mine);
  write_code_fingerprint(path, all);
}


WorkerHooks make_worker_hooks(const RunOptions& options, const RunPlan& plan, BackendKind kind) {
  WorkerHooks w;
  const BackendModule& module = backend_module(kind);
  if (!module.make_device_code_recorder) {
    // The code is what the binary and the plugin libraries contain (per library, not per kernel).
    std::vector<std::pair<std::string, std::string>> libraries = plugin_libraries(plan);
    libraries.emplace_back("caliber", harness_binary());
    // Hashed once per worker: the code a worker loaded does not change while it runs, and hashing
    // the binary after every shape cost seconds per shape for a large (sanitizer) build.
    auto hashed = std::make_shared<std::optional<CodeFingerprint>>();
    w.fingerprint = [libraries, hashed] {
      if (!*hashed) *hashed = host_code_fingerprint(libraries);
      return **hashed;
    };
    return w;
  }
  w.hooks.in_profiler_range = module.in_profiler_range;
  if (options.profile_range) return w;  // the profiler owns the device's tracing while profiling
  // Before the device is opened: modules load lazily at their first launch, after this.
  w.recorder = module.make_device_code_recorder();
  if (const std::optional<std::string> why = w.recorder->unavailable()) {
    std::cerr << "caliber run: no code fingerprint: " << *why << '\n';
    w.recorder.reset();
    return w;
  }
  DeviceCodeRecorder* recorder = w.recorder.get();
  w.fingerprint = [recorder] { return recorder->fingerprint(); };
  w.hooks.on_census = [recorder](const DeviceWorkCensus& census) {
    recorder->record_kernels(census.mangled_kernel_names);
  };
  return w;
}

}  // namespace

WorkerDevice::WorkerDevice() = default;
WorkerDevice::~WorkerDevice() = default;

std::unique_ptr<WorkerDevice> open_worker_device(const RunOptions& options, BackendKind kind) {
  auto d = std::make_unique<WorkerDevice>();
  d->kind = kind;
  d->index = options.device;
  // The plan is needed only by a backend without a device-code recorder (its hooks are the
  // plan's libraries), and such a backend is given its hooks per run (serve_run).
  d->hooks = make_worker_hooks(options, RunPlan{}, kind);
  d->backend = open_backend(kind, options.device);
  return d;
}

int run_worker(const RunOptions& options) {
  return serve_run(options, nullptr, [](std::string& line) { return static_cast<bool>(std::getline(std::cin, line)); });
}

namespace {

// Where the worker's start-up went (run_summary.json, session.start_up): milliseconds per step.
class StartUpSteps {
 public:
  void done(const char* step) {
    const double now = steady_clock().now_us();
    ms_[step] = (now - from_) / 1000.0;
    from_ = now;
  }
  const nlohmann::json& ms() const { return ms_; }

 private:
  nlohmann::json ms_ = nlohmann::json::object();
  double from_ = steady_clock().now_us();
};

// What a worker holds once it is set up.
struct WorkerSession {
  RunPlan plan;
  std::unique_ptr<WorkerDevice> own;  // the device this process opened (none when served)
  WorkerDevice* device = nullptr;     // the device it measures on: its own or the server's
  RunContracts contracts;
  std::optional<caliber::RunIdentity> run_identity;  // with --start-checks
  std::optional<ConfigReplaySource> replay;           // with --replay-configs
};

// A worker Python hosts runs from libcaliber_c.so: it must be the build of the caliber that
// started it (runner/worker_command.h), or the rows would be another build's numbers.
void check_harness_build() {
  if (const char* want = std::getenv("CALIBER_HARNESS_BUILD");
      want && harness_binary() != self_executable() && harness_version() != want) {
    throw UsageError(fmt::format("the worker's library {} is caliber {}, but the run is by caliber {} (CALIBER_LIBRARY "
                                 "names another build's libcaliber_c.so)",
                                 harness_binary(), harness_version(), want));
  }
}

void check_served_device(const WorkerDevice* served, BackendKind kind, const RunOptions& options) {
  if (served && (served->kind != kind || served->index != options.device || options.profile_range)) {
    throw UsageError(fmt::format("the device server holds {} device {}; this run asks for {} device {}{}",
                                 to_string(served->kind), served->index, to_string(kind), options.device,
                                 options.profile_range ? " under a profiler" : ""));
  }
}

// The device this run measures on: one opened here, or the server's (given this run's hooks).
void attach_device(WorkerSession& s, const RunOptions& options, WorkerDevice* served, BackendKind kind,
                   StartUpSteps& steps) {
  s.device = served;
  if (!s.device) {
    s.own = std::make_unique<WorkerDevice>();
    s.own->kind = kind;
    s.own->index = options.device;
    s.own->hooks = make_worker_hooks(options, s.plan, kind);
    steps.done("code_fingerprint_capture");
    s.own->backend = open_backend(kind, options.device);
    steps.done("backend");
    s.device = s.own.get();
  } else if (s.device->hooks.recorder) {
    // The device code this run executes, not what the server's earlier runs did.
    s.device->hooks.recorder->forget_executed_kernels();
  } else {
    s.device->hooks = make_worker_hooks(options, s.plan, kind);  // the plan's libraries
  }
}

int send_fatal(EventWriter& events, int exit_code, const char* message) {
  events.send({{"event", "fatal"}, {"exit_code", exit_code}, {"message", message}});
  return exit_code;
}

// Sets the worker up: plan, contracts, preflight and identity (with --start-checks), device,
// configs to replay. Returns the exit code when it cannot be set up (the parent is told why).
std::optional<int> set_up_session(WorkerSession& s, const RunOptions& options, WorkerDevice* served,
                                  EventWriter& events, StartUpSteps& steps) {
  try {
    check_harness_build();
    s.plan = make_run_plan(options);
    const BackendKind kind = options.backend == "auto" ? default_backend_kind() : parse_backend(options.backend);
    check_served_device(served, kind, options);
    s.contracts = make_run_contracts(options, kind);
    steps.done("plan");
    if (options.start_checks) {
      if (!device_preflight(options, kind, s.contracts, events)) return kExitPreflightFailed;
      steps.done("preflight");
      s.run_identity = start_identity(options, s.plan, kind, s.contracts);
      steps.done("identity");
    }
    attach_device(s, options, served, kind, steps);
    if (options.replay_configs) {
      s.replay = read_config_replay_source(*options.replay_configs, s.plan.op_name);
      if (auto why = config_replay_refusal(*s.replay, s.device->backend->device())) throw UsageError(*why);
    }
  } catch (const UsageError& e) {
    return send_fatal(events, 2, e.what());
  } catch (const InputError& e) {
    return send_fatal(events, 2, e.what());
  } catch (const ContractError& e) {
    return send_fatal(events, 2, e.what());
  } catch (const std::exception& e) {
    return send_fatal(events, 1, e.what());
  }
  return std::nullopt;
}

RowProvenance row_provenance(const RunOptions& options, const Backend& backend) {
  RowProvenance identity;
  identity.run_id = options.run_id;
  identity.candidate_commit = options.candidate_commit.value_or(CALIBER_GIT_REVISION);
  identity.harness_version = harness_version();
  identity.device = backend.device();
  return identity;
}

// One command's shapes as jobs whose progress goes to the parent: one shape ({"shape_index",
// "shape_id", "providers"}) or a group ({"shapes": [...]}). nullopt when a shape is not the one the
// parent's plan has at that index (the two plans differ).
std::optional<std::vector<ShapeJob>> shape_jobs(const nlohmann::json& cmd, const JsonFields& f, const RunPlan& plan,
                                                EventWriter& events, const RunOptions& options) {
  std::vector<nlohmann::json> shape_cmds;
  if (f.has("shapes")) {
    for (const auto& one : f.array("shapes")) shape_cmds.push_back(one);
  } else {
    shape_cmds.push_back(cmd);
  }
  const JsonFields seeds = f.object("seeds");
  const std::uint64_t seed = seeds.json().at("inputs").get<std::uint64_t>();
  const std::uint64_t verification_seed = std::stoull(seeds.str("verification"), nullptr, 16);
  std::vector<ShapeJob> jobs;
  for (const nlohmann::json& one : shape_cmds) {
    JsonFields sf(one, "(worker command)", 0, "");
    const auto index = static_cast<std::size_t>(sf.integer("shape_index"));
    if (index >= plan.shapes.size() || plan.shapes[index].shape_id != sf.str("shape_id")) return std::nullopt;
    ShapeJob job;
    job.shape = &plan.shapes[index];
    job.seed = seed;
    job.verification_seed = verification_seed;
    for (const auto& n : sf.array("providers")) job.providers.push_back(n.get<std::string>());
    const std::string shape_id = job.shape->shape_id;
    EventWriter* sink = &events;
    job.events.started = [sink, shape_id](const std::string& provider) {
      sink->send({{"event", "start"}, {"shape_id", shape_id}, {"provider", provider}});
    };
    job.events.finished = [sink, samples = options.keeps_samples()](const BenchmarkResultRow& row) {
      sink->send({{"event", "row"}, {"row", to_json(row, samples)}});
    };
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// The providers the parent found unable to capture a graph, with why ("capture_denied").
std::map<std::string, std::string> capture_denied(const JsonFields& f) {
  std::map<std::string, std::string> denied;
  if (f.has("capture_denied")) {
    for (const auto& [provider, why] : f.object("capture_denied").json().items()) denied[provider] = why.get<std::string>();
  }
  return denied;
}

// Merges what the run executed so far into its code_fingerprint.json, when it changed since the
// last merge (most shapes run the kernels the previous shapes ran).
void update_run_fingerprint(const RunOptions& options, WorkerHooks& hooks, CodeFingerprint& written) {
  if (!hooks.fingerprint) return;
  CodeFingerprint now = hooks.fingerprint();
  if (now != written) {
    merge_into_run_fingerprint(options, now);
    written = std::move(now);
  }
}

// Runs the parent's commands until their stream ends; the worker's exit code.
int serve_commands(ShapeRunner& runner, const RunPlan& plan, WorkerHooks& worker_hooks, EventWriter& events,
                   const RunOptions& options, const std::function<bool(std::string&)>& next_command) {
  CodeFingerprint fingerprint_written;  // what this worker last merged into the run's file
  std::string line;
  while (next_command(line)) {
    if (line.empty()) continue;
    const nlohmann::json cmd = parse_json_document(line, "(worker command)");
    JsonFields f(cmd, "(worker command)", 0, "");
    const std::optional<std::vector<ShapeJob>> jobs = shape_jobs(cmd, f, plan, events, options);
    if (!jobs) return send_fatal(events, 1, "the worker's plan differs from the parent's");
    runner.set_capture_denied(capture_denied(f));
    const bool healthy = runner.run_shapes(*jobs);
    if (healthy) update_run_fingerprint(options, worker_hooks, fingerprint_written);
    for (const ShapeJob& job : *jobs) {
      events.send({{"event", "shape_done"}, {"shape_id", job.shape->shape_id}, {"healthy", healthy}});
    }
    if (!healthy) std::_Exit(kWorkerDeviceLost);  // no destructor may touch the broken context
  }
  return 0;
}

}  // namespace

int serve_run(const RunOptions& options, WorkerDevice* served, const std::function<bool(std::string&)>& next_command) {
  if (options.events_fd < 0) throw UsageError("__run-worker needs --events-fd (it is started by caliber run)");
  // The channel's token, before any provider code is loaded (set_up_session loads the plugins).
  std::optional<std::string> token = take_preset_worker_token();
  if (!token) {
    std::string first;
    if (next_command(first)) token = token_from_line(first);
  }
  if (!token) throw UsageError("__run-worker: the first line on its stdin must be the channel's token (caliber run sends it)");
  EventWriter events(options.events_fd, *token);
  StartUpSteps steps;
  WorkerSession s;
  if (const std::optional<int> failed = set_up_session(s, options, served, events, steps)) return *failed;
  Backend& backend = *s.device->backend;
  WorkerHooks& worker_hooks = s.device->hooks;

  std::vector<BoundProvider> providers = bind_providers(s.plan, backend.kind());
  steps.done("providers");
  ShapeRunner runner(backend, s.plan, s.contracts, options, row_provenance(options, backend), providers,
                     worker_hooks.hooks);
  runner.set_config_replay(std::move(s.replay));
  {
    const std::optional<DeviceCeilings> calibrated = calibrated_ceilings(options.ceilings, backend.device());
    runner.set_calibrated_ceilings(calibrated ? &*calibrated : nullptr);
  }
  steps.done("ceilings");
  nlohmann::json ready = {{"event", "ready"}, {"device", to_json(backend.device())}, {"start_up_ms", steps.ms()}};
  if (s.run_identity) {
    s.run_identity->device = backend.device();  // what every row records
    ready["identity"] = to_json(*s.run_identity);
  }
  events.send(ready);
  return serve_commands(runner, s.plan, worker_hooks, events, options, next_command);
}

}  // namespace caliber::runner
