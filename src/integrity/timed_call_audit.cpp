#include "integrity/timed_call_audit.h"

#include <chrono>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ops/uniform_draw.h"

namespace caliber::integrity {
namespace {

namespace check = integrity_check;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The first output that holds a non-finite element: "3 of 4096 elements of 'y'", else "".
std::string nonfinite_outputs(Backend& backend, SubjectBuffers& buffers) {
  for (const BufferRef* o : buffers.judged()) {
    if (!o->dtype) continue;
    const std::size_t n = o->bytes / dtype_size_bytes(*o->dtype);
    const std::uint64_t k = backend.count_nonfinite(o->data, n, *o->dtype);
    if (k > 0) return fmt::format("{} of {} elements of '{}' are NaN or infinite (poison left: work skipped)", k, n, o->name);
  }
  return {};
}

}  // namespace

Entropy system_entropy() {
  return [] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  };
}

std::string why_inputs_fixed(const SubjectChecks& subject, const Contract& contract) {
  const Subject& s = subject.subject();
  if (contract.inputs == InputValues::fixed) {
    return s.fixed_inputs_reason.empty() ? "the contract asks for fixed inputs" : s.fixed_inputs_reason;
  }
  if (!s.draw_inputs || !s.judge_drawn) {
    return s.fixed_inputs_reason.empty() ? "the callable gives no way to draw its inputs (every timed call saw the same "
                                           "input values)"
                                         : s.fixed_inputs_reason;
  }
  if (!s.buffers.in_place.empty()) return "buffers updated in place: each call starts from what the previous one left";
  if (contract.cache == CachePolicy::rotate) return "cache rotate: the callable's input copies are its own";
  return {};
}

TimedCallAudit::TimedCallAudit(SubjectChecks& subject, Entropy entropy)
    : subject_(subject), entropy_(std::move(entropy)), nonce_(entropy_()) {
  subject_.buffers().keep_input_originals();
  next_ = static_cast<std::size_t>(draw_gap()) - 1;
}

std::uint64_t TimedCallAudit::draw_gap() { return 1 + entropy_() % (2 * kMeanAuditGap - 1); }

void TimedCallAudit::before_call() {
  const double from = now_ms();
  last_seed_ = ops::splitmix64(nonce_ ^ ops::splitmix64(calls_++));
  subject_.subject().draw_inputs(last_seed_);
  subject_.buffers().poison_outputs_async();
  draw_ms_ += now_ms() - from;
}

std::optional<std::size_t> TimedCallAudit::next_audit(std::size_t sample) {
  if (audited_.size() >= kMaxAudits) return std::nullopt;
  while (next_ < sample) next_ += static_cast<std::size_t>(draw_gap());
  return next_;
}

void TimedCallAudit::audit(std::size_t sample) {
  if (audited_.empty() || audited_.back() != sample) audited_.push_back(sample);
  if (next_ <= sample) next_ = sample + static_cast<std::size_t>(draw_gap());
  if (!failure_.empty()) return;
  Backend& backend = subject_.backend();
  backend.synchronize_device();
  backend.check_errors();
  std::string why = nonfinite_outputs(backend, subject_.buffers());
  if (why.empty()) why = subject_.subject().judge_drawn(last_seed_);
  if (why.empty()) return;
  failure_ = fmt::format("timed sample {} (an audited call, on inputs drawn for it): {}", sample, why);
}

void TimedCallAudit::judge_samples(std::span<const double> rule_samples_us) {
  likeness_ = judge_call_likeness(rule_samples_us);
}

void TimedCallAudit::record(Integrity& integ) const {
  integ.record(check::fresh_inputs, CheckOutcome::passed,
               fmt::format("each of {} calls before and during timing ran on input values drawn for it, its outputs "
                           "poisoned (drawing took {:.3f} ms)",
                           calls_, draw_ms_));
  if (likeness_) integ.record(check::calls_alike, likeness_->outcome, likeness_->detail);
  if (!failure_.empty()) {
    integ.record(check::audited_calls, CheckOutcome::failed, failure_);
    return;
  }
  integ.record(check::audited_calls, audited_.empty() ? CheckOutcome::not_run : CheckOutcome::passed,
               audited_.empty() ? "no timed sample was audited"
                                : fmt::format("{} timed samples judged against the reference of their own inputs, at "
                                              "positions drawn at random: {}",
                                              audited_.size(), fmt::join(audited_, ", ")));
}

}  // namespace caliber::integrity
