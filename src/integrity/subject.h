// What the integrity checks are handed (docs/integrity.md): a measured callable, the buffers it
// reads and writes, and how its output is judged. caliber::measure, caliber run's cells,
// caliber bench and caliber calibrate each describe their callable as a Subject.
#pragma once

#include <functional>
#include <string>

#include "caliber/backend.h"
#include "caliber/integrity.h"

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
  // Fresh inputs (docs/integrity.md, "Fresh inputs"): draws new input values from `seed` into the
  // declared inputs (same addresses), outside every timed window. With judge_drawn, every call
  // before and during timing runs on values drawn for it, and audited timed calls are judged.
  std::function<void(std::uint64_t seed)> draw_inputs;
  // Judges the outputs of a call whose inputs draw_inputs(seed) wrote: "" when right, else why
  // not (one line).
  std::function<std::string(std::uint64_t seed)> judge_drawn;
  // Under the graph schedule: asked for one input and output set per captured call before the
  // capture (and for 1 after); returns how many it holds. Call j of a graph then runs with
  // LaunchContext::rotation = j on set j; draw_inputs draws every set (and poisons the outputs of
  // sets 1..), and judge_drawn scans every set and judges one it picks from the seed.
  std::function<std::size_t(std::size_t sets)> input_sets;
  // Why the inputs stay fixed when there is no draw (recorded in the fresh_inputs check).
  std::string fixed_inputs_reason;
  // false for caliber's own workloads (built-in kernels, calibration): the check does not apply.
  bool fresh_inputs_apply = true;
  // Sees the untimed call's census (caliber run: the code fingerprint of the kernels it launched).
  std::function<void(const DeviceWorkCensus&)> on_census;
  // false (to measure what the checks cost): only the judge's correctness call before timing
  // runs; every result says that nothing after it was verified.
  bool checks = true;
};

}  // namespace caliber::integrity
