#include "runner/resume_check.h"

#include <ostream>

#include <fmt/format.h>

#include "results/benchmark_results.h"
#include "caliber/caliber_check.h"
#include "caliber/errors.h"
#include "runner/capture_failure.h"
#include "io/benchmark_results_json.h"

namespace caliber::runner {
namespace {

// Fields a resume must keep beyond the caliber of docs/identity.md: the rows already written were
// measured with these providers and this matrix, and a resumed run is one run.
constexpr const char* kResumeOnlyFields[] = {"inputs.baseline_matrix", "providers", "run_checks.integrity",
                                             "run_checks.input_seed", "run_checks.verification_seed"};

void add_resume_differences(const RunIdentity& recorded, const RunIdentity& current, CaliberComparison& c) {
  for (const IdentityField& f : identity_fields()) {
    for (const char* name : kResumeOnlyFields) {
      if (f.name != name) continue;
      const std::string a = f.value(recorded), b = f.value(current);
      // An identity written before run_checks existed has none to compare (the resume says so).
      if (!recorded.run_checks && std::string_view(name).starts_with("run_checks.")) continue;
      if (a != b) c.differences.push_back({std::string(f.name), a, b});
    }
  }
}

}  // namespace

ExistingResults read_existing_results(const std::string& file) {
  ExistingResults e;
  for_each_benchmark_result(file, [&](std::string_view, const BenchmarkResultRow& r, long) {
    e.run_id = r.run_id;
    e.cells.insert({r.shape_id, r.provider});
    if (auto why = capture_denial_from(r)) e.capture_denied.emplace(r.provider, *why);
    if (r.config) {
      e.replaying_configs = r.config->pinning != ConfigPinning::recorded;
      if (r.config->pinning == ConfigPinning::replayed) e.replayed_keys[{r.shape_id, r.provider}] = r.config->key;
    }
  });
  return e;
}

void check_resume_keeps_configs(const ExistingResults& e, const std::optional<ConfigReplaySource>& source,
                                const std::string& results_file) {
  if (!e.replaying_configs) return;
  if (*e.replaying_configs && !source) {
    throw CaliberMismatchError(fmt::format("{}: its rows replay the configs of another run; resume it with the same "
                                           "--replay-configs",
                                           results_file));
  }
  if (!*e.replaying_configs && source) {
    throw CaliberMismatchError(fmt::format("{}: its rows recorded their own configs; --replay-configs {} would make "
                                           "the rest of the run pinned: resume it without --replay-configs",
                                           results_file, source->dir));
  }
  if (!source) return;
  for (const auto& [cell, key] : e.replayed_keys) {
    const std::optional<ProviderConfig> now = pinned_config_for(*source, cell.first, cell.second);
    if (!now || now->key != key) {
      throw CaliberMismatchError(fmt::format("{}: --replay-configs {} pins {} / {} to '{}', the rows already written "
                                             "ran '{}': resume it with the --replay-configs it started with",
                                             results_file, source->dir, cell.first, cell.second,
                                             now ? now->key : "nothing", key));
    }
  }
}

void check_resume_identity(const std::optional<RunIdentity>& recorded, const std::string& why_missing,
                           const RunIdentity& current, const std::string& out_dir, const std::string& results_file,
                           std::ostream& err) {
  CaliberComparison c = compare_identities(recorded, current, why_missing);
  if (recorded) add_resume_differences(*recorded, current, c);
  if (!c.comparable() || !c.hazards.empty()) {
    err << fmt::format("caliber run: --resume: A = the run in {} ({}), B = this session\n", out_dir,
                       recorded ? recorded->run_id : "no identity");
  }
  print_caliber_differences(c, err);
  if (!c.comparable()) {
    // A resume appends to one run: no option makes rows of two different runs one run.
    throw CaliberMismatchError(fmt::format(
        "{} cannot be resumed by this session ({}; see the !!! [caliber] lines): resume with the same build, "
        "device, contracts, ledger and matrix, or choose another --out",
        results_file,
        c.differences.size() == 1 ? "field " + c.differences.front().field + " differs"
                                  : fmt::format("{} fields differ", c.differences.size())));
  }
}

}  // namespace caliber::runner
