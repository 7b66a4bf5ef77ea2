// The integrity record: checks, their outcomes, the verdict (include/caliber/integrity.h).
#include "caliber/integrity.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

int severity(CheckOutcome o) {
  switch (o) {
    case CheckOutcome::passed: return 0;
    case CheckOutcome::not_run: return 1;
    case CheckOutcome::failed: return 2;
  }
  return 2;
}

// Checks whose not running leaves the number only partly verified. physically_possible always
// runs where a number is bounded (theoretical ceilings where nothing was calibrated), so a
// physically_possible recorded as not run (no ceiling applies, or the op declares no bytes and no
// flops: nothing bounds its time) leaves the number partial. work_after_timing (a second look
// where CUPTI exists) and output_before_timing (not run when there is no reference: the untimed
// call's output is then what the timed calls must reproduce) are additional evidence: their
// absence does not lower the verdict, their failure does.
// fresh_inputs: a number whose timed calls all saw the same input values may hold remembered work.
constexpr std::array<std::string_view, 8> kCoreChecks = {
    integrity_check::device_work,      integrity_check::work_on_stream, integrity_check::graph_complete,
    integrity_check::output_complete,  integrity_check::inputs_unchanged, integrity_check::cache_state,
    integrity_check::fresh_inputs,     integrity_check::physically_possible};

}  // namespace

void Integrity::record(std::string_view name, CheckOutcome outcome, std::string detail) {
  for (IntegrityCheck& c : checks) {
    if (c.name != name) continue;
    if (severity(outcome) > severity(c.outcome)) {
      c.outcome = outcome;
      c.detail = std::move(detail);
    }
    return;
  }
  checks.push_back({std::string(name), outcome, std::move(detail)});
}

const IntegrityCheck* Integrity::find(std::string_view name) const {
  for (const IntegrityCheck& c : checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

bool Integrity::failed() const {
  return std::any_of(checks.begin(), checks.end(),
                     [](const IntegrityCheck& c) { return c.outcome == CheckOutcome::failed; });
}

std::string Integrity::first_failure() const {
  for (const IntegrityCheck& c : checks) {
    if (c.outcome == CheckOutcome::failed) return fmt::format("{}: {}", c.name, c.detail);
  }
  return {};
}

IntegrityVerdict Integrity::verdict() const {
  if (failed()) return IntegrityVerdict::failed;
  const IntegrityCheck* after = find(integrity_check::output_after_timing);
  if (!after || after->outcome != CheckOutcome::passed) return IntegrityVerdict::unverified;
  for (std::string_view name : kCoreChecks) {
    const IntegrityCheck* c = find(name);
    if (c && c->outcome == CheckOutcome::not_run) return IntegrityVerdict::partial;
  }
  return IntegrityVerdict::verified;
}

void Integrity::merge(const Integrity& other) {
  for (const IntegrityCheck& c : other.checks) record(c.name, c.outcome, c.detail);
  if (!verification_seed) verification_seed = other.verification_seed;
  if (!input_seed) input_seed = other.input_seed;
}

std::string_view to_string(CheckOutcome o) {
  switch (o) {
    case CheckOutcome::passed: return "passed";
    case CheckOutcome::failed: return "failed";
    case CheckOutcome::not_run: return "not_run";
  }
  return "?";
}

std::string_view to_string(IntegrityVerdict v) {
  switch (v) {
    case IntegrityVerdict::verified: return "verified";
    case IntegrityVerdict::partial: return "partial";
    case IntegrityVerdict::unverified: return "unverified";
    case IntegrityVerdict::failed: return "failed";
  }
  return "?";
}

CheckOutcome parse_check_outcome(std::string_view s) {
  for (CheckOutcome o : {CheckOutcome::passed, CheckOutcome::failed, CheckOutcome::not_run}) {
    if (to_string(o) == s) return o;
  }
  throw UsageError(fmt::format("unknown check outcome '{}' (expected passed|failed|not_run)", s));
}

IntegrityVerdict parse_integrity_verdict(std::string_view s) {
  for (IntegrityVerdict v : {IntegrityVerdict::verified, IntegrityVerdict::partial, IntegrityVerdict::unverified,
                             IntegrityVerdict::failed}) {
    if (to_string(v) == s) return v;
  }
  throw UsageError(fmt::format("unknown integrity verdict '{}' (expected verified|partial|unverified|failed)", s));
}

}  // namespace caliber
