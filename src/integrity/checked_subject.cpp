#include "integrity/checked_subject.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "caliber/errors.h"
#include "measure/engine.h"
#include "ops/dtype_convert.h"

namespace caliber::integrity {
namespace {

namespace check = integrity_check;

constexpr unsigned char kPoisonByte = 0xFF;  // NaN in fp32, bf16 and fp16
// How much slower than the other timed calls' median the verified call may be before it is
// taken for a call that skips its work when its output already holds a result (and it must also
// be twice the slowest of them: one slow sample of honest work is rarely both).
constexpr double kVerifiedCallSlowdown = 20.0;
// How many more poisoned calls a suspiciously slow verified call gets before the check fails.
constexpr std::size_t kVerifiedCallRetimes = 3;

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string describe_work(const DeviceWorkCensus& c) {
  return fmt::format("{}, {}, {}", plural(c.kernels, "kernel", "kernels"), plural(c.copies, "copy", "copies"),
                     plural(c.fills, "fill", "fills"));
}

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

// Why `now` is not within the rule of `first`, or "".
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

}  // namespace

Subject subject_from_options(const Callable& call, const MeasureOptions& options) {
  Subject s;
  s.call = call;
  s.buffers = options.buffers;
  s.rule = options.output_rule;
  s.prepare = options.prepare;
  s.checks = options.integrity_checks;
  return s;
}

CheckedSubject::CheckedSubject(Backend& backend, Subject subject) : backend_(backend), subject_(std::move(subject)) {
  for (const BufferRef& b : subject_.buffers.inputs) {
    if (!b.data && b.bytes) throw ContractError(fmt::format("declared input '{}' has no address", b.name));
  }
  for (const BufferRef* b : judged_buffers()) {
    const char* what = is_in_place(*b) ? "in-place buffer" : "output";
    if (!b->data && b->bytes) throw ContractError(fmt::format("declared {} '{}' has no address", what, b->name));
    if (b->dtype && b->bytes % dtype_size_bytes(*b->dtype) != 0) {
      throw ContractError(fmt::format("declared {} '{}' holds {} bytes, not a whole number of {} elements", what,
                                      b->name, b->bytes, to_string(*b->dtype)));
    }
    if (subject_.rule.kind == OutputRule::Kind::tolerance && !b->dtype) {
      throw ContractError(fmt::format("output rule tolerance needs the dtype of declared {} '{}'", what, b->name));
    }
  }
  // An in-place buffer declared again as an input or output would be poisoned, or watched for the
  // change it makes by design.
  const auto overlap = [](const BufferRef& a, const BufferRef& b) {
    const auto* a0 = static_cast<const unsigned char*>(a.data);
    const auto* b0 = static_cast<const unsigned char*>(b.data);
    return a.bytes > 0 && b.bytes > 0 && a0 < b0 + b.bytes && b0 < a0 + a.bytes;
  };
  for (const BufferRef& p : subject_.buffers.in_place) {
    for (const auto* list : {&subject_.buffers.inputs, &subject_.buffers.outputs}) {
      for (const BufferRef& b : *list) {
        if (overlap(p, b)) {
          throw ContractError(fmt::format("declared in-place buffer '{}' overlaps declared {} '{}': declare it once, "
                                          "as in place",
                                          p.name, list == &subject_.buffers.inputs ? "input" : "output", b.name));
        }
      }
    }
  }
  if (subject_.load_fresh_inputs && !subject_.judge) {
    throw ContractError("fresh inputs need a judge of the output (a reference)");
  }
}

void CheckedSubject::call_once() {
  if (subject_.prepare) subject_.prepare();
  subject_.call(LaunchContext{backend_.stream(), calls_++, 0});
}

std::vector<const BufferRef*> CheckedSubject::judged_buffers() const {
  std::vector<const BufferRef*> out;
  for (const BufferRef& b : subject_.buffers.outputs) out.push_back(&b);
  for (const BufferRef& b : subject_.buffers.in_place) out.push_back(&b);
  return out;
}

bool CheckedSubject::is_in_place(const BufferRef& b) const {
  const std::vector<BufferRef>& p = subject_.buffers.in_place;
  return !p.empty() && &b >= p.data() && &b < p.data() + p.size();
}

void CheckedSubject::keep_in_place_originals() {
  if (subject_.restore_inputs || !in_place_copies_.empty()) return;
  for (const BufferRef& b : subject_.buffers.in_place) {
    in_place_copies_.emplace_back(b.bytes);
    if (b.bytes) backend_.copy_to_host(in_place_copies_.back().data(), b.data, b.bytes);
  }
}

void CheckedSubject::restore_in_place() {
  if (subject_.buffers.in_place.empty()) return;
  if (subject_.restore_inputs) {
    subject_.restore_inputs();  // the caller's copy holds every input, the in-place ones too
    return;
  }
  for (std::size_t k = 0; k < in_place_copies_.size(); ++k) {
    const BufferRef& b = subject_.buffers.in_place[k];
    backend_.copy_to_device(b.data, in_place_copies_[k].data(), b.bytes);
  }
}

void CheckedSubject::poison_outputs() {
  // A verified call starts from the original values of what it updates in place, as the untimed
  // call did: its result is then comparable, and a call that skipped its work leaves them as they were.
  restore_in_place();
  if (subject_.poison_outputs) {
    subject_.poison_outputs();
    return;
  }
  for (const BufferRef& o : subject_.buffers.outputs) backend_.fill_bytes(o.data, kPoisonByte, o.bytes);
}

std::vector<std::uint64_t> CheckedSubject::input_checksums() {
  std::vector<std::uint64_t> sums;
  for (const BufferRef& i : subject_.buffers.inputs) sums.push_back(backend_.checksum(i.data, i.bytes));
  return sums;
}

void CheckedSubject::restore_original_inputs() {
  if (subject_.restore_inputs) {
    subject_.restore_inputs();
    return;
  }
  for (std::size_t k = 0; k < input_copies_.size(); ++k) {
    const BufferRef& b = subject_.buffers.inputs[k];
    backend_.copy_to_device(b.data, input_copies_[k].data(), b.bytes);
  }
}

void CheckedSubject::check_inputs(Integrity& integ, const std::vector<std::uint64_t>& expected,
                                  const std::string& when) {
  if (subject_.buffers.inputs.empty()) {
    integ.record(check::inputs_unchanged, CheckOutcome::not_run,
                 subject_.buffers.in_place.empty() ? "no inputs declared"
                                                   : "no inputs declared besides those updated in place");
    return;
  }
  backend_.synchronize_device();
  const std::vector<std::uint64_t> now = input_checksums();
  std::string changed;
  for (std::size_t k = 0; k < now.size(); ++k) {
    if (now[k] == expected[k]) continue;
    changed += fmt::format("{}'{}' (checksum {:016x} -> {:016x})", changed.empty() ? "" : ", ",
                           subject_.buffers.inputs[k].name, expected[k], now[k]);
  }
  if (changed.empty()) {
    std::size_t bytes = 0;
    for (const BufferRef& b : subject_.buffers.inputs) bytes += b.bytes;
    integ.record(check::inputs_unchanged, CheckOutcome::passed,
                 fmt::format("{} ({} bytes) checksummed before and after every verified call: unchanged",
                             plural(now.size(), "input", "inputs"), bytes));
    return;
  }
  integ.record(check::inputs_unchanged, CheckOutcome::failed,
               fmt::format("the call changed its inputs {}: {}; caliber restored them from its copy", when, changed));
  restore_original_inputs();
}

void CheckedSubject::check_cache_state(Integrity& integ, const std::string& when) {
  if (!cache_before_) return;
  const std::optional<std::string> now = backend_.cache_state();
  if (now == cache_before_) {
    integ.record(check::cache_state, CheckOutcome::passed, "left as it was: " + *now);
    return;
  }
  backend_.restore_cache_state();
  integ.record(check::cache_state, CheckOutcome::failed,
               fmt::format("{} changed the device's cache state from [{}] to [{}]; caliber restored it (a call that "
                           "keeps data persisting in L2 defeats the cold flush and changes every later measurement)",
                           when, *cache_before_, now.value_or("unknown")));
}

void CheckedSubject::check_outputs(Integrity& integ, bool untimed, bool fresh) {
  backend_.synchronize_device();
  backend_.check_errors();
  const std::string after = untimed ? "the untimed call" : "the last timed call";

  // Every element, not only those a reference compares: an unwritten element still holds the
  // poison, which is NaN in every floating-point dtype.
  // Buffers updated in place start from their input's values, not the poison: the scan finds
  // non-finite values there, and an element the call skipped is for the judge to find.
  std::uint64_t bad = 0, scanned = 0, scanned_in_place = 0;
  std::string where;
  bool any_dtype = false;
  for (const BufferRef* o : judged_buffers()) {
    if (!o->dtype) continue;
    any_dtype = true;
    const std::size_t n = o->bytes / dtype_size_bytes(*o->dtype);
    const std::uint64_t k = backend_.count_nonfinite(o->data, n, *o->dtype);
    (is_in_place(*o) ? scanned_in_place : scanned) += n;
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
  } else if (!any_dtype) {
    integ.record(check::output_complete, CheckOutcome::not_run,
                 "no output dtype declared: the elements were not scanned for the poison");
  } else if (bad > 0) {
    integ.record(check::output_complete, CheckOutcome::failed,
                 fmt::format("after {}, {} are NaN or infinite: never written (they still hold the poison) or not "
                             "finite",
                             after, where));
  } else {
    integ.record(check::output_complete, CheckOutcome::passed,
                 fmt::format("all {} output elements written and finite after each verified call{}", scanned,
                             in_place_note));
  }

  const std::string_view name = untimed ? check::output_before_timing : check::output_after_timing;
  if (subject_.judge) {
    const std::string why = subject_.judge(fresh);
    if (why.empty()) {
      integ.record(name, CheckOutcome::passed,
                   subject_.judge_description + (fresh ? "; a verified call also ran on fresh inputs" : ""));
      return;
    }
    const bool was_correct = !untimed && untimed_.find(check::output_before_timing) &&
                             untimed_.find(check::output_before_timing)->outcome == CheckOutcome::passed;
    std::string when;
    if (fresh) {
      // Before the call on fresh inputs its outputs held the previous call's result (and its in-place
      // buffers then took their fresh values): what the call left there says what it did.
      const std::vector<const BufferRef*> judged = judged_buffers();
      const bool known = !judged.empty() && held_output_sums_.size() == judged.size() &&
                         start_output_sums_.size() == judged.size();
      bool as_previous = known, as_started = known;
      for (std::size_t k = 0; known && k < judged.size(); ++k) {
        const std::uint64_t now = backend_.checksum(judged[k]->data, judged[k]->bytes);
        as_previous = as_previous && now == held_output_sums_[k];
        as_started = as_started && now == start_output_sums_[k];
      }
      if (!known) {
        when = " (a verified call on fresh inputs, made while its output held the previous call's result)";
      } else if (as_previous) {
        when = " (a verified call on fresh inputs left its output bit for bit the previous call's result: a result "
               "computed for other inputs)";
      } else if (as_started) {
        when = " (a verified call on fresh inputs left its output as it was before the call)";
      } else {
        when = " (a verified call on fresh inputs: its output changed during the call and is wrong for these input "
               "values)";
      }
    }
    integ.record(name, CheckOutcome::failed,
                 was_correct ? fmt::format("correct before timing, wrong after the timed calls{}: {}", when, why)
                             : why);
    return;
  }

  const bool bitwise = subject_.rule.kind == OutputRule::Kind::bitwise;
  const std::vector<const BufferRef*> judged = judged_buffers();
  if (untimed) {
    for (const BufferRef* o : judged) {
      if (bitwise) {
        golden_sums_.push_back(backend_.checksum(o->data, o->bytes));
      } else {
        golden_copies_.emplace_back(o->bytes);
        if (o->bytes) backend_.copy_to_host(golden_copies_.back().data(), o->data, o->bytes);
      }
    }
    integ.record(name, CheckOutcome::not_run,
                 fmt::format("no reference: the untimed call's output is what the last timed call must reproduce ({})",
                             bitwise ? "bit for bit" : "within the declared tolerance"));
    return;
  }
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
  if (diff.empty()) {
    integ.record(name, CheckOutcome::passed,
                 bitwise ? "equal, bit for bit, to the untimed call's output (same code, same inputs; declare a "
                           "tolerance for a callable whose reductions are not deterministic)"
                         : fmt::format("within rtol {:g}, atol {:g} of the untimed call's output", subject_.rule.rtol,
                                       subject_.rule.atol));
  } else {
    integ.record(name, CheckOutcome::failed, "after the timed calls, " + diff);
  }
}

void CheckedSubject::run_untimed_check() {
  if (untimed_done_) return;
  untimed_done_ = true;
  census_.applicable = backend_.asynchronous();
  if (!subject_.checks) {
    // Checks off (to measure what they cost): only the correctness call a judge needs, as before
    // there were integrity checks.
    census_.why_not_observed = "the integrity checks were turned off";
    if (!subject_.judge) return;
    keep_in_place_originals();
    poison_outputs();
    call_once();
    backend_.synchronize_device();
    backend_.check_errors();
    const std::string why = subject_.judge(false);
    untimed_.record(check::output_before_timing, why.empty() ? CheckOutcome::passed : CheckOutcome::failed,
                    why.empty() ? subject_.judge_description : why);
    return;
  }
  if (!declared() && !backend_.observes_device_work()) {
    census_.why_not_observed = fmt::format("the {} backend has no tracer of device work", to_string(backend_.kind()));
    census_.ordering_detail = census_.why_not_observed;
    return;
  }
  if (declared()) {
    input_sums_ = input_checksums();
    if (!subject_.restore_inputs) {
      for (const BufferRef& b : subject_.buffers.inputs) {
        input_copies_.emplace_back(b.bytes);
        if (b.bytes) backend_.copy_to_host(input_copies_.back().data(), b.data, b.bytes);
      }
    }
    keep_in_place_originals();
    poison_outputs();
  }
  cache_before_ = backend_.cache_state();
  census_ = backend_.census_call([this] { call_once(); });
  if (subject_.on_census) subject_.on_census(census_);
  if (declared()) {
    check_outputs(untimed_, /*untimed=*/true, /*fresh=*/false);
    check_inputs(untimed_, input_sums_, "during the untimed call");
  }
  check_cache_state(untimed_, "the untimed call");
}

void CheckedSubject::judge_census(Integrity& integ, const Contract& contract) {
  const DeviceWorkCensus& c = census_;
  if (!c.applicable) return;  // synchronous backend: the call is the work
  if (!c.observed) {
    integ.record(check::device_work, CheckOutcome::not_run, c.why_not_observed);
    integ.record(check::work_on_stream, CheckOutcome::not_run, c.why_not_observed);
    return;
  }
  if (c.work() == 0) {
    integ.record(check::device_work, CheckOutcome::failed, "the untimed call launched no device work");
    throw IntegrityError(std::string(check::device_work),
                         fmt::format("the call launched no device work (no kernel, copy or fill): there is nothing "
                                     "for the {} timer to measure",
                                     to_string(contract.instrument)));
  }
  integ.record(check::device_work, CheckOutcome::passed, "the untimed call issued " + describe_work(c));
  if (c.other_threads > 0) {
    const std::string why = fmt::format(
        "{} device operations were issued by another host thread while the call ran: no timer on the calling "
        "thread can attribute or order them",
        c.other_threads);
    integ.record(check::work_on_stream, CheckOutcome::failed, why);
    throw IntegrityError(std::string(check::work_on_stream), why);
  }
  // A graph replay's work is what its capture holds: graph_complete judges that. Events around
  // eager calls see only what the measured stream orders.
  if (contract.schedule == Schedule::graph) return;
  if (contract.instrument != Instrument::event) {
    integ.record(check::work_on_stream, CheckOutcome::passed,
                 fmt::format("{}: {}",
                             c.off_stream ? fmt::format("{} of {} operations on other streams", c.off_stream, c.work())
                                          : "all on the measured stream",
                             contract.instrument == Instrument::cupti
                                 ? "cupti attributes the call's work by identity, on any stream"
                                 : "the wall clock waits for the whole device"));
    return;
  }
  if (c.ordered == false) {
    integ.record(check::work_on_stream, CheckOutcome::failed, c.ordering_detail);
    throw IntegrityError(std::string(check::work_on_stream),
                         fmt::format("events on the measured stream cannot time this call: {}", c.ordering_detail));
  }
  if (!c.ordered) {
    integ.record(check::work_on_stream, CheckOutcome::not_run, c.ordering_detail);
    return;
  }
  integ.record(check::work_on_stream, CheckOutcome::passed, c.ordering_detail);
}

void CheckedSubject::check_verified_call_time(Integrity& integ, const std::vector<double>& samples,
                                              std::size_t from_end, const std::function<double()>& retime) {
  if (samples.size() < 4 || from_end == 0 || from_end > samples.size()) return;  // too few to say what is typical
  const std::size_t at = samples.size() - from_end;
  const double verified = samples[at];
  std::vector<double> others(samples.begin(), samples.begin() + static_cast<long>(at));
  std::sort(others.begin(), others.end());
  const double median = others[others.size() / 2];
  const double slowest = others.back();
  // A call that skips its work whenever its output already holds a result runs fast on every
  // timed call but the verified one, whose output caliber poisoned. An honest call's verified
  // sample is one more sample of the same work.
  const auto too_slow = [&](double us) { return us > kVerifiedCallSlowdown * median && us > 2.0 * slowest; };
  if (!too_slow(verified)) {
    integ.record(check::verified_call_time, CheckOutcome::passed,
                 fmt::format("the verified call took {:.4g} us; the other timed calls' median {:.4g} us", verified,
                             median));
    return;
  }
  // One slow reading is also what a preempted host thread or an interrupt looks like. Skipping
  // work on a poisoned output is systematic: every poisoned call is slow. The verified call is
  // re-timed (poisoned and judged again); one re-timed call at the speed of the others clears it.
  std::vector<double> again;
  for (std::size_t k = 0; k < kVerifiedCallRetimes && retime; ++k) {
    again.push_back(retime());
    if (!too_slow(again.back())) {
      integ.record(check::verified_call_time, CheckOutcome::passed,
                   fmt::format("the verified call took {:.4g} us once, {:.0f}x the other timed calls' median {:.4g} "
                               "us; re-timed on poisoned outputs it took {:.4g} us (re-timing {} of {}): one slow "
                               "reading, not work skipped",
                               verified, verified / std::max(median, 1e-9), median, again.back(), k + 1,
                               kVerifiedCallRetimes));
      return;
    }
  }
  integ.record(check::verified_call_time, CheckOutcome::failed,
               fmt::format("the verified call (outputs poisoned) took {:.4g} us, {:.0f}x the median {:.4g} us of the "
                           "other {} timed calls and {:.1f}x the slowest{}: the call does less work when its output "
                           "already holds a result",
                           verified, verified / std::max(median, 1e-9), median, others.size(),
                           verified / std::max(slowest, 1e-9),
                           again.empty() ? std::string()
                                         : fmt::format(", and {} more poisoned calls took {:.4g} us", again.size(),
                                                       fmt::join(again, ", "))));
}

void CheckedSubject::check_graph(Integrity& integ, const GraphExec& graph, std::size_t calls) {
  const std::optional<GraphNodeCounts> counts = graph.node_counts();
  if (!counts) {
    integ.record(check::graph_complete, CheckOutcome::not_run, "the backend cannot count a captured graph's nodes");
    return;
  }
  if (counts->work() == 0) {
    const std::string why = fmt::format(
        "the captured graph holds no device work of the call ({} calls captured{}): the call launched nothing while "
        "it was being captured",
        calls, counts->own ? fmt::format(", {} nodes of caliber's own", counts->own) : "");
    integ.record(check::graph_complete, CheckOutcome::failed, why);
    throw IntegrityError(std::string(check::graph_complete), why);
  }
  if (!census_.observed) {
    integ.record(check::graph_complete, CheckOutcome::not_run,
                 fmt::format("the graph holds {} work nodes for {} calls; the call's own work is unknown ({})",
                             counts->work(), calls, census_.why_not_observed));
    return;
  }
  const auto describe_graph = [&] {
    return fmt::format("{} kernel, {} copy and {} fill nodes for {} calls", counts->kernels, counts->copies,
                       counts->fills, calls);
  };
  const DeviceWorkCensus* per_call = &census_;
  if (counts->work() < per_call->work() * calls) {
    // A first call may do one-time work (a library initializing): look at a steady call now.
    if (!steady_census_) steady_census_ = backend_.census_call([this] { call_once(); });
    per_call = &*steady_census_;
  }
  if (counts->work() < per_call->work() * calls) {
    const std::string why = fmt::format(
        "the captured graph holds {}, but one call issues {} when it runs: work escaped the capture (launched on a "
        "stream the capture does not follow, or skipped while capturing)",
        describe_graph(), describe_work(*per_call));
    integ.record(check::graph_complete, CheckOutcome::failed, why);
    throw IntegrityError(std::string(check::graph_complete), why);
  }
  integ.record(check::graph_complete, CheckOutcome::passed,
               fmt::format("{}; one call issues {}", describe_graph(), describe_work(*per_call)));
}

Result CheckedSubject::measure(const Contract& contract, const MeasureOptions& options) {
  Result r = measure_checked(contract, options);
  if (contract.instrument == Instrument::cupti && contract.quantity == Quantity::device_time) {
    attach_perturbation(r, contract, options);
  }
  return r;
}

CuptiValueChoice choose_cupti_value(CuptiValue mode, const InstrumentPerturbation& p, bool events_see_all_work,
                                    const std::string& why_not_all_work) {
  switch (mode) {
    case CuptiValue::event:
      return {true, "the events' value, as asked (cupti_value event)"};
    case CuptiValue::cupti:
      return {false, p.measured ? "CUPTI's value, as asked (cupti_value cupti)" : ""};
    case CuptiValue::automatic:
      break;
  }
  if (!p.measured) return {false, ""};
  if (!p.significant) return {false, "CUPTI's value: the two medians agree within their 95% intervals"};
  if (p.delta_us < 0) {
    // Tracing only adds time. Events reading longer than CUPTI measured something CUPTI does not
    // count: the gaps between launches the device spent idle inside the events' window (a short
    // kernel under per_iter or isolated). That is not the kernel-only time, so CUPTI's stands.
    return {false, fmt::format("CUPTI's value: events read {:.3f} us longer, time the device spent idle between "
                               "launches inside their window (tracing cannot make a call faster)",
                               -p.delta_us)};
  }
  if (!events_see_all_work) {
    return {false, fmt::format("CUPTI's value: events read {:.3f} us shorter, but they bracket the measured stream "
                               "only, and {}",
                               p.delta_us, why_not_all_work)};
  }
  return {true, "the events' value: events see all of the call's work (it ran on the measured stream, or is replayed "
                "from its captured graph) and the medians' 95% intervals do not overlap, so tracing moved the number"};
}

Contract perturbation_events_contract(const Contract& cupti_contract, std::string* note) {
  Contract events = cupti_contract;
  events.instrument = Instrument::event;
  events.cupti_value = CuptiValue::automatic;
  // The window that holds the least besides the call: each call alone, its launch gated
  // (isolated), for isolated and per_iter calls and for graphs of cold calls; graph replays of
  // warm calls, where N calls per replay amortize its launch. Under per_iter the start event waits
  // on the previous call's stop and flush, not on the gate: +1.1% on a 196 us kernel on the H200
  // against +0.7% isolated; graph + cold with several calls per graph captures the flush between
  // them, and one call per graph keeps each replay's launch in the window (+2.4%)
  // (docs/h200/instruments.md).
  std::string why;
  if (events.schedule == Schedule::per_iter) {
    events.schedule = Schedule::isolated;
    why = "; the events timed each call alone (isolated, its launch gated)";
  } else if (events.schedule == Schedule::graph && events.cache == CachePolicy::cold && events.graph_calls > 1) {
    events.schedule = Schedule::isolated;
    why = fmt::format(
        "; the events timed each call alone (isolated: the flush before it, outside the window) where CUPTI "
        "replayed {} per graph with the flushes captured between them",
        cupti_contract.graph_calls);
  }
  if (note) *note = std::move(why);
  return events;
}

void CheckedSubject::attach_perturbation(Result& r, const Contract& contract, const MeasureOptions& options) {
  InstrumentPerturbation p;
  p.cupti_median_us = r.summary.median_us;
  // The same call and cache policy under events, with CUPTI's tracing off (the cupti
  // timer's tracing ended with its measurement), in the events' tightest window.
  std::string schedule_note;
  const Contract events = perturbation_events_contract(contract, &schedule_note);
  std::optional<Result> e;
  std::string why_not;
  if (auto why = why_invalid(events, static_cast<bool>(options.prepare))) {
    why_not = "events cannot measure this contract: " + *why;
  } else {
    MeasureOptions eo = options;
    eo.instrument_selection.reset();
    eo.keep_activity_tracing_on = false;
    try {
      e = measure_checked(events, eo);
      if (e->integrity.failed()) {
        why_not = "the events measurement failed an integrity check: " + e->integrity.first_failure();
        e.reset();
      }
    } catch (const IntegrityError& x) {
      why_not = std::string("events cannot time this call: ") + x.what();
    } catch (const ContractError& x) {
      why_not = std::string("events cannot measure this contract: ") + x.what();
    }
  }
  if (e) {
    p.measured = true;
    p.event_median_us = e->summary.median_us;
    p.delta_us = p.cupti_median_us - p.event_median_us;
    p.delta_pct = p.event_median_us > 0 ? 100.0 * p.delta_us / p.event_median_us : 0.0;
    p.significant = r.median_ci95_us && e->median_ci95_us &&
                    (r.median_ci95_us->lo > e->median_ci95_us->hi || r.median_ci95_us->hi < e->median_ci95_us->lo);
  } else {
    p.reason = why_not;
  }
  // Events see the work only when the measured stream orders all of it (the census proved that,
  // or the events measurement above would have been refused).
  if (contract.cupti_value == CuptiValue::event && !e) throw ContractError("cupti value event: " + why_not);
  // Events see all of the call's work when it all ran on the measured stream, or when they time
  // replays of the captured graph (the capture joined the forked work to the stream). Outside a
  // graph, work on other streams is ordered by what the call does uncaptured.
  std::string why_not_all_work;
  if (!census_.observed) {
    why_not_all_work = "the streams the call's work ran on were not observed (" + census_.why_not_observed + ")";
  } else if (census_.off_stream > 0) {
    why_not_all_work = fmt::format("{} of the call's {} operations ran on other streams", census_.off_stream,
                                   census_.work());
  }
  const bool events_see_all_work = events.schedule == Schedule::graph || why_not_all_work.empty();
  const CuptiValueChoice choice = choose_cupti_value(contract.cupti_value, p, events_see_all_work, why_not_all_work);
  const bool use_events = choice.use_events;
  if (!choice.reason.empty()) p.reason = choice.reason;
  p.applied = use_events;
  if (use_events) {
    // The events' samples give the value; CUPTI's attribution and kernel breakdown stay.
    Result traced = std::move(r);
    r = std::move(*e);
    r.contract = contract;
    r.instrument = traced.instrument;
    r.kernels = std::move(traced.kernels);
    r.kernel_set_changes = traced.kernel_set_changes;
    r.notes.insert(r.notes.begin(), traced.notes.begin(), traced.notes.end());
    r.notes.push_back(fmt::format("value from events with CUPTI's tracing off ({} us; CUPTI read {} us, {:+.2f}%){}: "
                                  "docs/cupti.md, Perturbation",
                                  p.event_median_us, p.cupti_median_us, p.delta_pct, schedule_note));
    r.warnings.insert(r.warnings.begin(), traced.warnings.begin(), traced.warnings.end());
    r.integrity.merge(traced.integrity);
    r.wall_time_ms += traced.wall_time_ms;
    r.timed_calls += traced.timed_calls;
  } else if (e) {
    r.integrity.merge(e->integrity);
    r.wall_time_ms += e->wall_time_ms;
  }
  r.contract.cupti_value = use_events ? CuptiValue::event : CuptiValue::cupti;
  r.instrument_perturbation = p;
}

Result CheckedSubject::measure_checked(const Contract& contract, const MeasureOptions& options) {
  measurement::validate_measurement(backend_, contract, options);
  // A verified sample must be one call: several calls per sample apply an in-place update several
  // times before the check, whose reference is one update of the original values.
  if (!subject_.buffers.in_place.empty()) {
    if (contract.schedule == Schedule::graph && contract.graph_calls > 1) {
      throw ContractError(fmt::format("graph_calls {}: a call that updates buffers in place is verified one call at a "
                                      "time; a graph of {} calls would update them {} times before the check (use "
                                      "graph_calls 1)",
                                      contract.graph_calls, contract.graph_calls, contract.graph_calls));
    }
    if (contract.schedule == Schedule::pipelined) {
      throw ContractError("schedule pipelined: a call that updates buffers in place is verified one call at a time, "
                          "and a pipelined window holds many calls (use per_iter, isolated or graph with graph_calls 1)");
    }
  }
  run_untimed_check();
  Integrity integ = untimed_;
  if (!subject_.checks) {
    integ.record(check::output_after_timing, CheckOutcome::not_run, "the integrity checks were turned off");
    Result r = measurement::run_measurement(backend_, subject_.call, contract, options, {});
    r.integrity = std::move(integ);
    return r;
  }
  judge_census(integ, contract);

  measurement::EngineHooks hooks;
  hooks.on_graph_captured = [&](const GraphExec& g, std::size_t calls) { check_graph(integ, g, calls); };
  // The verified samples (docs/integrity.md): `poisoned` runs on outputs caliber filled with NaN
  // (an element left unwritten, or a call that skipped its work, leaves NaN); `fresh` runs on a
  // second set of input values with the outputs still holding the previous call's valid result (a
  // call that remembers its result, or skips its work whenever its output already holds one, leaves
  // a result for the other inputs). The pipelined schedule has one window: fresh when it exists.
  enum class Stage { poisoned, fresh };
  std::vector<Stage> stages;
  const bool has_fresh = declared() && subject_.judge && subject_.load_fresh_inputs;
  if (declared()) {
    if (contract.schedule != Schedule::pipelined || !has_fresh) stages.push_back(Stage::poisoned);
    if (has_fresh) stages.push_back(Stage::fresh);
  }
  bool fresh_loaded = false;
  std::vector<std::uint64_t> fresh_sums;
  if (!stages.empty()) {
    hooks.verified_samples = stages.size();
    hooks.before_verified_sample = [&](std::size_t k) {
      if (k == 0) {
        check_inputs(integ, input_sums_, "during the timed calls");
        check_cache_state(integ, "the timed calls");
      }
      if (stages[k] == Stage::poisoned) {
        poison_outputs();
      } else {
        held_output_sums_.clear();
        start_output_sums_.clear();
        for (const BufferRef* o : judged_buffers()) held_output_sums_.push_back(backend_.checksum(o->data, o->bytes));
        subject_.load_fresh_inputs();
        for (const BufferRef* o : judged_buffers()) start_output_sums_.push_back(backend_.checksum(o->data, o->bytes));
        fresh_loaded = true;
        fresh_sums = input_checksums();
      }
    };
    hooks.after_verified_sample = [&](std::size_t k) {
      if (stages[k] == Stage::poisoned) {
        check_outputs(integ, /*untimed=*/false, /*fresh=*/false);
        check_inputs(integ, input_sums_, "during the verified call");
      } else {
        check_outputs(integ, /*untimed=*/false, /*fresh=*/true);
        check_inputs(integ, fresh_sums, "during the verified call on fresh inputs");
        restore_original_inputs();
        fresh_loaded = false;
      }
    };
    const auto poisoned = std::find(stages.begin(), stages.end(), Stage::poisoned);
    if (poisoned != stages.end() && contract.schedule != Schedule::pipelined) {
      const auto stage = static_cast<std::size_t>(poisoned - stages.begin());
      const std::size_t from_end = stages.size() - stage;
      hooks.on_samples = [&, from_end, stage](const std::vector<double>& samples,
                                              const std::function<double(std::size_t)>& resample) {
        check_verified_call_time(integ, samples, from_end, [&] { return resample(stage); });
      };
    }
  }
  Result r;
  try {
    r = measurement::run_measurement(backend_, subject_.call, contract, options, hooks);
  } catch (...) {
    if (fresh_loaded) {
      try {
        restore_original_inputs();
      } catch (...) {  // the measurement's own error is the one to report
      }
    }
    throw;
  }
  if (declared()) {
    check_cache_state(integ, "the last timed call");
  } else {
    integ.record(check::output_after_timing, CheckOutcome::not_run, "no buffers declared: the outputs were not verified");
    if (backend_.observes_device_work() && census_.applicable) {
      // The one look at the timed phase a callable without declared outputs gets: does it still
      // launch anything?
      const DeviceWorkCensus later = backend_.census_call([this] { call_once(); });
      if (later.observed) {
        integ.record(check::work_after_timing, later.work() > 0 ? CheckOutcome::passed : CheckOutcome::failed,
                     later.work() > 0 ? "a traced call after timing issued " + describe_work(later)
                                      : fmt::format("a traced call after timing launched no device work (the untimed "
                                                    "call before timing issued {}): the timed calls measured nothing",
                                                    describe_work(census_)));
      }
    }
  }
  r.integrity = std::move(integ);
  if (r.integrity.failed()) r.warnings.push_back("integrity check failed: " + r.integrity.first_failure());
  return r;
}

}  // namespace caliber::integrity

namespace caliber {

// The public entry point: every caliber::measure is a checked measurement of one subject.
Result measure(Backend& backend, const Callable& call, const Contract& contract, const MeasureOptions& options) {
  integrity::CheckedSubject subject(backend, integrity::subject_from_options(call, options));
  return subject.measure(contract, options);
}

}  // namespace caliber
