#include "integrity/output_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/dtype_convert.h"

namespace caliber::integrity {
namespace {

namespace check = integrity_check;

double element_value(const unsigned char* p, std::size_t i, DType dtype) {
  switch (dtype) {
    case DType::fp32: {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      return f;
    }
    case DType::bf16: {
      std::uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      return ops::bf16_to_float(h);
    }
    case DType::fp16: {
      std::uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      return ops::fp16_to_float(h);
    }
  }
  return NAN;
}

}  // namespace

std::string compare_within_tolerance(const std::vector<unsigned char>& first, const std::vector<unsigned char>& now,
                                     DType dtype, const OutputRule& rule) {
  const std::size_t n = first.size() / dtype_size_bytes(dtype);
  std::size_t bad = 0;
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = element_value(first.data(), i, dtype);
    const double b = element_value(now.data(), i, dtype);
    const double bound = rule.rtol * std::abs(a) + rule.atol;
    const double d = std::abs(b - a);
    if (!(d <= bound)) {
      ++bad;
      worst = std::isfinite(d) ? std::max(worst, d) : INFINITY;
    }
  }
  if (bad == 0) return {};
  return fmt::format("{} of {} elements differ from the untimed call's output by more than rtol {:g} |first| + atol "
                     "{:g} (largest difference {:g})",
                     bad, n, rule.rtol, rule.atol, worst);
}

OutputCheck::OutputCheck(Backend& backend, const Subject& subject, SubjectBuffers& buffers)
    : backend_(backend), subject_(subject), buffers_(buffers) {}

void OutputCheck::check_untimed(Integrity& integ) {
  check_complete(integ, /*untimed=*/true);
  if (subject_.judge) {
    judge(integ, /*untimed=*/true, /*fresh=*/false, nullptr);
  } else {
    keep_untimed_output(integ);
  }
}

void OutputCheck::check_timed(Integrity& integ, bool fresh, const Integrity& untimed) {
  check_complete(integ, /*untimed=*/false);
  if (subject_.judge) {
    judge(integ, /*untimed=*/false, fresh, &untimed);
  } else {
    compare_with_untimed_output(integ);
  }
}

void OutputCheck::check_complete(Integrity& integ, bool untimed) {
  backend_.synchronize_device();
  backend_.check_errors();
  // Every element, not only those a reference compares: an unwritten element still holds the
  // poison, which is NaN in every floating-point dtype.
  // Buffers updated in place start from their input's values, not the poison: the scan finds
  // non-finite values there, and an element the call skipped is for the judge to find.
  std::uint64_t bad = 0, scanned = 0, scanned_in_place = 0;
  std::string where;
  bool any_dtype = false;
  std::string unscanned;  // outputs without a dtype (integers, fp8, fp64: no NaN poison to find)
  for (const BufferRef* o : buffers_.judged()) {
    if (!o->dtype) {
      unscanned += (unscanned.empty() ? "" : ", ") + o->name;
      continue;
    }
    any_dtype = true;
    const std::size_t n = o->bytes / dtype_size_bytes(*o->dtype);
    const std::uint64_t k = backend_.count_nonfinite(o->data, n, *o->dtype);
    (buffers_.is_in_place(*o) ? scanned_in_place : scanned) += n;
    if (k > 0 && where.empty()) where = fmt::format("{} of {} elements of '{}'", k, n, o->name);
    bad += k;
  }
  const std::string in_place_note =
      scanned_in_place == 0 ? ""
                            : fmt::format("; the {} elements updated in place are finite (they start from their input's "
                                          "values: an element the call skipped is for the judge to find)",
                                          scanned_in_place);
  if (subject_.buffers.outputs.empty() && subject_.buffers.in_place.empty()) {
    integ.record(check::output_complete, CheckOutcome::not_run,
                 subject_.judge ? "no output buffers declared: only the judge looked at the outputs"
                                : "no outputs declared");
  } else if (!any_dtype && !subject_.buffers.unscanned_judged_whole.empty()) {
    integ.record(check::output_complete, CheckOutcome::passed,
                 (subject_.buffers.unscanned_reason.empty() ? "" : subject_.buffers.unscanned_reason + "; ") +
                     subject_.buffers.unscanned_judged_whole);
  } else if (!any_dtype) {
    integ.record(check::output_complete, CheckOutcome::not_run,
                 !subject_.buffers.unscanned_reason.empty()
                     ? subject_.buffers.unscanned_reason
                     : "no output dtype declared: the elements were not scanned for the poison");
  } else if (bad > 0) {
    integ.record(check::output_complete, CheckOutcome::failed,
                 fmt::format("after {}, {} are NaN or infinite: never written (they still hold the poison) or not "
                             "finite",
                             untimed ? "the untimed call" : "the last timed call", where));
  } else {
    integ.record(check::output_complete, CheckOutcome::passed,
                 fmt::format("all {} output elements written and finite after each verified call{}{}", scanned,
                             in_place_note,
                             unscanned.empty()
                                 ? ""
                                 : fmt::format("; not scanned (no NaN in their dtype): {}{}", unscanned,
                                               subject_.buffers.unscanned_judged_whole.empty()
                                                   ? ", the judge compares their checked rows"
                                                   : ": " + subject_.buffers.unscanned_judged_whole)));
  }
}

void OutputCheck::judge(Integrity& integ, bool untimed, bool fresh, const Integrity* untimed_record) {
  const std::string_view name = untimed ? check::output_before_timing : check::output_after_timing;
  const std::string why = subject_.judge(fresh);
  if (why.empty()) {
    integ.record(name, CheckOutcome::passed,
                 subject_.judge_description + (fresh ? "; a verified call also ran on fresh inputs" : ""));
    return;
  }
  const IntegrityCheck* before = untimed_record ? untimed_record->find(check::output_before_timing) : nullptr;
  const bool was_correct = before && before->outcome == CheckOutcome::passed;
  const std::string when = fresh ? what_the_fresh_call_left() : "";
  integ.record(name, CheckOutcome::failed,
               was_correct ? fmt::format("correct before timing, wrong after the timed calls{}: {}", when, why) : why);
}

std::string OutputCheck::what_the_fresh_call_left() {
  // Before the call on fresh inputs its outputs held the previous call's result (and its in-place
  // buffers then took their fresh values): what the call left there says what it did.
  const std::vector<const BufferRef*> judged = buffers_.judged();
  const bool known = !judged.empty() && held_output_sums_.size() == judged.size() &&
                     start_output_sums_.size() == judged.size();
  bool as_previous = known, as_started = known;
  for (std::size_t k = 0; known && k < judged.size(); ++k) {
    const std::uint64_t now = backend_.checksum(judged[k]->data, judged[k]->bytes);
    as_previous = as_previous && now == held_output_sums_[k];
    as_started = as_started && now == start_output_sums_[k];
  }
  if (!known) return " (a verified call on fresh inputs, made while its output held the previous call's result)";
  if (as_previous) {
    return " (a verified call on fresh inputs left its output bit for bit the previous call's result: a result "
           "computed for other inputs)";
  }
  if (as_started) return " (a verified call on fresh inputs left its output as it was before the call)";
  return " (a verified call on fresh inputs: its output changed during the call and is wrong for these input "
         "values)";
}

void OutputCheck::keep_untimed_output(Integrity& integ) {
  const bool bitwise = subject_.rule.kind == OutputRule::Kind::bitwise;
  for (const BufferRef* o : buffers_.judged()) {
    if (bitwise) {
      golden_sums_.push_back(backend_.checksum(o->data, o->bytes));
    } else {
      golden_copies_.emplace_back(o->bytes);
      if (o->bytes) backend_.copy_to_host(golden_copies_.back().data(), o->data, o->bytes);
    }
  }
  integ.record(check::output_before_timing, CheckOutcome::not_run,
               fmt::format("no reference: the untimed call's output is what the last timed call must reproduce ({})",
                           bitwise ? "bit for bit" : "within the declared tolerance"));
}

void OutputCheck::compare_with_untimed_output(Integrity& integ) {
  const bool bitwise = subject_.rule.kind == OutputRule::Kind::bitwise;
  const std::vector<const BufferRef*> judged = buffers_.judged();
  std::string diff;
  for (std::size_t k = 0; k < judged.size() && diff.empty(); ++k) {
    const BufferRef& o = *judged[k];
    if (bitwise) {
      const std::uint64_t now = backend_.checksum(o.data, o.bytes);
      if (now != golden_sums_[k]) {
        diff = fmt::format("output '{}' differs from the untimed call's output (checksum {:016x}, was {:016x})", o.name,
                           now, golden_sums_[k]);
      }
    } else {
      std::vector<unsigned char> now(o.bytes);
      if (o.bytes) backend_.copy_to_host(now.data(), o.data, o.bytes);
      const std::string why = compare_within_tolerance(golden_copies_[k], now, *o.dtype, subject_.rule);
      if (!why.empty()) diff = fmt::format("output '{}': {}", o.name, why);
    }
  }
  if (!diff.empty()) {
    integ.record(check::output_after_timing, CheckOutcome::failed, "after the timed calls, " + diff);
    return;
  }
  integ.record(check::output_after_timing, CheckOutcome::passed,
               bitwise ? "equal, bit for bit, to the untimed call's output (same code, same inputs; declare a "
                         "tolerance for a callable whose reductions are not deterministic)"
                       : fmt::format("within rtol {:g}, atol {:g} of the untimed call's output", subject_.rule.rtol,
                                     subject_.rule.atol));
}

}  // namespace caliber::integrity
