// The one driver every measuring path goes through (caliber::measure, caliber run's cells,
// caliber bench, caliber calibrate): a measured callable with its buffers and the checks that
// make its numbers trustworthy (docs/integrity.md).
//
//   untimed call:   inputs checksummed, outputs poisoned, one call under the backend's census of
//                   device work, outputs judged (reference or recorded), every output element
//                   scanned, inputs and cache state compared, restored when changed;
//   each contract:  the census judged for the contract (no device work, or work the measured
//                   stream does not order, cannot be timed with events or graphs), captured
//                   graphs compared with the census, the last timed call run on poisoned outputs
//                   (and fresh inputs when the subject has them) and judged like the first.
//
// Every check runs outside the timed windows. The record of what ran and what it found is
// Result::integrity.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "caliber/integrity.h"
#include "caliber/measure.h"

namespace caliber::integrity {

// Judges the outputs after a verified call: "" when they are right, else why not (one line).
// fresh_inputs: the call ran on the subject's fresh input set.
using OutputJudge = std::function<std::string(bool fresh_inputs)>;

struct Subject {
  Callable call;
  std::function<void()> prepare;  // per-call preparation (MeasureOptions::prepare), also before untimed calls
  DeclaredBuffers buffers;
  // Poisons the outputs instead of filling the declared outputs with 0xFF (a workload that owns
  // its buffers and poisons them itself). With a judge, it makes the outputs verified.
  std::function<void()> poison_outputs;
  // With a reference: judges outputs after the untimed call and after the last timed call.
  // Empty: the last timed call's output must equal the untimed call's under `rule`.
  OutputJudge judge;
  std::string judge_description;  // e.g. "fp64 reference on 16 rows drawn at random"
  OutputRule rule{};
  // With a judge: a second set of input values, written to the same addresses before the last
  // timed call, so a call that remembers its previous result (by address or by content) cannot
  // pass; restore_inputs puts the original values back.
  std::function<void()> load_fresh_inputs;
  // Writes the original input values back, the in-place buffers too (from the caller's copy). Empty: the subject
  // keeps a host copy of the declared inputs itself.
  std::function<void()> restore_inputs;
  // Sees the untimed call's census (caliber run: the code fingerprint of the kernels it launched).
  std::function<void(const DeviceWorkCensus&)> on_census;
  // false (to measure what the checks cost): only the judge's correctness call before timing
  // runs; every result says that nothing after it was verified.
  bool checks = true;
};

class CheckedSubject {
 public:
  CheckedSubject(Backend& backend, Subject subject);
  CheckedSubject(const CheckedSubject&) = delete;
  CheckedSubject& operator=(const CheckedSubject&) = delete;

  // The untimed verified call; runs once (measure() runs it first when it has not run).
  // DeviceError and the callable's own exceptions propagate.
  void run_untimed_check();
  // What the untimed call established (empty before run_untimed_check).
  const Integrity& untimed_integrity() const { return untimed_; }
  const DeviceWorkCensus& census() const { return census_; }
  // The untimed call's output failed its judge, or a check of the untimed call failed.
  bool failed_before_timing() const { return untimed_.failed(); }

  // One measurement under `contract`, checked; Result::integrity holds the untimed call's checks
  // and this measurement's. Throws IntegrityError when the contract cannot time this call
  // truthfully, and whatever caliber::measure throws.
  // Under instrument cupti the same call is also measured with events (tracing off) and the
  // result carries the instrument's perturbation; its contract says which clock gave the value.
  Result measure(const Contract& contract, const MeasureOptions& options);

 private:
  Result measure_checked(const Contract& contract, const MeasureOptions& options);
  void attach_perturbation(Result& r, const Contract& contract, const MeasureOptions& options);
  // Whether the outputs are verified: declared buffers, or a workload's own poison and judge.
  bool declared() const { return !subject_.buffers.empty() || (subject_.poison_outputs && subject_.judge); }
  // Puts the original values back into the buffers updated in place, then poisons the outputs.
  void poison_outputs();
  // The outputs, then the buffers updated in place: what a verified call's judge looks at.
  std::vector<const BufferRef*> judged_buffers() const;
  bool is_in_place(const BufferRef& b) const;
  // Host copies of the in-place buffers' original values (when the subject has no restore hook).
  void keep_in_place_originals();
  void restore_in_place();
  std::vector<std::uint64_t> input_checksums();
  // Compares the inputs with `expected`; on a change records the check failed with `when` and
  // restores the original values.
  void check_inputs(Integrity& integ, const std::vector<std::uint64_t>& expected, const std::string& when);
  void restore_original_inputs();
  void check_cache_state(Integrity& integ, const std::string& when);
  void check_outputs(Integrity& integ, bool untimed, bool fresh);
  void judge_census(Integrity& integ, const Contract& contract);
  void check_graph(Integrity& integ, const GraphExec& graph, std::size_t calls);
  // The poisoned verified sample is `from_end` samples from the end; the others before it.
  // retime() runs the poisoned verified call once more and returns its duration.
  void check_verified_call_time(Integrity& integ, const std::vector<double>& samples, std::size_t from_end,
                                const std::function<double()>& retime);
  void call_once();

  Backend& backend_;
  Subject subject_;
  bool untimed_done_ = false;
  Integrity untimed_;
  DeviceWorkCensus census_;
  std::optional<DeviceWorkCensus> steady_census_;  // taken after warmup when a graph looked short
  std::vector<std::uint64_t> input_sums_;          // of the original inputs
  std::vector<std::vector<unsigned char>> input_copies_;  // when the subject has no restore hook
  std::vector<std::vector<unsigned char>> in_place_copies_;  // likewise, of the in-place buffers
  std::optional<std::string> cache_before_;
  // Outputs of the untimed call when there is no judge: checksums (bitwise), host copies (tolerance).
  std::vector<std::uint64_t> golden_sums_;
  std::vector<std::vector<unsigned char>> golden_copies_;
  // The judged outputs' checksums around loading the fresh inputs: before (the previous call's
  // result) and after (what the verified call on fresh inputs starts from; they differ for buffers
  // updated in place). They tell a reused result and a skipped call from a wrong one.
  std::vector<std::uint64_t> held_output_sums_;
  std::vector<std::uint64_t> start_output_sums_;
  std::size_t calls_ = 0;
};

// caliber::measure's subject: the callable and the buffers MeasureOptions declares.
Subject subject_from_options(const Callable& call, const MeasureOptions& options);

// The events contract that measures a cupti contract's perturbation (docs/cupti.md, Perturbation):
// instrument event, the same cache policy, warmup and iteration rule, in the events' tightest
// window: isolated (each call alone, its launch gated) for isolated and per_iter contracts and for
// graph + cold with several calls per graph; the same graph replays otherwise. `note` (optional)
// receives the sentence a result adds when the schedule changed ("; the events timed ...").
Contract perturbation_events_contract(const Contract& cupti_contract, std::string* note = nullptr);

// Which clock gives a cupti result's value (docs/cupti.md, Perturbation), from the measured
// perturbation: `event` always the events', `cupti` always CUPTI's; `auto` the events' only when
// they were measured, the medians' 95% intervals do not overlap and the events read shorter
// (tracing only adds time; events reading longer hold idle launch gaps), and only when
// `events_see_all_work`: the call's work all ran on the measured stream, or the schedule replays
// a captured graph (whose work the capture joined to it). A call that issued work on other
// streams outside a graph is ordered by what it does uncaptured, which the census's capture
// cannot prove. `reason` empty: nothing to say (no events measurement under auto or cupti).
struct CuptiValueChoice {
  bool use_events = false;
  std::string reason;
};
CuptiValueChoice choose_cupti_value(CuptiValue mode, const InstrumentPerturbation& p, bool events_see_all_work,
                                    const std::string& why_not_all_work = "");

}  // namespace caliber::integrity
