#include "identity/contract_description.h"

#include <algorithm>

namespace caliber {

std::vector<std::pair<std::string, std::string>> contract_fields(const Contract& c) {
  std::vector<std::pair<std::string, std::string>> out = {
      {"quantity", std::string(to_string(c.quantity))},
      {"instrument", std::string(to_string(c.instrument))},
      {"schedule", std::string(to_string(c.schedule))},
      {"cache", std::string(to_string(c.cache))},
      {"statistic", c.statistic.name()},
      {"warmup", std::to_string(c.warmup)},
      {"iterations", c.iterations.describe()},
  };
  if (c.schedule == Schedule::graph) out.emplace_back("graph_calls", std::to_string(c.graph_calls));
  if (c.instrument == Instrument::cupti) out.emplace_back("cupti_reduction", std::string(to_string(c.cupti_reduction)));
  out.emplace_back("throttle_policy", std::string(to_string(c.throttle_policy)));
  return out;
}

std::string describe_contracts(const std::vector<NamedContract>& contracts) {
  std::vector<const NamedContract*> sorted;
  for (const NamedContract& c : contracts) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->role < b->role; });
  std::string out;
  for (const NamedContract* c : sorted) {
    out += (out.empty() ? "" : "; ") + c->role + "{";
    bool first = true;
    for (const auto& [k, v] : contract_fields(c->contract)) {
      out += (first ? "" : ",") + k + "=" + v;
      first = false;
    }
    out += "}";
  }
  return out;
}

}  // namespace caliber
