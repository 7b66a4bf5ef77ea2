#include "runner/cell_verdict.h"

#include "ops/correctness.h"

namespace caliber::runner {

bool integrity_failure_is_incorrect(const Integrity& integrity) {
  for (const IntegrityCheck& c : integrity.checks) {
    if (c.outcome != CheckOutcome::failed) continue;
    return c.name == integrity_check::output_before_timing || c.name == integrity_check::output_after_timing ||
           c.name == integrity_check::output_complete || c.name == integrity_check::inputs_unchanged;
  }
  return false;
}

CellVerdict cell_verdict(const Integrity& integrity, const std::optional<CorrectnessCheck>& correctness) {
  CellVerdict v;
  const IntegrityCheck* before = integrity.find(integrity_check::output_before_timing);
  const bool correct_before = before && before->outcome == CheckOutcome::passed;
  v.correct = correct_before && !integrity_failure_is_incorrect(integrity);
  if (!correct_before) {
    // The judge's own words (they name the output of an op with several); else from the record.
    v.correctness_error = before && before->outcome == CheckOutcome::failed ? before->detail
                          : correctness                                     ? ops::failure_reason(*correctness)
                          : before                                          ? before->detail
                                                                            : "";
    v.status = BenchmarkStatus::incorrect;
    v.reason = "output failed the correctness check: " + *v.correctness_error;
  } else if (!v.correct) {
    v.correctness_error = integrity.first_failure();
    v.status = BenchmarkStatus::incorrect;
    v.reason = "integrity: " + integrity.first_failure();
  } else if (integrity.failed()) {
    const IntegrityCheck* physics = integrity.find(integrity_check::physically_possible);
    v.status = physics && physics->outcome == CheckOutcome::failed ? BenchmarkStatus::faster_than_physical
                                                                   : BenchmarkStatus::failed;
    v.reason = "integrity: " + integrity.first_failure();
  }
  return v;
}

}  // namespace caliber::runner
