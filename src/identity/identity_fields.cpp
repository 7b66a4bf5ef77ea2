// THE definition of which run-identity fields are the caliber, which are hazards and which are
// informative. docs/identity.md restates the reasons for readers; code reads only this table.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "caliber/caliber_check.h"
#include "identity/contract_description.h"

namespace caliber {
namespace {

std::string hashed(const std::optional<HashedFile>& f) { return f ? f->sha256 : std::string(); }

std::string clocks_text(const RunIdentity& id) {
  const ClocksAtStart& c = id.clocks_at_start;
  if (!c.available) return fmt::format("not available ({})", c.reason);
  if (c.mem_clock_mhz > 0) return fmt::format("sm={}MHz mem={}MHz ({})", c.sm_clock_mhz, c.mem_clock_mhz, c.source);
  return fmt::format("sm={}MHz ({})", c.sm_clock_mhz, c.source);
}

std::string processes_text(const RunIdentity& id) {
  const DeviceProcesses& p = id.device_processes_at_start;
  if (!p.available) return fmt::format("not checked ({})", p.reason);
  if (p.processes.empty()) return fmt::format("none ({})", p.source);
  std::string out = fmt::format("{} ({}):", p.processes.size(), p.source);
  for (const DeviceProcess& d : p.processes) {
    out += fmt::format(" pid {}{}", d.pid, d.name.empty() ? "" : " " + d.name);
  }
  return out;
}

std::string providers_text(const RunIdentity& id) {
  std::string out;
  for (const HashedFile& f : id.providers) {
    out += fmt::format("{}{}={}:{}", out.empty() ? "" : ", ", f.role, f.path, f.sha256.substr(0, 12));
  }
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

// Start clocks further apart than this fraction of the higher one: one side started from a
// different power state (idle at 345 MHz vs boosted at 1980 MHz on the H200,
// docs/gpu/reference.md).
constexpr double kStartClockHazardFraction = 0.25;

std::string start_clock_hazard(const RunIdentity& a, const RunIdentity& b) {
  const ClocksAtStart &x = a.clocks_at_start, &y = b.clocks_at_start;
  if (!x.available || !y.available) return {};
  const double hi = std::max(x.sm_clock_mhz, y.sm_clock_mhz);
  if (hi <= 0 || std::abs(x.sm_clock_mhz - y.sm_clock_mhz) <= kStartClockHazardFraction * hi) return {};
  return fmt::format("SM clock at start differs by more than {:.0f}%: A={} MHz, B={} MHz; the sides started from "
                     "different power states (warmup may not have equalised them)",
                     100 * kStartClockHazardFraction, x.sm_clock_mhz, y.sm_clock_mhz);
}

std::string process_hazard(const RunIdentity& a, const RunIdentity& b) {
  std::string out;
  for (const auto& [label, id] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
    const DeviceProcesses& p = id->device_processes_at_start;
    if (!p.available || p.processes.empty()) continue;
    out += fmt::format("{}another compute process was on the device when {} started: {}", out.empty() ? "" : "; ",
                       label, processes_text(*id));
  }
  return out;
}

std::string uuid_hazard(const RunIdentity& a, const RunIdentity& b) {
  if (a.device.uuid == b.device.uuid) return {};
  return fmt::format("different physical devices of the same model (A={}, B={}): device-to-device variation is "
                     "part of every delta",
                     a.device.uuid.empty() ? "<none>" : a.device.uuid, b.device.uuid.empty() ? "<none>" : b.device.uuid);
}

std::vector<IdentityField> make_fields() {
  using F = FieldClass;
  return {
      {"backend", F::caliber, "a different runtime measures different code with a different clock",
       [](const RunIdentity& i) { return std::string(to_string(i.device.backend)); }},
      {"device.name", F::caliber, "a different device model",
       [](const RunIdentity& i) { return i.device.name; }},
      {"device.arch", F::caliber, "a different architecture runs different machine code",
       [](const RunIdentity& i) { return i.device.arch; }},
      {"device.driver_version", F::caliber, "drivers change launch paths, clocks policy and code generation (JIT)",
       [](const RunIdentity& i) { return i.device.driver_version; }},
      {"device.runtime_version", F::caliber, "the runtime and its libraries are part of what is timed",
       [](const RunIdentity& i) { return i.device.runtime_version; }},
      {"contracts", F::caliber,
       "every contract field (instrument, schedule, cache policy, statistic, warmup, iteration rule, throttle "
       "policy, ...) changes a number, by multiples on a tiny kernel (docs/gpu/reference.md)",
       [](const RunIdentity& i) { return describe_contracts(i.contracts); }},
      {"harness.version", F::caliber, "another caliber version may measure differently",
       [](const RunIdentity& i) { return i.harness.version; }},
      {"harness.build_type", F::caliber, "a Debug harness adds its own overhead around every call",
       [](const RunIdentity& i) { return i.harness.build_type; }},
      {"inputs.shape_ledger", F::caliber, "another ledger is another set of shapes (and of shape ids)",
       [](const RunIdentity& i) { return hashed(i.shape_ledger); }},
      {"device.uuid", F::hazard, "another physical device of the same model",
       [](const RunIdentity& i) { return i.device.uuid; }, uuid_hazard},
      {"clocks_at_start", F::hazard, "a side that starts from another power state may not be warmed to the same clocks",
       clocks_text, start_clock_hazard},
      {"device_processes_at_start", F::hazard, "another process on the device competes for it while timing",
       processes_text, process_hazard},
      {"device.index", F::informative, "which of the host's devices", [](const RunIdentity& i) {
         return std::to_string(i.device.index);
       }},
      {"harness.git_revision", F::informative,
       "the code under test may be in the harness build (an A/B of two builds differs here by design)",
       [](const RunIdentity& i) { return i.harness.git_revision; }},
      {"harness.compiler", F::informative, "the compiler that built the harness",
       [](const RunIdentity& i) { return i.harness.compiler; }},
      {"harness.executable_sha256", F::informative, "the exact binary (differs between two builds by design)",
       [](const RunIdentity& i) { return i.harness.executable_sha256; }},
      {"providers", F::informative, "the provider libraries loaded: the code under test, so it differs in an A/B",
       providers_text},
      {"inputs.baseline_matrix", F::informative,
       "which providers ran and from where (differs when an A/B swaps a provider's entrypoint)",
       [](const RunIdentity& i) { return hashed(i.baseline_matrix); }},
      {"run_checks.integrity", F::informative, "how the rows were verified (--integrity); a resume keeps it",
       [](const RunIdentity& i) { return i.run_checks ? i.run_checks->integrity : std::string(); }},
      {"run_checks.input_seed", F::informative, "the run's input values (--seed); a resume keeps it",
       [](const RunIdentity& i) { return i.run_checks ? std::to_string(i.run_checks->input_seed) : std::string(); }},
      {"run_checks.verification_seed", F::informative,
       "which rows the checks compare: drawn per session, or pinned (--verification-seed); a resume keeps a pinned one",
       [](const RunIdentity& i) { return i.run_checks ? i.run_checks->verification_seed : std::string(); }},
      {"run_id", F::informative, "this run", [](const RunIdentity& i) { return i.run_id; }},
      {"created_at", F::informative, "when it started (UTC)", [](const RunIdentity& i) { return i.created_at; }},
      {"hostname", F::informative, "where it ran", [](const RunIdentity& i) { return i.hostname; }},
      {"command", F::informative, "how it was started", [](const RunIdentity& i) { return join(i.command); }},
      {"outputs", F::informative, "the files this identity describes",
       [](const RunIdentity& i) { return join(i.outputs); }},
  };
}

}  // namespace

std::string_view to_string(FieldClass c) {
  switch (c) {
    case FieldClass::caliber: return "caliber";
    case FieldClass::hazard: return "hazard";
    case FieldClass::informative: return "informative";
  }
  return "?";
}

const std::vector<IdentityField>& identity_fields() {
  static const std::vector<IdentityField> fields = make_fields();
  return fields;
}

std::vector<std::string> caliber_field_names() {
  std::vector<std::string> out;
  for (const IdentityField& f : identity_fields()) {
    if (f.field_class == FieldClass::caliber) out.emplace_back(f.name);
  }
  return out;
}

std::vector<std::string> caliber_field_values(const RunIdentity& identity) {
  std::vector<std::string> out;
  for (const IdentityField& f : identity_fields()) {
    if (f.field_class == FieldClass::caliber) out.push_back(f.value(identity));
  }
  return out;
}

}  // namespace caliber
