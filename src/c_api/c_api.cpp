// The C API (include/caliber/c_api.h): a JSON request becomes the contract and MeasureOptions of
// one caliber::measure call, the same way caliber bench builds them from its options
// (src/cli/cmd_bench.cpp), and the Result comes back as the object bench --json writes.
//
// Nothing here times anything: the timer, the contract's validation and the integrity checks are
// the core's. No C++ exception crosses the ABI.
#include "caliber/c_api.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "caliber/backend.h"
#include "caliber/config.h"
#include "caliber/contract.h"
#include "caliber/errors.h"
#include "caliber/instrument_policy.h"
#include "caliber/measure.h"
#include "caliber/result_json.h"
#include "core/contract_fields.h"
#include "core/one_line.h"
#include "core/sampling_limits.h"
#include "c_api/c_api_support.h"

namespace caliber::c_api {
namespace {

using nlohmann::json;

// The caller's functions (include/caliber/c_api.h): the call, and the input draw with its check
// (both or neither).
struct Callbacks {
  caliber_call_fn call = nullptr;
  caliber_draw_fn draw = nullptr;
  caliber_check_fn check = nullptr;
  void* user_data = nullptr;
};

// The bytes of the reason a check may write.
constexpr std::size_t kWhySize = 1024;

// The request's fields, read once each; whatever is left unread at the end is refused.
class Request {
 public:
  explicit Request(const json& j) : j_(j) {
    if (!j_.is_object()) throw RequestError{"usage", "the request must be a JSON object", {}};
  }
  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  const json* take(const char* key) {
    read_.insert(key);
    return has(key) ? &j_.at(key) : nullptr;
  }
  std::optional<std::string> text(const char* key) {
    const json* v = take(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) usage(key, fmt::format("expected a text (got {})", v->type_name()));
    return v->get<std::string>();
  }
  std::optional<std::int64_t> integer(const char* key) {
    const json* v = take(key);
    if (!v) return std::nullopt;
    if (!v->is_number_integer() || v->get<double>() > static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
      usage(key, fmt::format("expected an integer (got {})", v->dump()));
    }
    return v->get<std::int64_t>();
  }
  std::optional<double> number(const char* key) {
    const json* v = take(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) usage(key, fmt::format("expected a number (got {})", v->dump()));
    return v->get<double>();
  }
  std::optional<bool> boolean(const char* key) {
    const json* v = take(key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) usage(key, fmt::format("expected true or false (got {})", v->dump()));
    return v->get<bool>();
  }
  void refuse_unread() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (!read_.count(it.key())) usage(it.key(), "unknown request field");
    }
  }

 private:
  const json& j_;
  std::set<std::string> read_;
};

// Runs a core parser (UsageError on an unknown name) on a request field.
template <typename Parse>
auto parse_field(const std::string& field, const std::string& value, Parse parse) -> decltype(parse(value)) {
  try {
    return parse(value);
  } catch (const UsageError& e) {
    usage(field, e.what());
  }
}

// A count a request gives: >= 1 and <= max, else a usage error naming the field.
void require_count(const char* field, const std::optional<std::int64_t>& value, std::int64_t max) {
  if (!value) return;
  try {
    require_count_option(*value, field, max);
  } catch (const UsageError& e) {
    throw RequestError{"usage", e.what(), {field}};
  }
}

bool is_host_dispatch(const std::string& measure) { return measure == "host-dispatch" || measure == "host_dispatch"; }

// The iteration rule as a request gives it: a fixed count, or the adaptive rule's bounds.
struct IterationRequest {
  std::optional<std::int64_t> iterations, min_samples;
  std::optional<double> min_time_ms, max_time_ms, target_precision;

  bool adaptive_given() const { return min_samples || min_time_ms || max_time_ms || target_precision; }
  void add_given(std::vector<std::string>& out) const {
    if (iterations) out.emplace_back("iterations");
    if (min_samples) out.emplace_back("min_samples");
    if (min_time_ms) out.emplace_back("min_time_ms");
    if (max_time_ms) out.emplace_back("max_time_ms");
    if (target_precision) out.emplace_back("target_precision");
  }
  void apply(IterationRule& rule, const std::string& skip) const {
    if (iterations && skip != "iterations") {
      rule.mode = IterationRule::Mode::fixed;
      rule.count = *iterations;
    }
    if (min_samples && skip != "min_samples") rule.min_samples = *min_samples;
    if (min_time_ms && skip != "min_time_ms") rule.min_time_ms = *min_time_ms;
    if (max_time_ms && skip != "max_time_ms") rule.max_time_ms = *max_time_ms;
    if (target_precision && skip != "target_precision") rule.target_rel_halfwidth = *target_precision;
  }
};

// The contract fields a request may set, read through the contract field table
// (core/contract_fields.h) in its order: a field the table sets from text is given under its
// own name, in caliber's spelling (a count as a JSON integer). Two are spelled as caliber bench
// spells them: the quantity is `measure` (device | host-dispatch), the iteration rule its numbers.
// The backend and the instrument are chosen apart (auto, and the instrument's recorded reason);
// `inputs` names the request's input buffers: the result's contract says whether they were drawn.
// Used to build the request's contract, and to find which given fields a refusal is about.
class ContractRequest {
 public:
  explicit ContractRequest(Request& req) {
    for (const ContractField& f : contract_field_table()) {
      if (f.name == "backend" || f.name == "instrument" || f.name == "inputs") continue;
      if (f.name == "quantity") {
        measure_ = req.text("measure");
      } else if (f.type == ContractFieldType::iteration_rule) {
        read_iteration_rule(req);
      } else if (f.type == ContractFieldType::integer) {
        if (const auto v = req.integer(std::string(f.name).c_str())) values_.push_back({&f, std::to_string(*v), *v});
      } else if (const auto v = req.text(std::string(f.name).c_str())) {
        values_.push_back({&f, *v, std::nullopt});
      }
    }
  }

  bool host_dispatch() const { return measure_ && is_host_dispatch(*measure_); }

  // A fixed count with adaptive bounds, and counts out of range, are usage errors.
  void check_counts() const {
    if (rule_.iterations && rule_.adaptive_given()) {
      throw RequestError{"usage",
                         "iterations (a fixed count) cannot be combined with min_samples, min_time_ms, max_time_ms "
                         "or target_precision (the adaptive rule)",
                         {"iterations"}};
    }
    require_count("warmup", count("warmup"), kMaxWarmupCalls);
    require_count("iterations", rule_.iterations, kMaxSampleCount);
    require_count("min_samples", rule_.min_samples, kMaxSampleCount);
    require_count("graph_calls", count("graph_calls"), kMaxSampleCount);
  }

  // The names of the fields given, in the table's order.
  std::vector<std::string> given() const {
    std::vector<std::string> out;
    for (const ContractField& f : contract_field_table()) {
      if (f.name == "quantity" && measure_) out.emplace_back("measure");
      if (f.type == ContractFieldType::iteration_rule) rule_.add_given(out);
      if (find(f.name)) out.emplace_back(f.name);
    }
    return out;
  }

  // Applies every field but `skip` (a name of given()) to `c`.
  void apply(Contract& c, const std::string& skip = "") const {
    if (measure_ && skip != "measure") apply_measure(c);
    for (const Value& v : values_) {
      if (v.field->name == skip) continue;
      parse_field(std::string(v.field->name), v.text, [&](const std::string& t) { v.field->set(c, t); });
    }
    rule_.apply(c.iterations, skip);
  }

 private:
  struct Value {
    const ContractField* field;
    std::string text;                   // as the table's set() reads it
    std::optional<std::int64_t> count;  // integer fields: the request's number
  };

  void read_iteration_rule(Request& req) {
    rule_.iterations = req.integer("iterations");
    rule_.min_samples = req.integer("min_samples");
    rule_.min_time_ms = req.number("min_time_ms");
    rule_.max_time_ms = req.number("max_time_ms");
    rule_.target_precision = req.number("target_precision");
  }

  const Value* find(std::string_view name) const {
    for (const Value& v : values_) {
      if (v.field->name == name) return &v;
    }
    return nullptr;
  }
  std::optional<std::int64_t> count(std::string_view name) const {
    const Value* v = find(name);
    return v ? v->count : std::nullopt;
  }

  void apply_measure(Contract& c) const {
    if (is_host_dispatch(*measure_)) {
      c.quantity = Quantity::host_dispatch;
      if (!find("schedule")) c.schedule = Schedule::isolated;  // bench: host dispatch is one launch per sample
    } else if (*measure_ == "device") {
      c.quantity = Quantity::device_time;
    } else {
      usage("measure", fmt::format("unknown value '{}' (expected device|host-dispatch)", *measure_));
    }
  }

  std::optional<std::string> measure_;
  std::vector<Value> values_;  // in the table's order
  IterationRequest rule_;
};

std::vector<BufferRef> buffers(Request& req, const char* key) {
  std::vector<BufferRef> out;
  const json* list = req.take(key);
  if (!list) return out;
  if (!list->is_array()) usage(key, "expected a list of buffers");
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& b = list->at(i);
    const std::string where = fmt::format("{}[{}]", key, i);
    if (!b.is_object()) usage(where, "expected {\"name\", \"data\", \"bytes\", \"dtype\"}");
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (it.key() != "name" && it.key() != "data" && it.key() != "bytes" && it.key() != "dtype") {
        usage(where, fmt::format("unknown buffer field '{}'", it.key()));
      }
    }
    BufferRef ref;
    ref.name = b.contains("name") && b.at("name").is_string() ? b.at("name").get<std::string>() : where;
    if (!b.contains("data") || !b.at("data").is_number_unsigned()) usage(where, "data must be the buffer's address");
    if (!b.contains("bytes") || !b.at("bytes").is_number_integer() || b.at("bytes").get<std::int64_t>() <= 0) {
      usage(where, "bytes must be a positive integer");
    }
    ref.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(b.at("data").get<std::uint64_t>()));
    ref.bytes = b.at("bytes").get<std::size_t>();
    if (!ref.data) usage(where, "data is a null address");
    if (b.contains("dtype") && !b.at("dtype").is_null()) {
      if (!b.at("dtype").is_string()) usage(where, "dtype must be a text or null");
      ref.dtype = parse_field("dtype", b.at("dtype").get<std::string>(), parse_dtype);
    }
    out.push_back(std::move(ref));
  }
  return out;
}

json parse_request(const std::string& request_text) {
  try {
    return json::parse(request_text);
  } catch (const json::exception& e) {
    throw RequestError{"usage", fmt::format("the request is not JSON: {}", e.what()), {}};
  }
}

// The backend, as bench --backend (auto = the GPU if one is visible, else host), and the device.
std::pair<BackendKind, int> read_backend(Request& req) {
  const std::string backend_name = req.text("backend").value_or("auto");
  const BackendKind kind = backend_name == "auto" ? default_backend_kind()
                                                  : parse_field("backend", backend_name, parse_backend);
  const std::int64_t device = req.integer("device").value_or(0);
  if (device < 0 || device > std::numeric_limits<int>::max()) usage("device", fmt::format("must be >= 0 (got {})", device));
  return {kind, static_cast<int>(device)};
}

// The instrument: a name, auto, or the backend's default; recorded with its reason.
InstrumentSelection select_request_instrument(const std::optional<std::string>& instrument, BackendKind kind,
                                              bool host_dispatch) {
  InstrumentSelection selection;
  if (host_dispatch && (!instrument || *instrument == "auto" || *instrument == "wallclock")) {
    selection.instrument = Instrument::wallclock;
    selection.choice.requested = instrument.value_or("wallclock");
    selection.choice.reason = "host-dispatch is read from the host clock";
    return selection;
  }
  try {
    return select_instrument(instrument.value_or(""), kind,
                             [kind](Instrument i) { return instrument_unavailable_reason(kind, i); });
  } catch (const UsageError& e) {
    usage("instrument", e.what());
  } catch (const ContractError& e) {
    throw RequestError{"contract", fmt::format("instrument: {}", e.what()), {"instrument"}};
  }
}

// The contract the request asks for. A refusal names the given fields whose default would have
// made the contract valid: they are the ones to change.
Contract request_contract(const ContractRequest& fields, const std::optional<std::string>& instrument,
                          BackendKind kind, Instrument selected) {
  Contract base = default_contract(kind);
  base.instrument = selected;
  Contract contract = base;
  fields.apply(contract);
  if (contract.cupti_value != CuptiValue::automatic && contract.instrument != Instrument::cupti &&
      instrument.value_or("") == "auto") {
    contract.cupti_value = CuptiValue::automatic;  // auto fell back to event: no CUPTI value to choose
  }
  const auto why = why_invalid(contract);
  if (!why) return contract;
  std::vector<std::string> blamed;
  for (const std::string& f : fields.given()) {
    Contract without = base;
    fields.apply(without, f);
    if (!why_invalid(without)) blamed.push_back(f);
  }
  if (instrument && blamed.empty()) {
    Contract other = default_contract(kind);
    fields.apply(other);
    if (!why_invalid(other)) blamed.push_back("instrument");
  }
  std::string named;
  for (const auto& f : blamed) named += (named.empty() ? "" : ", ") + f;
  throw RequestError{"contract",
                     blamed.empty() ? fmt::format("contract refused: {}", *why)
                                    : fmt::format("contract refused ({}): {}", named, *why),
                     blamed};
}

// cache=rotate: the callable cycles through input copies (its rotation argument) whose bytes
// together must cover 2x the last-level cache; the engine checks the coverage.
void read_rotation(Request& req, const Contract& contract, MeasureOptions& mo) {
  const std::optional<std::int64_t> copies = req.integer("rotation_copies");
  const std::optional<std::int64_t> working_set = req.integer("working_set_bytes");
  if (contract.cache == CachePolicy::rotate) {
    if (!copies || !working_set) {
      throw RequestError{"contract",
                         "contract refused (cache): cache rotate needs rotation_copies (the input copies the "
                         "callable cycles through, >= 2) and working_set_bytes (the bytes one call reads from its "
                         "copy)",
                         {"cache"}};
    }
    require_count("rotation_copies", copies, kMaxSampleCount);
    if (*copies < 2) usage("rotation_copies", fmt::format("cache rotate needs >= 2 input copies (got {})", *copies));
    if (*working_set < 1) usage("working_set_bytes", fmt::format("must be >= 1 (got {})", *working_set));
    mo.rotation_copies = static_cast<std::size_t>(*copies);
    mo.working_set_bytes = static_cast<std::uint64_t>(*working_set);
  } else if (copies || working_set) {
    usage(copies ? "rotation_copies" : "working_set_bytes", "only cache rotate cycles through input copies");
  }
}

// Everything of the request that is not the contract: the name, parameters, what the result
// keeps, the output rule and the buffers to verify.
MeasureOptions read_measure_options(Request& req, const Contract& contract, const InstrumentSelection& selection) {
  MeasureOptions mo;
  mo.name = req.text("name").value_or("python");
  if (const json* p = req.take("params")) {
    try {
      mo.params = params_from_json(*p, "(request)", 0, "params");
    } catch (const InputError& e) {
      usage("params", e.reason());
    }
  }
  mo.keep_samples = req.boolean("samples").value_or(false);
  mo.telemetry = req.boolean("telemetry").value_or(true);
  mo.integrity_checks = req.boolean("integrity_checks").value_or(true);
  mo.instrument_selection = selection;
  const std::optional<double> rtol = req.number("rtol"), atol = req.number("atol");
  if (rtol || atol) {
    if (rtol.value_or(0) < 0 || atol.value_or(0) < 0) usage(rtol.value_or(0) < 0 ? "rtol" : "atol", "must be >= 0");
    mo.output_rule.kind = OutputRule::Kind::tolerance;
    mo.output_rule.rtol = rtol.value_or(0);
    mo.output_rule.atol = atol.value_or(0);
  }
  mo.buffers.inputs = buffers(req, "inputs");
  mo.buffers.outputs = buffers(req, "outputs");
  mo.buffers.in_place = buffers(req, "in_place");
  read_rotation(req, contract, mo);
  return mo;
}

// A function to measure is required; the input draw and its check come together or not at all.
void require_callbacks(const Callbacks& cb) {
  if (!cb.call) throw RequestError{"usage", "no function to measure", {}};
  if (!cb.draw == !cb.check) return;
  const std::string missing = cb.draw ? "check" : "draw";
  throw RequestError{"usage",
                     fmt::format("{}: the input draw and its check are given together or not at all (fresh inputs, "
                                 "docs/integrity.md)",
                                 missing),
                     {missing}};
}

// The caller's judgement of an audited call's outputs: "" when right, else its one-line reason.
std::string check_drawn(const Callbacks& cb, std::uint64_t seed) {
  std::array<char, kWhySize> why{};
  const int rc = cb.check(cb.user_data, seed, why.data(), why.size());
  if (rc == 0) return {};
  if (rc != 1) throw CallableFailed{"the output check failed"};
  why.back() = '\0';
  const std::string reason = one_line(why.data());
  return reason.empty() ? "the check function found the outputs wrong (it gave no reason)" : reason;
}

// Fresh inputs (docs/integrity.md): the caller's draw and check become the options' own.
void attach_fresh_inputs(MeasureOptions& mo, const Callbacks& cb) {
  if (!cb.draw) return;
  mo.draw_inputs = [cb](std::uint64_t seed) {
    if (cb.draw(cb.user_data, seed) != 0) throw CallableFailed{"the input draw failed"};
  };
  mo.check_drawn = [cb](std::uint64_t seed) { return check_drawn(cb, seed); };
}

// The request is checked whole (every field read, the contract validated) before a backend opens.
std::string measure(const std::string& request_text, const Callbacks& cb) {
  require_callbacks(cb);
  const json j = parse_request(request_text);
  Request req(j);
  const auto [kind, device] = read_backend(req);
  const ContractRequest fields(req);
  fields.check_counts();
  const std::optional<std::string> instrument = req.text("instrument");
  const InstrumentSelection selection = select_request_instrument(instrument, kind, fields.host_dispatch());
  const Contract contract = request_contract(fields, instrument, kind, selection.instrument);
  MeasureOptions mo = read_measure_options(req, contract, selection);
  req.refuse_unread();
  attach_fresh_inputs(mo, cb);

  auto backend = open_backend(kind, device);
  const Callable callable = [cb](const LaunchContext& ctx) {
    if (cb.call(cb.user_data, ctx.stream, ctx.call_index, ctx.rotation) != 0) {
      throw CallableFailed{"the measured function failed"};
    }
  };
  const Result r = caliber::measure(*backend, callable, contract, mo);
  return to_json(r, mo.keep_samples).dump();
}

}  // namespace
}  // namespace caliber::c_api

extern "C" {

int caliber_c_api_version(void) { return CALIBER_C_API_VERSION; }

const char* caliber_version_string(void) {
  static const std::string text =
      std::string(CALIBER_VERSION) + " (git " + CALIBER_GIT_REVISION + ", " + CALIBER_BUILD_TYPE + ")";
  return text.c_str();
}

int caliber_measure_json(const char* request_json, caliber_call_fn call, void* user_data, char** result_json,
                         char** error_json) {
  return caliber_measure_checked_json(request_json, call, nullptr, nullptr, user_data, result_json, error_json);
}

int caliber_measure_checked_json(const char* request_json, caliber_call_fn call, caliber_draw_fn draw,
                                 caliber_check_fn check, void* user_data, char** result_json, char** error_json) {
  if (result_json) *result_json = nullptr;
  return caliber::c_api::guarded(error_json, [&] {
    const caliber::c_api::Callbacks callbacks{call, draw, check, user_data};
    const std::string out = caliber::c_api::measure(request_json ? request_json : "", callbacks);
    caliber::c_api::set_out(result_json, out);
  });
}

int caliber_results_document_json(const char* results_array_json, char** document_json, char** error_json) {
  if (document_json) *document_json = nullptr;
  return caliber::c_api::guarded(error_json, [&] {
    nlohmann::json array;
    try {
      array = nlohmann::json::parse(results_array_json ? results_array_json : "");
    } catch (const nlohmann::json::exception& e) {
      throw caliber::c_api::RequestError{"usage", std::string("the results are not JSON: ") + e.what(), {}};
    }
    if (!array.is_array()) throw caliber::c_api::RequestError{"usage", "expected a JSON array of results", {}};
    std::vector<caliber::Result> results;
    for (std::size_t i = 0; i < array.size(); ++i) {
      results.push_back(caliber::result_from_json(array[i], "(results)", 0, fmt::format("[{}]", i)));
    }
    std::ostringstream out;
    caliber::write_results_json(out, results, /*complete=*/true, /*with_samples=*/true);
    caliber::c_api::set_out(document_json, out.str());
  });
}

int caliber_backends_json(char** backends_json, char** error_json) {
  if (backends_json) *backends_json = nullptr;
  return caliber::c_api::guarded(error_json, [&] {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& b : caliber::available_backends()) {
      out.push_back({{"backend", caliber::to_string(b.kind)},
                     {"compiled", b.compiled},
                     {"device_count", b.device_count},
                     {"reason", b.reason}});
    }
    caliber::c_api::set_out(backends_json, out.dump());
  });
}

void caliber_free_string(char* s) { std::free(s); }

}  // extern "C"
