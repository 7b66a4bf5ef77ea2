#include "runner/run_plan.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "ledger/shard.h"
#include "core/number_text.h"
#include "core/one_line.h"
#include "core/option_list.h"
#include "providers/plugin_provider.h"
#include "io/shape_ledger_json.h"
#include "io/baseline_matrix_yaml.h"

namespace caliber::runner {
namespace {

template <typename T, typename Parse>
T parse_option(const std::string& option, const std::string& value, Parse parse) {
  try {
    return parse(value);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", option, e.what()));
  }
}

}  // namespace

RunPlan make_run_plan(const RunOptions& o) {
  check_run_options(o);
  RunPlan plan;
  std::set<Stage> stages;
  if (o.stages) {
    for (const auto& s : split_option_list(*o.stages, "--stages")) {
      stages.insert(parse_option<Stage>("--stages", s, [](const std::string& v) { return parse_stage(v); }));
    }
  }
  plan.matrix = read_baseline_matrix(o.baseline_matrix);  // registers its op_description, if any
  plan.op_name = o.op;
  plan.described = &parse_option<const ops::DescribedOp&>(
      "--op", o.op, [](const std::string& s) -> const ops::DescribedOp& { return ops::known_op(s); });
  plan.op = plan.described->type();
  if (plan.matrix.op_type != o.op) {
    throw UsageError(fmt::format("--baseline-matrix {} is for op {}, not {}", o.baseline_matrix,
                                 plan.matrix.op_type, o.op));
  }
  if (o.providers) {
    for (const auto& name : split_option_list(*o.providers, "--providers")) {
      if (!plan.matrix.find(name)) {
        throw UsageError(fmt::format("--providers: '{}' is not a provider of {}", name, o.baseline_matrix));
      }
      plan.selected.insert(name);
    }
  }

  const std::vector<ShapeRow> ledger = read_shape_ledger(o.shape_ledger);
  std::map<std::string, std::size_t> dropped;  // reason -> count
  for (const ShapeRow& row : ledger) {
    if (row.op_type != o.op) {
      ++dropped[fmt::format("op_type {} (not {})", row.op_type, o.op)];
      continue;
    }
    if (row.kernel_name != plan.matrix.kernel) {
      ++dropped[fmt::format("kernel_name {} (the matrix is for {})", row.kernel_name, plan.matrix.kernel)];
      continue;
    }
    if (!stages.empty() && !stages.count(row.stage)) {
      ++dropped[fmt::format("stage {} (not in --stages)", to_string(row.stage))];
      continue;
    }
    if (!plan.matrix.covers(row.dtype)) {
      ++dropped[fmt::format("dtype {} (not in the matrix's dtype list)", to_string(row.dtype))];
      continue;
    }
    if (o.limit && static_cast<std::int64_t>(plan.shapes.size()) >= *o.limit) {
      ++dropped["beyond --limit"];
      continue;
    }
    plan.shapes.push_back(row);
  }
  if (o.shard) {
    // After --limit: a campaign's shards together hold exactly the shapes one run would.
    const campaign::ShardSpec shard = campaign::parse_shard(*o.shard, "--shard");
    std::vector<ShapeRow> mine;
    for (ShapeRow& row : plan.shapes) {
      if (campaign::shard_of(row.shape_id, shard.count) == shard.index) {
        mine.push_back(std::move(row));
      } else {
        ++dropped[fmt::format("in another shard than --shard {}", *o.shard)];
      }
    }
    plan.shapes = std::move(mine);
  }
  for (const auto& [reason, count] : dropped) {
    plan.notices.push_back(fmt::format("{} ledger row(s) left out: {}", count, reason));
  }
  if (plan.shapes.empty()) {
    throw UsageError(fmt::format("no shape of {} in {} passes the filters{}", o.op, o.shape_ledger,
                                 plan.notices.empty() ? "" : " (" + plan.notices.front() + ")"));
  }
  return plan;
}

std::vector<std::pair<std::string, std::string>> plugin_libraries(const RunPlan& plan) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const MatrixProvider& p : plan.matrix.providers) {
    if (!p.enabled || !p.entrypoint || !p.entrypoint->loaded_from_file()) continue;
    out.emplace_back(p.name, resolved_library(*p.entrypoint, plan.matrix.file));
  }
  if (!plan.described) return out;  // a plan made by hand (a device server's before its first run)
  if (const ops::OpDescription& d = plan.described->description(); d.reference.loaded_from_file()) {
    out.emplace_back("op_description.reference", resolved_library(d.reference, d.file));
  }
  return out;
}

namespace {

std::string provider_origin(const RunPlan& plan, const MatrixProvider& p) {
  return fmt::format("{}:{}: field 'providers.{}.entrypoint': ", plan.matrix.file, p.line, p.name);
}

std::string reference_origin(const ops::OpDescription& d) {
  return fmt::format("{}: field 'reference.entrypoint': ", d.file);
}

}  // namespace

std::string worker_entry_origin(const RunPlan& plan, const std::string& entry) {
  for (const MatrixProvider& p : plan.matrix.providers) {
    if (!p.enabled || !p.entrypoint || !p.entrypoint->loaded_from_file()) continue;
    if (resolved_library(*p.entrypoint, plan.matrix.file) + ":" + p.entrypoint->symbol == entry) {
      return provider_origin(plan, p);
    }
  }
  if (!plan.described) return "";
  const ops::OpDescription& d = plan.described->description();
  if (d.reference.loaded_from_file() && resolved_library(d.reference, d.file) + ":" + d.reference.symbol == entry) {
    return reference_origin(d);
  }
  return "";
}

std::vector<PreflightCheck> plugin_preflight_checks(const RunPlan& plan, SharedLibraries& libs,
                                                    std::optional<BackendKind> backend, double load_timeout_s) {
  std::vector<PreflightCheck> checks;
  for (const MatrixProvider& p : plan.matrix.providers) {
    if (!p.enabled || !p.entrypoint || !p.entrypoint->loaded_from_file()) continue;
    const std::string origin = provider_origin(plan, p);
    if (p.entrypoint->kind == Entrypoint::Kind::python) {
      checks.push_back(check_python_provider_file(p.name, resolved_library(*p.entrypoint, plan.matrix.file),
                                                  p.entrypoint->symbol, origin));
      continue;
    }
    PluginSpec spec;
    spec.provider = p.name;
    spec.path = resolved_library(*p.entrypoint, plan.matrix.file);
    spec.symbol = p.entrypoint->symbol;
    spec.abi_check = [&plan](SharedLibraries&, void*, void* entry) {
      return providers::plugin_entry_problem(entry, *plan.described);
    };
    spec.origin = origin;
    spec.load_timeout_s = load_timeout_s;
    checks.push_back(check_plugin_loads(spec, libs));
  }
  // The reference every check compares with, when it is a plugin or a Python provider (a shipped
  // op's is compiled in): a run cannot do without it.
  if (!plan.described) return checks;
  if (const ops::OpDescription& d = plan.described->description(); d.reference.loaded_from_file()) {
    if (d.reference.kind == Entrypoint::Kind::python) {
      checks.push_back(check_python_provider_file("reference", resolved_library(d.reference, d.file), d.reference.symbol,
                                                  reference_origin(d)));
      return checks;
    }
    PluginSpec spec;
    spec.provider = "reference";
    spec.path = resolved_library(d.reference, d.file);
    spec.symbol = d.reference.symbol;
    spec.abi_check = [&plan, backend](SharedLibraries&, void*, void* entry) {
      return providers::plugin_entry_problem(entry, *plan.described, true, backend);
    };
    spec.origin = reference_origin(d);
    spec.load_timeout_s = load_timeout_s;
    checks.push_back(check_plugin_loads(spec, libs));
  }
  return checks;
}

RunContracts make_run_contracts(const RunOptions& o, BackendKind backend) {
  RunContracts c;
  Contract base = default_contract(backend);
  base.cache = CachePolicy::warm;
  base.statistic = Statistic{};
  base.warmup = o.warmup;
  base.iterations.mode = IterationRule::Mode::adaptive;
  base.iterations.min_samples = o.min_samples;
  base.iterations.min_time_ms = o.min_time_ms;
  base.iterations.max_time_ms = o.max_time_ms;
  base.iterations.target_rel_halfwidth = o.target_precision;
  base.inputs = o.integrity_checks && o.fresh_inputs ? InputValues::fresh : InputValues::fixed;
  c.kernel_only = base;
  c.eager = base;
  if (backend == BackendKind::cuda) {
    c.kernel_only.instrument = Instrument::event;
    c.kernel_only.schedule = Schedule::graph;
    c.eager.instrument = Instrument::event;
    c.eager.schedule = Schedule::per_iter;
  } else {
    c.kernel_only.instrument = Instrument::wallclock;
    c.kernel_only.schedule = Schedule::per_iter;
    c.eager.instrument = Instrument::wallclock;
    c.eager.schedule = Schedule::isolated;
  }
  auto apply = [](Contract& k, const std::optional<std::string>& instrument, const std::optional<std::string>& schedule,
                  const std::optional<std::string>& cache, const char* prefix) {
    if (instrument) k.instrument = parse_option<Instrument>(fmt::format("--{}-instrument", prefix), *instrument,
                                                            [](const std::string& s) { return parse_instrument(s); });
    if (schedule) k.schedule = parse_option<Schedule>(fmt::format("--{}-schedule", prefix), *schedule,
                                                      [](const std::string& s) { return parse_schedule(s); });
    if (cache) k.cache = parse_option<CachePolicy>(fmt::format("--{}-cache", prefix), *cache,
                                                   [](const std::string& s) { return parse_cache_policy(s); });
  };
  apply(c.kernel_only, o.kernel_only_instrument, o.kernel_only_schedule, o.kernel_only_cache, "kernel-only");
  apply(c.eager, o.eager_instrument, o.eager_schedule, o.eager_cache, "eager");
  if (o.graph_calls == "auto") {
    c.auto_graph_calls = true;
    c.kernel_only.graph_calls = 16;
  } else {
    c.auto_graph_calls = false;
    const auto n = parse_option<std::int64_t>("--graph-calls", o.graph_calls, [](const std::string& s) {
      const std::optional<std::int64_t> v = parse_integer(s);
      if (!v || *v < 1 || *v > kMaxGraphCalls) {
        throw UsageError(fmt::format("expected auto or a count from 1 to {}, got '{}'", kMaxGraphCalls, quoted_text(s)));
      }
      return *v;
    });
    c.kernel_only.graph_calls = n;
    c.eager.graph_calls = n;
  }
  for (const auto* k : {&c.kernel_only, &c.eager}) {
    if (k->cache == CachePolicy::rotate) {
      throw ContractError("cache rotate is not available in caliber run: ops hand one set of inputs to every "
                          "provider (use warm or cold)");
    }
    if (auto why = why_invalid(*k)) {
      throw ContractError(fmt::format("the {} contract cannot be measured: {}",
                                      k == &c.kernel_only ? "kernel-only" : "eager", *why));
    }
  }
  return c;
}

std::int64_t graph_calls_for(double eager_median_us) {
  std::int64_t calls = 16;
  while (calls > 1 && static_cast<double>(calls) * eager_median_us > 200.0) calls /= 2;
  return calls;
}

}  // namespace caliber::runner
