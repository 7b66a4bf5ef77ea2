// The timer: measure(callable, contract, options) -> Result.
//
// The engine is backend-agnostic: it runs warmup, the schedule and the cache policy on a
// Backend and asks the backend's SampleTimer for window durations. Every measurement goes
// through the integrity checks (docs/integrity.md): the call's device work is looked at before
// timing, and declared outputs are poisoned before the last timed call and verified after it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "caliber/backend.h"
#include "caliber/clock.h"
#include "caliber/contract.h"
#include "caliber/instrument_policy.h"
#include "caliber/integrity.h"
#include "caliber/params.h"
#include "caliber/result.h"
#include "caliber/telemetry.h"

namespace caliber {

struct MeasureOptions {
  std::string name;                                   // copied into Result::name
  Params params;                                      // copied into Result::params
  // Per-call preparation (e.g. re-initialising an in-place output). Runs before every call,
  // always outside the timed window. Refused by the pipelined schedule.
  std::function<void()> prepare;
  // cache=rotate: the callable selects input copy LaunchContext::rotation of rotation_copies;
  // rotation_copies x working_set_bytes must be >= 2x the last-level cache.
  std::size_t rotation_copies = 0;
  std::uint64_t working_set_bytes = 0;  // bytes one call reads and writes
  bool keep_samples = false;            // store raw samples in the Result
  Clock* clock = nullptr;               // host clock for time budgets; steady_clock() when null

  // How the contract's instrument was chosen (bench --instrument auto); recorded in the Result
  // with its warning. Default: the contract's instrument, "requested".
  std::optional<InstrumentSelection> instrument_selection;
  // Keep the backend's kernel activity tracing (CUPTI) on while measuring with another
  // instrument, to measure what tracing costs. Recorded in Result::instrument.kernel_tracing.
  bool keep_activity_tracing_on = false;

  // Device telemetry sampled in the background (docs/telemetry.md). Without a reader (no NVML,
  // host backend) the result says why and the measurement goes on.
  bool telemetry = true;
  double telemetry_period_ms = 10.0;    // milliseconds between readings
  bool keep_telemetry_samples = false;  // store the raw readings in the Result
  ThrottleRule throttle_rule{};
  TelemetryPacer* telemetry_pacer = nullptr;  // null: real time (tests inject their own)

  // Integrity (docs/integrity.md). The buffers the callable reads and writes. Declared, they get
  // every check: inputs checksummed before and after (and restored when changed), outputs
  // poisoned before an untimed call and before the last timed call, and the last timed call's
  // output compared with the untimed call's under `output_rule`. Not declared, the result says
  // that its outputs were not verified (integrity verdict `unverified`).
  DeclaredBuffers buffers;
  OutputRule output_rule{};
  // Fresh inputs (docs/integrity.md, "Fresh inputs"): with both set, before every call that is
  // not a verified one caliber calls draw_inputs(seed), which must write new values into the
  // declared inputs (same addresses), and judges audited timed calls with check_drawn(seed): ""
  // when the outputs are right for the inputs draw_inputs(seed) wrote, else why not (one line).
  // Without them every timed call sees the same input values: the result's fresh_inputs check is
  // not_run and its verdict at best partial.
  std::function<void(std::uint64_t seed)> draw_inputs;
  std::function<std::string(std::uint64_t seed)> check_drawn;
  // Under graph with N > 1 calls per graph (cache not rotate), with draw_inputs and check_drawn:
  // caliber asks input_sets(N) before the capture and input_sets(1) after the measurement; the
  // callable returns how many input and output sets it holds (1: its calls share the declared
  // buffers, and the result says so). With more than one, call j of a graph gets
  // LaunchContext::rotation = j and must read and write set j (set 0: the declared buffers), so no
  // call of a replay sees the inputs another saw; draw_inputs(seed) then draws new values into
  // every set and poisons the outputs of sets 1.. (NaN), and check_drawn(seed) judges every set
  // against its own inputs.
  std::function<std::size_t(std::size_t sets)> input_sets;
  // false: no integrity check runs at all (to measure what the checks cost); the result records
  // that nothing was verified.
  bool integrity_checks = true;
};

// Validates the contract (ContractError), runs the integrity checks' untimed call, warms up
// untimed, samples per the schedule and cache policy and iteration rule, verifies, and
// summarizes. Device failures throw DeviceError, and so does throttle policy fail when a sample
// may have run throttled. IntegrityError: the contract cannot time this call truthfully (its
// work escapes the measured stream, it launches no device work, a graph misses its work); an
// output that is wrong after timing is not an exception: Result::integrity says so.
Result measure(Backend& backend, const Callable& call, const Contract& contract,
               const MeasureOptions& options = {});

// Input copies needed so that cycling through them defeats the last-level cache:
// max(2, ceil(2 * llc_bytes / working_set_bytes)).
std::size_t rotation_copies_needed(std::uint64_t working_set_bytes, std::uint64_t llc_bytes);

}  // namespace caliber
