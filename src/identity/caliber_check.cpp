// The refusal: compare two run identities field by field before any latency is read.
#include <map>
#include <set>
#include <ostream>

#include <fmt/format.h>

#include "caliber/caliber_check.h"
#include "caliber/errors.h"
#include "core/contract_fields.h"
#include "identity/contract_description.h"

namespace caliber {
namespace {

std::string shown(const std::string& v) { return v.empty() ? "<none>" : v; }

// Differences of the `contracts` field, one per contract field and role.
void contract_differences(const RunIdentity& a, const RunIdentity& b, std::vector<CaliberDifference>& out) {
  std::map<std::string, const Contract*> ca, cb;
  for (const NamedContract& c : a.contracts) ca[c.role] = &c.contract;
  for (const NamedContract& c : b.contracts) cb[c.role] = &c.contract;
  std::set<std::string> roles;
  for (const auto& entry : ca) roles.insert(entry.first);
  for (const auto& entry : cb) roles.insert(entry.first);
  for (const std::string& role : roles) {
    const std::string name = fmt::format("contracts[{}]", role);
    const auto ia = ca.find(role), ib = cb.find(role);
    if (ia == ca.end() || ib == cb.end()) {
      const auto describe = [&](const Contract* c) {
        return c ? describe_contracts({NamedContract{role, *c}}) : std::string("<absent>");
      };
      out.push_back({name, describe(ia == ca.end() ? nullptr : ia->second),
                     describe(ib == cb.end() ? nullptr : ib->second)});
      continue;
    }
    // Field by field in core/contract_fields.h's order; a field that does not apply is absent.
    for (const ContractField& f : contract_field_table()) {
      const Contract &x = *ia->second, &y = *ib->second;
      const std::string va = f.applies(x) ? f.text(x) : "<absent>";
      const std::string vb = f.applies(y) ? f.text(y) : "<absent>";
      if (va != vb && !differ_only_in_budget(f.name, va, vb)) out.push_back({name + "." + std::string(f.name), va, vb});
    }
  }
}

}  // namespace

CaliberComparison compare_identities(const std::optional<RunIdentity>& a, const std::optional<RunIdentity>& b,
                                     const std::string& why_a_missing, const std::string& why_b_missing) {
  CaliberComparison out;
  if (!a || !b) {
    out.differences.push_back({kRunIdentityFileName, a ? "present" : fmt::format("<missing: {}>", why_a_missing),
                               b ? "present" : fmt::format("<missing: {}>", why_b_missing)});
    return out;
  }
  for (const IdentityField& f : identity_fields()) {
    if (f.field_class == FieldClass::caliber) {
      const std::string va = f.value(*a), vb = f.value(*b);
      if (va == vb) continue;
      if (f.name == "contracts") {
        contract_differences(*a, *b, out.differences);
      } else {
        out.differences.push_back({std::string(f.name), va, vb});
      }
    } else if (f.field_class == FieldClass::hazard && f.hazard) {
      if (std::string h = f.hazard(*a, *b); !h.empty()) out.hazards.push_back(fmt::format("{}: {}", f.name, h));
    }
  }
  return out;
}

void print_caliber_differences(const CaliberComparison& c, std::ostream& out, const std::string& label_a,
                               const std::string& label_b) {
  for (const std::string& h : c.hazards) out << "warning [caliber] " << h << '\n';
  for (const CaliberDifference& d : c.differences) {
    out << fmt::format("!!! [caliber] {}: {}={}, {}={}\n", d.field, label_a, shown(d.a), label_b, shown(d.b));
  }
}

void require_same_caliber(const CaliberComparison& c, bool allow_mismatch, std::ostream& out,
                          const std::string& label_a, const std::string& label_b) {
  print_caliber_differences(c, out, label_a, label_b);
  if (c.comparable()) return;
  if (allow_mismatch) {
    out << "!!! [caliber] proceeding anyway (--allow-caliber-mismatch): every number below compares runs of "
           "different caliber\n";
    out.flush();
    return;
  }
  out << fmt::format("!!! [caliber] refused: {} caliber field(s) differ, so the numbers would mean different "
                     "things. Re-run with one caliber, or pass --allow-caliber-mismatch once you can say why these "
                     "runs are comparable anyway.\n",
                     c.differences.size());
  out.flush();
  throw CaliberMismatchError(
      fmt::format("runs of different caliber ({} caliber field(s) differ; see the !!! [caliber] lines)",
                  c.differences.size()));
}

CaliberComparison check_runs_comparable(const std::string& run_a, const std::string& run_b, bool allow_mismatch,
                                        std::ostream& out) {
  std::string why_a, why_b;
  const std::optional<RunIdentity> a = find_run_identity(run_a, &why_a);
  const std::optional<RunIdentity> b = find_run_identity(run_b, &why_b);
  CaliberComparison c = compare_identities(a, b, why_a, why_b);
  require_same_caliber(c, allow_mismatch, out);
  return c;
}

}  // namespace caliber
