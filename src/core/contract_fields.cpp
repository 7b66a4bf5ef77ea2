#include "core/contract_fields.h"

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/number_text.h"

namespace caliber {
namespace {

bool always(const Contract&) { return true; }

std::int64_t count_text(std::string_view text) {
  const auto v = parse_integer(text);
  if (!v || *v < 0) throw UsageError(fmt::format("expected a non-negative integer, got '{}'", text));
  return *v;
}

// A field holding an enum with to_string / parse functions.
template <typename E, E Contract::*Member, E (*Parse)(std::string_view)>
ContractField enum_field(std::string_view name, bool (*applies)(const Contract&) = always) {
  return {name, ContractFieldType::text, applies,
          [](const Contract& c) { return std::string(to_string(c.*Member)); },
          [](Contract& c, std::string_view t) { c.*Member = Parse(t); }};
}

template <std::int64_t Contract::*Member>
ContractField count_field(std::string_view name, bool (*applies)(const Contract&) = always) {
  return {name, ContractFieldType::integer, applies,
          [](const Contract& c) { return std::to_string(c.*Member); },
          [](Contract& c, std::string_view t) { c.*Member = count_text(t); }};
}

ContractField with_absent(ContractField f, std::string_view absent) {
  f.absent = absent;
  return f;
}

std::vector<ContractField> make_table() {
  return {
      enum_field<BackendKind, &Contract::backend, parse_backend>("backend"),
      enum_field<Quantity, &Contract::quantity, parse_quantity>("quantity"),
      enum_field<Instrument, &Contract::instrument, parse_instrument>("instrument"),
      enum_field<Schedule, &Contract::schedule, parse_schedule>("schedule"),
      enum_field<CachePolicy, &Contract::cache, parse_cache_policy>("cache"),
      {"statistic", ContractFieldType::text, always, [](const Contract& c) { return c.statistic.name(); },
       [](Contract& c, std::string_view t) { c.statistic = parse_statistic(t); }},
      count_field<&Contract::warmup>("warmup"),
      {"iterations", ContractFieldType::iteration_rule, always,
       [](const Contract& c) { return c.iterations.describe(); },
       [](Contract& c, std::string_view t) { c.iterations = parse_iteration_rule(t); }},
      count_field<&Contract::graph_calls>("graph_calls",
                                          [](const Contract& c) { return c.schedule == Schedule::graph; }),
      enum_field<CuptiReduction, &Contract::cupti_reduction, parse_cupti_reduction>(
          "cupti_reduction", [](const Contract& c) { return c.instrument == Instrument::cupti; }),
      enum_field<CuptiValue, &Contract::cupti_value, parse_cupti_value>(
          "cupti_value", [](const Contract& c) { return c.instrument == Instrument::cupti; }),
      enum_field<ThrottlePolicy, &Contract::throttle_policy, parse_throttle_policy>("throttle_policy"),
      // Files written before the field existed: their timed calls may all have seen one set of
      // values, so they claim the less.
      with_absent(enum_field<InputValues, &Contract::inputs, parse_input_values>("inputs"), "fixed"),
  };
}

}  // namespace

const std::vector<ContractField>& contract_field_table() {
  static const std::vector<ContractField> table = make_table();
  return table;
}

const ContractField* find_contract_field(std::string_view name) {
  for (const ContractField& f : contract_field_table()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> contract_field_texts(const Contract& c) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ContractField& f : contract_field_table()) {
    if (f.applies(c)) out.emplace_back(std::string(f.name), f.text(c));
  }
  return out;
}

std::string canonical_field_text(const ContractField& field, std::string_view text) {
  Contract c;
  field.set(c, text);
  return field.text(c);
}

bool differ_only_in_budget(std::string_view field, std::string_view a, std::string_view b) {
  if (field != "iterations" || a.empty() || b.empty()) return false;
  try {
    IterationRule x = parse_iteration_rule(a), y = parse_iteration_rule(b);
    if (x.mode != IterationRule::Mode::adaptive || y.mode != IterationRule::Mode::adaptive) return false;
    x.min_time_ms = y.min_time_ms;
    x.max_time_ms = y.max_time_ms;
    return x == y;
  } catch (const UsageError&) {
    return false;
  }
}

}  // namespace caliber
