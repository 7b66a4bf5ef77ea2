#include "caliber/result_json.h"

#include <limits>
#include <ostream>

#include <fmt/format.h>

#include "caliber/config.h"
#include "caliber/errors.h"
#include "core/arch_text.h"
#include "core/contract_fields.h"
#include "core/json_fields.h"
#include "core/number_text.h"

namespace caliber {

using nlohmann::json;

// The ranges of the narrower types integers are read into (a larger value would wrap).
constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();


namespace {

json iteration_rule_json(const IterationRule& it) {
  if (it.mode == IterationRule::Mode::fixed) return {{"rule", "fixed"}, {"count", it.count}};
  return {{"rule", "adaptive"},
          {"min_samples", it.min_samples},
          {"min_time_ms", it.min_time_ms},
          {"max_time_ms", it.max_time_ms},
          {"target_rel_halfwidth", it.target_rel_halfwidth}};
}

IterationRule iteration_rule_from_json(const JsonFields& it) {
  IterationRule r;
  const std::string rule = it.str("rule");
  if (rule == "fixed") {
    r.mode = IterationRule::Mode::fixed;
    r.count = it.integer("count");
  } else if (rule == "adaptive") {
    r.mode = IterationRule::Mode::adaptive;
    r.min_samples = it.integer("min_samples");
    r.min_time_ms = it.number("min_time_ms");
    r.max_time_ms = it.number("max_time_ms");
    r.target_rel_halfwidth = it.number("target_rel_halfwidth");
  } else {
    it.fail("rule", fmt::format("unknown iteration rule '{}' (expected fixed|adaptive)", rule));
  }
  return r;
}

}  // namespace

// Field by field from core/contract_fields.h; a field that does not apply to the contract
// (graph_calls outside graph, cupti_reduction outside cupti) is not written.
json to_json(const Contract& c) {
  json j = json::object();
  for (const ContractField& f : contract_field_table()) {
    if (!f.applies(c)) continue;
    const std::string key(f.name);
    switch (f.type) {
      case ContractFieldType::text: j[key] = f.text(c); break;
      case ContractFieldType::integer: j[key] = *parse_integer(f.text(c)); break;
      case ContractFieldType::iteration_rule: j[key] = iteration_rule_json(c.iterations); break;
    }
  }
  return j;
}

json to_json(const DeviceInfo& d) {
  json j{{"backend", to_string(d.backend)},
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
  // Written only when known, so files of devices that do not report it read as before.
  if (d.memory_bus_width_bits > 0) j["memory_bus_width_bits"] = d.memory_bus_width_bits;
  return j;
}

json to_json(const Summary& s) {
  return json{{"n", s.n},           {"min_us", s.min_us},       {"p10_us", s.p10_us},
              {"p25_us", s.p25_us}, {"median_us", s.median_us}, {"p75_us", s.p75_us},
              {"p90_us", s.p90_us}, {"max_us", s.max_us},       {"mean_us", s.mean_us},
              {"stdev_us", s.stdev_us}, {"rel_iqr", s.rel_iqr}};
}

json to_json(const TelemetrySummary& t) {
  if (!t.available) return json{{"available", false}, {"reason", t.unavailable_reason}};
  return json{{"available", true},
              {"period_ms", t.period_ms},
              {"readings", t.readings},
              {"sm_clock_max_mhz", t.sm_clock_max_mhz},
              {"sm_clock_mhz", {{"min", t.sm_clock_min_mhz}, {"median", t.sm_clock_median_mhz},
                                {"max", t.sm_clock_peak_mhz}}},
              {"max_temp_c", t.max_temp_c},
              {"max_power_w", t.max_power_w},
              {"throttle_reasons_seen", t.throttle_reasons_seen},
              {"throttled_readings", t.throttled_readings},
              {"flagged_samples", t.flagged_samples},
              {"discarded_samples", t.discarded_samples}};
}

json to_json(const TelemetrySample& s) {
  return json{{"timestamp_ms", s.timestamp_ms}, {"sm_clock_mhz", s.sm_clock_mhz},
              {"mem_clock_mhz", s.mem_clock_mhz}, {"temp_c", s.temp_c},
              {"power_w", s.power_w},           {"util_pct", s.util_pct},
              {"throttle_reasons", throttle_reason_names(s.throttle_reasons)}};
}

json to_json(const KernelStat& k) {
  return json{{"name", k.name},       {"launches", k.launches}, {"total_us", k.total_us},
              {"mean_us", k.mean_us}, {"max_blocks", k.max_blocks}};
}

namespace {

// The per-kernel breakdown exists for device time measured by cupti only.
bool has_kernel_breakdown(const Contract& c) {
  return c.instrument == Instrument::cupti && c.quantity == Quantity::device_time;
}

}  // namespace

json to_json(const ParamValue& v) {
  switch (v.kind()) {
    case ParamValue::Kind::integer: return v.integer();
    case ParamValue::Kind::number: return v.number();
    case ParamValue::Kind::text: return v.text();
    case ParamValue::Kind::boolean: return v.boolean();
  }
  return nullptr;
}

json to_json(const Params& params) {
  json j = json::object();
  for (const auto& [key, value] : params) j[key] = to_json(value);
  return j;
}

Params params_from_json(const json& j, const std::string& file, long line, const std::string& path) {
  const JsonFields f(j, file, line, path);  // throws unless j is an object
  Params params;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const json& v = it.value();
    if (v.is_boolean()) {
      params.set(it.key(), v.get<bool>());
    } else if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        f.fail(it.key(), "an integer above 2^63 - 1");
      }
      params.set(it.key(), v.get<std::int64_t>());
    } else if (v.is_number_integer()) {
      params.set(it.key(), v.get<std::int64_t>());
    } else if (v.is_number()) {
      params.set(it.key(), v.get<double>());
    } else if (v.is_string()) {
      params.set(it.key(), v.get<std::string>());
    } else {
      f.fail(it.key(), fmt::format("expected an integer, a number, a text or a boolean (got {})", v.type_name()));
    }
  }
  return params;
}

json to_json(const Result& r, bool with_samples) {
  json j = json::object();
  j["name"] = r.name;
  j["params"] = to_json(r.params);
  j["device"] = to_json(r.device);
  j["contract"] = to_json(r.contract);
  j["value_us"] = r.value_us;
  j["summary"] = to_json(r.summary);
  j["stable"] = r.stable;
  // null: fewer samples than any 95% interval of the median needs (docs/iteration-rule.md).
  j["median_ci95_us"] = r.median_ci95_us ? json::array({r.median_ci95_us->lo, r.median_ci95_us->hi})
                                         : json(nullptr);
  j["stop_reason"] = r.stop_reason;
  j["wall_time_ms"] = r.wall_time_ms;
  j["timed_calls"] = r.timed_calls;
  j["flush_bytes"] = r.flush_bytes;
  j["rotation_copies"] = r.rotation_copies;
  j["notes"] = r.notes;
  j["warnings"] = r.warnings;
  j["flags"] = r.flags;
  if (with_samples && !r.samples_us.empty()) j["samples_us"] = r.samples_us;
  // An empty request means the contract's instrument was asked for by name.
  j["instrument_selection"] = {{"requested", r.instrument.requested.empty()
                                                 ? std::string(to_string(r.contract.instrument))
                                                 : r.instrument.requested},
                               {"reason", r.instrument.reason},
                               {"kernel_tracing", r.instrument.kernel_tracing}};
  if (has_kernel_breakdown(r.contract)) {
    j["kernels"] = json::array();
    for (const KernelStat& k : r.kernels) j["kernels"].push_back(to_json(k));
    j["kernel_set_changes"] = r.kernel_set_changes;
  }
  j["telemetry"] = to_json(r.telemetry);
  if (!r.telemetry_samples.empty()) {
    j["telemetry_samples"] = json::array();
    for (const TelemetrySample& t : r.telemetry_samples) j["telemetry_samples"].push_back(to_json(t));
  }
  j["integrity"] = to_json(r.integrity);
  if (r.instrument_perturbation) {
    const InstrumentPerturbation& p = *r.instrument_perturbation;
    j["instrument_perturbation"] = {{"measured", p.measured},        {"reason", p.reason},
                                    {"cupti_median_us", p.cupti_median_us}, {"event_median_us", p.event_median_us},
                                    {"delta_us", p.delta_us},        {"delta_pct", p.delta_pct},
                                    {"significant", p.significant},  {"applied", p.applied}};
  }
  return j;
}

Contract contract_from_json(const json& j, const std::string& file, long line,
                            const std::string& path) {
  JsonFields f(j, file, line, path);
  Contract c;
  // In table order: whether a field applies depends only on fields read before it.
  for (const ContractField& field : contract_field_table()) {
    if (!field.applies(c)) continue;
    const std::string key(field.name);
    if (!field.absent.empty() && !f.has(key)) {
      field.set(c, field.absent);
      continue;
    }
    switch (field.type) {
      case ContractFieldType::text:
        f.parse(key, [&](const std::string& s) {
          field.set(c, s);
          return 0;
        });
        break;
      case ContractFieldType::integer: {
        const std::int64_t v = f.integer(key);
        try {
          field.set(c, std::to_string(v));
        } catch (const UsageError& e) {
          f.fail(key, e.what());
        }
        break;
      }
      case ContractFieldType::iteration_rule:
        c.iterations = iteration_rule_from_json(f.object(key));
        break;
    }
  }
  return c;
}

DeviceInfo device_from_json(const json& j, const std::string& file, long line,
                            const std::string& path) {
  JsonFields f(j, file, line, path);
  f.refuse_unknown({"backend", "index", "name", "arch", "uuid", "multiprocessors", "llc_bytes", "llc_source",
                    "memory_bytes", "sm_clock_max_mhz", "mem_clock_max_mhz", "memory_bus_width_bits", "driver_version",
                    "runtime_version"});
  DeviceInfo d;
  d.backend = f.parse("backend", [](const std::string& s) { return parse_backend(s); });
  d.index = static_cast<int>(f.integer_in("index", 0, kMaxInt));
  d.name = f.str("name");
  d.arch = f.str("arch");
  if (const auto problem = arch_problem(d.arch)) f.fail("arch", *problem);
  d.uuid = f.str("uuid");
  d.multiprocessors = static_cast<int>(f.integer_in("multiprocessors", -1, kMaxInt));
  d.llc_bytes = static_cast<std::uint64_t>(f.integer_in("llc_bytes", 0, kMaxInt64));
  d.llc_source = f.str("llc_source");
  d.memory_bytes = static_cast<std::uint64_t>(f.integer_in("memory_bytes", 0, kMaxInt64));
  d.sm_clock_max_mhz = static_cast<int>(f.integer_in("sm_clock_max_mhz", -1, kMaxInt));
  d.mem_clock_max_mhz = static_cast<int>(f.integer_in("mem_clock_max_mhz", -1, kMaxInt));
  if (f.has("memory_bus_width_bits")) {
    d.memory_bus_width_bits = static_cast<int>(f.integer_in("memory_bus_width_bits", 0, kMaxInt));
  }
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

// Each element of array `key` as an object.
template <typename F>
void for_each_object(const JsonFields& f, const std::string& key, F&& read) {
  const json& a = f.array(key);
  for (std::size_t i = 0; i < a.size(); ++i) {
    read(JsonFields(a[i], f.file(), f.line(), fmt::format("{}[{}]", f.field_name(key), i)));
  }
}

int int_field(const JsonFields& f, const std::string& key) {
  const std::int64_t v = f.integer(key);
  if (v < -1 || v > 1000000000) f.fail(key, fmt::format("out of range ({})", v));
  return static_cast<int>(v);
}

TelemetrySummary telemetry_from_json(const JsonFields& f) {
  if (!f.boolean("available")) return telemetry_unavailable(f.str("reason"));
  TelemetrySummary t;
  t.available = true;
  t.period_ms = f.number("period_ms");
  t.readings = f.integer("readings");
  t.sm_clock_max_mhz = int_field(f, "sm_clock_max_mhz");
  const JsonFields sm = f.object("sm_clock_mhz");
  t.sm_clock_min_mhz = int_field(sm, "min");
  t.sm_clock_median_mhz = int_field(sm, "median");
  t.sm_clock_peak_mhz = int_field(sm, "max");
  t.max_temp_c = int_field(f, "max_temp_c");
  t.max_power_w = f.number("max_power_w");
  t.throttle_reasons_seen = f.strings("throttle_reasons_seen");
  for (std::size_t i = 0; i < t.throttle_reasons_seen.size(); ++i) {
    try {
      parse_throttle_reason(t.throttle_reasons_seen[i]);
    } catch (const UsageError& e) {
      f.fail(fmt::format("throttle_reasons_seen[{}]", i), e.what());
    }
  }
  t.throttled_readings = f.integer("throttled_readings");
  t.flagged_samples = f.integer("flagged_samples");
  t.discarded_samples = f.integer("discarded_samples");
  return t;
}

TelemetrySample telemetry_sample_from_json(const JsonFields& f) {
  TelemetrySample s;
  s.timestamp_ms = f.number("timestamp_ms");
  s.sm_clock_mhz = int_field(f, "sm_clock_mhz");
  s.mem_clock_mhz = int_field(f, "mem_clock_mhz");
  s.temp_c = int_field(f, "temp_c");
  s.power_w = f.number("power_w");
  s.util_pct = int_field(f, "util_pct");
  const auto names = f.strings("throttle_reasons");
  for (std::size_t i = 0; i < names.size(); ++i) {
    try {
      s.throttle_reasons |= parse_throttle_reason(names[i]);
    } catch (const UsageError& e) {
      f.fail(fmt::format("throttle_reasons[{}]", i), e.what());
    }
  }
  return s;
}

}  // namespace

Result result_from_json(const json& j, const std::string& file, long line, const std::string& path) {
  JsonFields f(j, file, line, path);
  f.refuse_unknown({"name", "params", "device", "contract", "value_us", "summary", "stable", "median_ci95_us",
                    "stop_reason", "wall_time_ms", "timed_calls", "flush_bytes", "rotation_copies", "notes", "warnings",
                    "flags", "samples_us", "instrument_selection", "kernels", "kernel_set_changes", "telemetry",
                    "telemetry_samples", "integrity", "instrument_perturbation"});
  Result r;
  r.name = f.str("name");
  r.params = params_from_json(f.object("params").json(), file, line, f.field_name("params"));
  r.device = device_from_json(f.get("device"), file, line, f.field_name("device"));
  r.contract = contract_from_json(f.get("contract"), file, line, f.field_name("contract"));
  // Latencies are durations: a negative one is an input error, never a number to compare.
  r.value_us = f.non_negative("value_us");
  const JsonFields s = f.object("summary");
  r.summary.n = s.integer("n");
  r.summary.min_us = s.non_negative("min_us");
  r.summary.p10_us = s.non_negative("p10_us");
  r.summary.p25_us = s.non_negative("p25_us");
  r.summary.median_us = s.non_negative("median_us");
  r.summary.p75_us = s.non_negative("p75_us");
  r.summary.p90_us = s.non_negative("p90_us");
  r.summary.max_us = s.non_negative("max_us");
  r.summary.mean_us = s.non_negative("mean_us");
  r.summary.stdev_us = s.non_negative("stdev_us");
  r.summary.rel_iqr = s.non_negative("rel_iqr");
  r.stable = f.boolean("stable");
  if (!f.get("median_ci95_us").is_null()) {
    const auto ci = number_list(f, "median_ci95_us");
    if (ci.size() != 2) f.fail("median_ci95_us", "expected [lo, hi] or null");
    r.median_ci95_us = Interval{ci[0], ci[1]};
  }
  r.stop_reason = f.str("stop_reason");
  r.wall_time_ms = f.non_negative("wall_time_ms");
  r.timed_calls = static_cast<std::uint64_t>(f.integer_in("timed_calls", 0, kMaxInt64));
  r.flush_bytes = static_cast<std::uint64_t>(f.integer_in("flush_bytes", 0, kMaxInt64));
  r.rotation_copies = static_cast<std::uint64_t>(f.integer_in("rotation_copies", 0, kMaxInt64));
  r.notes = f.strings("notes");
  r.warnings = f.strings("warnings");
  if (f.has("flags")) r.flags = f.strings("flags");  // a file written before flags existed has none
  if (f.has("samples_us")) {
    r.samples_us = number_list(f, "samples_us");
    for (std::size_t i = 0; i < r.samples_us.size(); ++i) {
      if (r.samples_us[i] < 0) f.fail(fmt::format("samples_us[{}]", i), fmt::format("must be >= 0 (got {})", r.samples_us[i]));
    }
  }
  // instrument_selection and telemetry arrived with the cupti instrument; a file written before
  // them means: the contract's instrument was asked for by name, and telemetry was not recorded.
  if (f.has("instrument_selection")) {
    const JsonFields sel = f.object("instrument_selection");
    r.instrument.requested = sel.str("requested");
    if (r.instrument.requested != "auto") {
      sel.parse("requested", [](const std::string& name) { return parse_instrument(name); });
    }
    r.instrument.reason = sel.str("reason");
    r.instrument.kernel_tracing = sel.boolean("kernel_tracing");
  } else {
    r.instrument.requested = std::string(to_string(r.contract.instrument));
    r.instrument.reason = "not recorded";
  }
  if (has_kernel_breakdown(r.contract)) {
    for_each_object(f, "kernels", [&](const JsonFields& k) {
      KernelStat ks;
      ks.name = k.str("name");
      ks.launches = k.integer("launches");
      ks.total_us = k.number("total_us");
      ks.mean_us = k.number("mean_us");
      const std::int64_t blocks = k.integer("max_blocks");
      if (blocks < 0) k.fail("max_blocks", "must be >= 0");
      ks.max_blocks = static_cast<std::uint64_t>(blocks);
      r.kernels.push_back(std::move(ks));
    });
    r.kernel_set_changes = f.integer("kernel_set_changes");
  }
  r.telemetry = f.has("telemetry") ? telemetry_from_json(f.object("telemetry"))
                                    : telemetry_unavailable("not recorded");
  if (f.has("telemetry_samples")) {
    for_each_object(f, "telemetry_samples", [&](const JsonFields& t) {
      r.telemetry_samples.push_back(telemetry_sample_from_json(t));
    });
  }
  // Written before integrity records existed: nothing is known to be verified.
  if (f.has("integrity")) {
    r.integrity = integrity_from_json(f.get("integrity"), file, line, f.field_name("integrity"));
  }
  if (f.has("instrument_perturbation")) {
    const JsonFields p = f.object("instrument_perturbation");
    InstrumentPerturbation ip;
    ip.measured = p.boolean("measured");
    ip.reason = p.str("reason");
    ip.cupti_median_us = p.number("cupti_median_us");
    ip.event_median_us = p.number("event_median_us");
    ip.delta_us = p.number("delta_us");
    ip.delta_pct = p.number("delta_pct");
    ip.significant = p.boolean("significant");
    ip.applied = p.boolean("applied");
    if (ip.applied && r.contract.cupti_value != CuptiValue::event) {
      p.fail("applied", "the events' value was applied but the contract's cupti_value is not event");
    }
    r.instrument_perturbation = ip;
  }
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
  return parse_results_json(read_text_file(file), file);
}

std::vector<Result> parse_results_json(const std::string& text, const std::string& file) {
  const json doc = parse_json_document(text, file);
  JsonFields root(doc, file, 0, "");
  require_document_header(root, "caliber.results", kResultsSchemaVersion, 1);
  root.refuse_unknown({"schema_version", "kind", "generator", "complete", "results"});
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
