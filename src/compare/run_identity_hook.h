// The run-identity check that runs before any row is compared.
//
// Issue 7 ("caliber / run identity") fills check_run_identity in: it will read the
// run_identity.json written beside each run (backend, device name and architecture, driver and
// runtime versions, instrument, schedule, cache policy, statistic, warmup, iteration rule, clocks
// policy, harness version and build) and return every field that differs. `caliber compare`
// already prints each mismatch as `!!! [caliber] field: A=x, B=y` and exits 4 before any verdict.
#pragma once

#include <string>
#include <vector>

namespace caliber::compare {

struct IdentityMismatch {
  std::string field;
  std::string baseline;  // "A"
  std::string current;   // "B"
};

// Today: no run identity is recorded yet, so nothing can differ (returns an empty list).
std::vector<IdentityMismatch> check_run_identity(const std::string& baseline_file,
                                                 const std::string& current_file);

// "!!! [caliber] field: A=x, B=y"
std::string format_identity_mismatch(const IdentityMismatch& m);

}  // namespace caliber::compare
