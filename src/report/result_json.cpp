#include "caliber/result_json.h"

#include <ostream>

#include <fmt/format.h>

#include "caliber/config.h"
#include "caliber/errors.h"
#include "core/json_fields.h"

namespace caliber {

using nlohmann::json;

json to_json(const Contract& c) {
  json j = json::object();
  j["backend"] = to_string(c.backend);
  j["quantity"] = to_string(c.quantity);
  j["instrument"] = to_string(c.instrument);
  j["schedule"] = to_string(c.schedule);
  j["cache"] = to_string(c.cache);
  j["statistic"] = c.statistic.name();
  j["warmup"] = c.warmup;
  const IterationRule& it = c.iterations;
  if (it.mode == IterationRule::Mode::fixed) {
    j["iterations"] = {{"rule", "fixed"}, {"count", it.count}};
  } else {
    j["iterations"] = {{"rule", "adaptive"},
                       {"min_samples", it.min_samples},
                       {"min_time_ms", it.min_time_ms},
                       {"max_time_ms", it.max_time_ms},
                       {"target_rel_halfwidth", it.target_rel_halfwidth}};
  }
  // Fields that only mean something under one schedule/instrument are written only there, so two
  // contracts that measure the same way serialize the same way.
  if (c.schedule == Schedule::graph) j["graph_calls"] = c.graph_calls;
  if (c.instrument == Instrument::cupti) j["cupti_reduction"] = to_string(c.cupti_reduction);
  j["throttle_policy"] = to_string(c.throttle_policy);
  return j;
}

json to_json(const DeviceInfo& d) {
  return json{{"backend", to_string(d.backend)},
              {"index", d.index},
              {"name", d.name},
              {"arch", d.arch},
              {"uuid", d.uuid},
              {"multiprocessors", d.multiprocessors},
              {"llc_bytes", d.llc_bytes},
              {"llc_source", d.llc_source},
              {"memory_bytes", d.memory_bytes},
              {"sm_clock_max_mhz", d.sm_clock_max_mhz},
              {"mem_clock_max_mhz", d.mem_clock_max_mhz},
              {"driver_version", d.driver_version},
              {"runtime_version", d.runtime_version}};
}

json to_json(const Summary& s) {
  return json{{"n", s.n},           {"min_us", s.min_us},       {"p10_us", s.p10_us},
              {"p25_us", s.p25_us}, {"median_us", s.median_us}, {"p75_us", s.p75_us},
              {"p90_us", s.p90_us}, {"max_us", s.max_us},       {"mean_us", s.mean_us},
              {"stdev_us", s.stdev_us}, {"rel_iqr", s.rel_iqr}};
}

json to_json(const Result& r, bool with_samples) {
  json j = json::object();
  j["name"] = r.name;
  j["params"] = r.params;
  j["device"] = to_json(r.device);
  j["contract"] = to_json(r.contract);
  j["value_us"] = r.value_us;
  j["summary"] = to_json(r.summary);
  j["stable"] = r.stable;
  j["median_ci95_us"] = json::array({r.median_ci95_us.lo, r.median_ci95_us.hi});
  j["stop_reason"] = r.stop_reason;
  j["wall_time_ms"] = r.wall_time_ms;
  j["timed_calls"] = r.timed_calls;
  j["flush_bytes"] = r.flush_bytes;
  j["rotation_copies"] = r.rotation_copies;
  j["notes"] = r.notes;
  j["warnings"] = r.warnings;
  if (with_samples && !r.samples_us.empty()) j["samples_us"] = r.samples_us;
  return j;
}

Contract contract_from_json(const json& j, const std::string& file, long line,
                            const std::string& path) {
  JsonFields f(j, file, line, path);
  Contract c;
  c.backend = f.parse("backend", [](const std::string& s) { return parse_backend(s); });
  c.quantity = f.parse("quantity", [](const std::string& s) { return parse_quantity(s); });
  c.instrument = f.parse("instrument", [](const std::string& s) { return parse_instrument(s); });
  c.schedule = f.parse("schedule", [](const std::string& s) { return parse_schedule(s); });
  c.cache = f.parse("cache", [](const std::string& s) { return parse_cache_policy(s); });
  c.statistic = f.parse("statistic", [](const std::string& s) { return parse_statistic(s); });
  c.warmup = f.integer("warmup");
  const JsonFields it = f.object("iterations");
  const std::string rule = it.str("rule");
  if (rule == "fixed") {
    c.iterations.mode = IterationRule::Mode::fixed;
    c.iterations.count = it.integer("count");
  } else if (rule == "adaptive") {
    c.iterations.mode = IterationRule::Mode::adaptive;
    c.iterations.min_samples = it.integer("min_samples");
    c.iterations.min_time_ms = it.number("min_time_ms");
    c.iterations.max_time_ms = it.number("max_time_ms");
    c.iterations.target_rel_halfwidth = it.number("target_rel_halfwidth");
  } else {
    it.fail("rule", fmt::format("unknown iteration rule '{}' (expected fixed|adaptive)", rule));
  }
  if (c.schedule == Schedule::graph) c.graph_calls = f.integer("graph_calls");
  if (c.instrument == Instrument::cupti) {
    c.cupti_reduction =
        f.parse("cupti_reduction", [](const std::string& s) { return parse_cupti_reduction(s); });
  }
  c.throttle_policy =
      f.parse("throttle_policy", [](const std::string& s) { return parse_throttle_policy(s); });
  return c;
}

DeviceInfo device_from_json(const json& j, const std::string& file, long line,
                            const std::string& path) {
  JsonFields f(j, file, line, path);
  DeviceInfo d;
  d.backend = f.parse("backend", [](const std::string& s) { return parse_backend(s); });
  d.index = static_cast<int>(f.integer("index"));
  d.name = f.str("name");
  d.arch = f.str("arch");
  d.uuid = f.str("uuid");
  d.multiprocessors = static_cast<int>(f.integer("multiprocessors"));
  d.llc_bytes = static_cast<std::uint64_t>(f.integer("llc_bytes"));
  d.llc_source = f.str("llc_source");
  d.memory_bytes = static_cast<std::uint64_t>(f.integer("memory_bytes"));
  d.sm_clock_max_mhz = static_cast<int>(f.integer("sm_clock_max_mhz"));
  d.mem_clock_max_mhz = static_cast<int>(f.integer("mem_clock_max_mhz"));
  d.driver_version = f.str("driver_version");
  d.runtime_version = f.str("runtime_version");
  return d;
}

namespace {

std::vector<double> number_list(const JsonFields& f, const std::string& key) {
  std::vector<double> out;
  const json& a = f.array(key);
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number()) f.fail(fmt::format("{}[{}]", key, i), "expected a number");
    out.push_back(a[i].get<double>());
  }
  return out;
}

}  // namespace

Result result_from_json(const json& j, const std::string& file, long line, const std::string& path) {
  JsonFields f(j, file, line, path);
  Result r;
  r.name = f.str("name");
  r.params = f.object("params").json();
  r.device = device_from_json(f.get("device"), file, line, f.field_name("device"));
  r.contract = contract_from_json(f.get("contract"), file, line, f.field_name("contract"));
  r.value_us = f.number("value_us");
  const JsonFields s = f.object("summary");
  r.summary.n = s.integer("n");
  r.summary.min_us = s.number("min_us");
  r.summary.p10_us = s.number("p10_us");
  r.summary.p25_us = s.number("p25_us");
  r.summary.median_us = s.number("median_us");
  r.summary.p75_us = s.number("p75_us");
  r.summary.p90_us = s.number("p90_us");
  r.summary.max_us = s.number("max_us");
  r.summary.mean_us = s.number("mean_us");
  r.summary.stdev_us = s.number("stdev_us");
  r.summary.rel_iqr = s.number("rel_iqr");
  r.stable = f.boolean("stable");
  const auto ci = number_list(f, "median_ci95_us");
  if (ci.size() != 2) f.fail("median_ci95_us", "expected [lo, hi]");
  r.median_ci95_us = {ci[0], ci[1]};
  r.stop_reason = f.str("stop_reason");
  r.wall_time_ms = f.number("wall_time_ms");
  r.timed_calls = static_cast<std::uint64_t>(f.integer("timed_calls"));
  r.flush_bytes = static_cast<std::uint64_t>(f.integer("flush_bytes"));
  r.rotation_copies = static_cast<std::uint64_t>(f.integer("rotation_copies"));
  r.notes = f.strings("notes");
  r.warnings = f.strings("warnings");
  if (f.has("samples_us")) r.samples_us = number_list(f, "samples_us");
  return r;
}

void write_results_json(std::ostream& out, const std::vector<Result>& results, bool complete,
                        bool with_samples) {
  json doc = json::object();
  doc["schema_version"] = kResultsSchemaVersion;
  doc["kind"] = "caliber.results";
  doc["generator"] = {{"name", "caliber"},
                      {"version", CALIBER_VERSION},
                      {"git_revision", CALIBER_GIT_REVISION},
                      {"build_type", CALIBER_BUILD_TYPE}};
  doc["complete"] = complete;
  doc["results"] = json::array();
  for (const Result& r : results) doc["results"].push_back(to_json(r, with_samples));
  out << doc.dump(2) << '\n';
}

std::vector<Result> read_results_json(const std::string& file) {
  const std::string text = read_text_file(file);
  const json doc = parse_json_document(text, file);
  JsonFields root(doc, file, 0, "");
  const std::int64_t version = root.integer("schema_version");
  if (version != kResultsSchemaVersion) {
    root.fail("schema_version", fmt::format("unsupported schema version {} (this caliber reads {})",
                                            version, kResultsSchemaVersion));
  }
  const std::string kind = root.str("kind");
  if (kind != "caliber.results") {
    root.fail("kind", fmt::format("expected 'caliber.results', got '{}'", kind));
  }
  if (!root.boolean("complete")) {
    root.fail("complete", "the run that wrote this file did not finish");
  }
  const json& arr = root.array("results");
  std::vector<Result> out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    out.push_back(result_from_json(arr[i], file, 0, fmt::format("results[{}]", i)));
  }
  return out;
}

}  // namespace caliber
