// Every timed call auditable (docs/integrity.md, "Fresh inputs" and "Audited calls"):
//
//   fresh inputs:  before every call that is not a verified sample (warmup, eager timed calls,
//                  each graph replay, each pipelined window), outside every window, new input
//                  values are drawn at the same addresses from a nonce drawn for the measurement
//                  and the call's index, and the outputs are poisoned: no call sees values an
//                  earlier call saw, and a call that skips its work leaves poison;
//   audits:        timed samples at positions drawn from the operating system's CSPRNG are judged
//                  once their batch has synchronized, against the reference of the inputs drawn
//                  for them (the batch ends after the audited sample; at least one per
//                  measurement: the last sample when no other was drawn). A call cannot tell an
//                  audited call from another: the choice is made after it returned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "caliber/contract.h"
#include "caliber/integrity.h"
#include "integrity/call_likeness.h"
#include "integrity/subject_checks.h"

namespace caliber::integrity {

// How many timed samples lie between two audits on average, and the most audits one
// measurement gets.
inline constexpr std::size_t kMeanAuditGap = 8;
inline constexpr std::size_t kMaxAudits = 16;

// 64 random bits (tests inject a sequence; default: std::random_device, the OS's CSPRNG).
using Entropy = std::function<std::uint64_t()>;
Entropy system_entropy();

// Why `subject` keeps fixed inputs under `contract`, or "" when it draws fresh ones.
std::string why_inputs_fixed(const SubjectChecks& subject, const Contract& contract);

class TimedCallAudit {
 public:
  // `subject` must outlive this object and draw fresh inputs (why_inputs_fixed is "").
  TimedCallAudit(SubjectChecks& subject, Entropy entropy);

  // Before a call (hooks.before_call): fresh inputs, poisoned outputs.
  void before_call();
  // The next audited sample at or after `sample` (none once kMaxAudits were judged).
  std::optional<std::size_t> next_audit(std::size_t sample);
  // Judges what the last call of `sample` left (inputs drawn last); the first failure is kept
  // for record().
  void audit(std::size_t sample);
  std::size_t audits() const { return audited_.size(); }
  // Once every sample is taken: the stopping rule's samples (per-call durations, in order),
  // judged against each other (integrity/call_likeness.h).
  void judge_samples(std::span<const double> rule_samples_us);
  // The fresh_inputs, audited_calls and calls_alike checks of the measurement (recorded once it
  // is over, after the verified samples' checks).
  void record(Integrity& integ) const;

 private:
  std::uint64_t draw_gap();

  SubjectChecks& subject_;
  Entropy entropy_;
  std::uint64_t nonce_ = 0;
  std::uint64_t calls_ = 0;      // calls that got fresh inputs
  std::uint64_t last_seed_ = 0;  // of the inputs drawn last
  double draw_ms_ = 0;           // spent drawing and poisoning
  std::size_t next_ = 0;         // the next audited sample
  std::vector<std::size_t> audited_;
  std::string failure_;  // the first audit that failed, "" while none did
  std::optional<CallLikeness> likeness_;
};

}  // namespace caliber::integrity
