#include "identity/contract_description.h"

#include <algorithm>

#include "core/contract_fields.h"

namespace caliber {

std::string describe_contracts(const std::vector<NamedContract>& contracts) {
  std::vector<const NamedContract*> sorted;
  for (const NamedContract& c : contracts) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->role < b->role; });
  std::string out;
  for (const NamedContract* c : sorted) {
    out += (out.empty() ? "" : "; ") + c->role + "{";
    bool first = true;
    for (const auto& [k, v] : contract_field_texts(c->contract)) {
      out += (first ? "" : ",") + k + "=" + v;
      first = false;
    }
    out += "}";
  }
  return out;
}

}  // namespace caliber
