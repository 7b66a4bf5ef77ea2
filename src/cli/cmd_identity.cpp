// caliber identity: print a run's identity, its caliber columns, or check two runs against each other.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "caliber/caliber_check.h"
#include "caliber/errors.h"
#include "caliber/run_identity_json.h"
#include "cli/command.h"

namespace caliber::cli {
namespace {

struct IdentityOptions {
  std::string run;
  std::optional<std::string> against;
  bool json = false;
  bool tsv = false;
  bool allow_caliber_mismatch = false;
};

RunIdentity require_identity(const std::string& run) {
  std::string why;
  std::optional<RunIdentity> id = find_run_identity(run, &why);
  if (!id) throw UsageError(fmt::format("{}: no run identity: {}", run, why));
  return *id;
}

void print_text(const std::string& run, const RunIdentity& id) {
  std::cout << fmt::format("run identity of {} ({})\n", run, run_identity_path_for(run));
  for (FieldClass cls : {FieldClass::caliber, FieldClass::hazard, FieldClass::informative}) {
    std::cout << (cls == FieldClass::caliber  ? "caliber (must match for two runs to be compared):\n"
                  : cls == FieldClass::hazard ? "hazards (warned about when they differ):\n"
                                              : "informative:\n");
    for (const IdentityField& f : identity_fields()) {
      if (f.field_class != cls) continue;
      const std::string v = f.value(id);
      std::cout << fmt::format("  {:<26} {}\n", f.name, v.empty() ? "<none>" : v);
    }
  }
}

int run(const IdentityOptions& o) {
  if (o.against) {
    const CaliberComparison c = check_runs_comparable(o.run, *o.against, o.allow_caliber_mismatch, std::cout);
    if (c.comparable()) std::cout << fmt::format("caliber: {} and {} match\n", o.run, *o.against);
    return kExitOk;
  }
  const RunIdentity id = require_identity(o.run);
  if (o.json) {
    std::cout << to_json(id).dump(2) << '\n';
  } else if (o.tsv) {
    // The caliber columns, as screen.tsv carries them: a header line and a value line.
    std::string header, values;
    const auto names = caliber_field_names();
    const auto vals = caliber_field_values(id);
    for (std::size_t i = 0; i < names.size(); ++i) {
      header += (i ? "\t" : "") + names[i];
      values += (i ? "\t" : "") + vals[i];
    }
    std::cout << header << '\n' << values << '\n';
  } else {
    print_text(o.run, id);
  }
  return kExitOk;
}

const RegisterCommand registration{50, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<IdentityOptions>();
  auto* cmd = root.add_subcommand("identity", "Print a run's identity (run_identity.json), or check that two runs "
                                              "have the same caliber (docs/identity.md)");
  cmd->add_option("RUN", o->run, "A run directory, or a results file (its <stem>.run_identity.json sidecar)")->required();
  cmd->add_option("--against", o->against,
                  "Another run: print every caliber difference (!!! [caliber]) and hazard; exit 4 when a caliber "
                  "field differs");
  cmd->add_flag("--json", o->json, "Print the identity as JSON");
  cmd->add_flag("--tsv", o->tsv, "Print the caliber columns (header and values), as screen.tsv carries them");
  cmd->add_flag("--allow-caliber-mismatch", o->allow_caliber_mismatch, "With --against: print the differences, exit 0");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}};

}  // namespace
}  // namespace caliber::cli
