// Re-accounting a sealed campaign (docs/campaigns.md, "Re-accounting"): its tables derived again
// from its rows, receipts and manifest, under rules that can only DEMOTE a result, never promote
// one. Pure logic on literal rows (tests/campaign/test_reaccount.cpp); the command writes only
// into a new directory, outside the campaign.
//
// Rules, applied to ok rows only (a row that is not ok keeps its status, whatever a rule says):
//   receipt      the cell's receipt is missing, edited, of another manifest or harness, or
//                records another row                              -> failed
//   physical     a measurement faster than the device's ceilings allow: its theoretical ones,
//                refined by the calibrated ones when given         -> faster_than_physical
//   verified     with --require-verified: an integrity verdict other than `verified`
//                                                                 -> failed
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/benchmark_results.h"
#include "integrity/device_ceilings.h"

namespace caliber::campaign {

struct ReaccountRules {
  std::vector<DeviceCeilings> ceilings;  // calibrated; empty: the theoretical ceilings alone
  std::uint64_t llc_bytes = 0;           // of the campaign's device (its identity)
  bool require_verified = false;
};

struct ReaccountDecision {
  BenchmarkStatus before = BenchmarkStatus::ok;
  BenchmarkStatus after = BenchmarkStatus::ok;
  std::string rule;    // "" when nothing changed
  std::string detail;
  bool demoted() const { return after != before; }
};

// receipt_problem: "" when the cell's receipt verifies (verify_campaign), else why not.
ReaccountDecision reaccount_row(const BenchmarkResultRow& row, const std::string& receipt_problem,
                                const ReaccountRules& rules);

// The row as re-accounted: its status and reason replaced when demoted ("re-accounted (<rule>):
// <detail>"), and correct set false for a demotion past ok, so the strict reader takes it.
BenchmarkResultRow apply_decision(BenchmarkResultRow row, const ReaccountDecision& d);

}  // namespace caliber::campaign

namespace caliber::campaign {

struct ReaccountOptions {
  std::string campaign_dir;
  std::string out;                        // a new directory outside the campaign
  std::optional<std::string> ceilings;    // calibrated ceilings file refining the physical rule
  bool require_verified = false;
};

// Re-derives a sealed campaign's tables into `out` (benchmark_results.jsonl and .csv, a copy of
// run_identity.json, reaccount.tsv: every row's before/after, reaccount_summary.json) without
// writing inside the campaign. Refuses (UsageError) an unsealed campaign and an `out` inside it.
// Returns 0, or 1 when a row was demoted.
int reaccount_campaign(const ReaccountOptions& options, std::ostream& out);

}  // namespace caliber::campaign
