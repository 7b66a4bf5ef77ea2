#include "integrity/subject_checks.h"

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::integrity {
namespace {

namespace check = integrity_check;

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

SubjectChecks::SubjectChecks(Backend& backend, Subject subject)
    : backend_(backend), subject_(std::move(subject)), buffers_(backend_, subject_), outputs_(backend_, subject_, buffers_) {
  if (subject_.load_fresh_inputs && !subject_.judge) {
    throw ContractError("fresh inputs need a judge of the output (a reference)");
  }
}

void SubjectChecks::require_verifiable(const Contract& contract) const {
  if (subject_.buffers.in_place.empty()) return;
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

void SubjectChecks::call_once() {
  if (subject_.prepare) subject_.prepare();
  subject_.call(LaunchContext{backend_.stream(), calls_++, 0});
}

void SubjectChecks::run_untimed_check() {
  if (untimed_done_) return;
  untimed_done_ = true;
  census_.applicable = backend_.asynchronous();
  if (!subject_.checks) {
    run_correctness_call();
    return;
  }
  const bool declared = buffers_.declared();
  if (!declared && !backend_.observes_device_work()) {
    census_.why_not_observed = fmt::format("the {} backend has no tracer of device work", to_string(backend_.kind()));
    census_.ordering_detail = census_.why_not_observed;
    return;
  }
  if (declared) {
    input_sums_ = buffers_.input_checksums();
    buffers_.keep_input_originals();
    buffers_.keep_in_place_originals();
    buffers_.poison_outputs();
  }
  cache_before_ = backend_.cache_state();
  census_ = backend_.census_call([this] { call_once(); });
  if (subject_.on_census) subject_.on_census(census_);
  if (declared) {
    outputs_.check_untimed(untimed_);
    check_inputs(untimed_, input_sums_, "during the untimed call");
  }
  check_cache_state(untimed_, "the untimed call");
}

void SubjectChecks::run_correctness_call() {
  census_.why_not_observed = "the integrity checks were turned off";
  if (!subject_.judge) return;
  buffers_.keep_in_place_originals();
  buffers_.poison_outputs();
  call_once();
  backend_.synchronize_device();
  backend_.check_errors();
  const std::string why = subject_.judge(false);
  untimed_.record(check::output_before_timing, why.empty() ? CheckOutcome::passed : CheckOutcome::failed,
                  why.empty() ? subject_.judge_description : why);
}

Integrity SubjectChecks::unchecked_record() const {
  Integrity integ = untimed_;
  integ.record(check::output_after_timing, CheckOutcome::not_run, "the integrity checks were turned off");
  return integ;
}

void SubjectChecks::check_inputs(Integrity& integ, const std::vector<std::uint64_t>& expected,
                                 const std::string& when) {
  const std::vector<BufferRef>& inputs = subject_.buffers.inputs;
  if (inputs.empty()) {
    integ.record(check::inputs_unchanged, CheckOutcome::not_run,
                 subject_.buffers.in_place.empty() ? "no inputs declared"
                                                   : "no inputs declared besides those updated in place");
    return;
  }
  backend_.synchronize_device();
  const std::vector<std::uint64_t> now = buffers_.input_checksums();
  std::string changed;
  for (std::size_t k = 0; k < now.size(); ++k) {
    if (now[k] == expected[k]) continue;
    changed += fmt::format("{}'{}' (checksum {:016x} -> {:016x})", changed.empty() ? "" : ", ", inputs[k].name,
                           expected[k], now[k]);
  }
  if (changed.empty()) {
    std::size_t bytes = 0;
    for (const BufferRef& b : inputs) bytes += b.bytes;
    integ.record(check::inputs_unchanged, CheckOutcome::passed,
                 fmt::format("{} ({} bytes) checksummed before and after every verified call: unchanged",
                             plural(now.size(), "input", "inputs"), bytes));
    return;
  }
  integ.record(check::inputs_unchanged, CheckOutcome::failed,
               fmt::format("the call changed its inputs {}: {}; caliber restored them from its copy", when, changed));
  buffers_.restore_original_inputs();
}

void SubjectChecks::check_cache_state(Integrity& integ, const std::string& when) {
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

const DeviceWorkCensus& SubjectChecks::steady_census() {
  if (!steady_census_) steady_census_ = backend_.census_call([this] { call_once(); });
  return *steady_census_;
}

DeviceWorkCensus SubjectChecks::census_one_more_call() {
  return backend_.census_call([this] { call_once(); });
}

}  // namespace caliber::integrity
