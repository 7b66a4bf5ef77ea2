// One measurement's result: the number, its distribution, and the contract that produced it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "caliber/contract.h"
#include "caliber/device.h"
#include "caliber/integrity.h"
#include "caliber/params.h"
#include "caliber/statistics.h"
#include "caliber/telemetry.h"

namespace caliber {

// Which instrument was asked for, which one measured (Result::contract.instrument), and why.
struct InstrumentChoice {
  std::string requested;         // "auto" or an instrument name, as given
  std::string reason;            // why the contract's instrument was used
  bool kernel_tracing = false;   // CUPTI activity tracing was on while measuring (always for cupti)
  friend bool operator==(const InstrumentChoice&, const InstrumentChoice&) = default;
};

// One kernel, copy or fill of the measured call, over all timed samples (instrument cupti).
struct KernelStat {
  std::string name;               // demangled kernel name; "[memcpy DtoD]", "[memset]"
  std::int64_t launches = 0;      // over all timed samples
  double total_us = 0;            // sum of durations, microseconds
  double mean_us = 0;             // total_us / launches
  std::uint64_t max_blocks = 0;   // largest grid in blocks (kernels); 0 for copies and fills
  friend bool operator==(const KernelStat&, const KernelStat&) = default;
};

// Instrument cupti only: the same call measured with tracing off (events, same cache policy, each
// call alone or the same graph replays), and how far CUPTI's number is from it (docs/cupti.md,
// "Perturbation").
struct InstrumentPerturbation {
  bool measured = false;
  std::string reason;            // why not measured, or how the value was chosen
  double cupti_median_us = 0;    // the CUPTI measurement's median
  double event_median_us = 0;    // the events measurement's median
  double delta_us = 0;           // cupti - event, microseconds
  double delta_pct = 0;          // 100 x delta / event
  bool significant = false;      // the two medians' 95% intervals do not overlap
  bool applied = false;          // the result's value is the events' (its contract says cupti_value event)
  friend bool operator==(const InstrumentPerturbation&, const InstrumentPerturbation&) = default;
};

struct Result {
  std::string name;               // what was measured: a built-in kernel, an op, a user label
  Params params;                  // e.g. {"size_bytes": 1073741824}
  DeviceInfo device;
  Contract contract;

  double value_us = 0;            // the contract's statistic over the samples, microseconds
  Summary summary;
  bool stable = false;            // p90 / p10 <= 1.2 and not too many throttle-flagged samples
  // The distribution-free 95% confidence interval of the median (binomial order statistics,
  // docs/iteration-rule.md); nullopt below 6 samples, where no such interval exists.
  std::optional<Interval> median_ci95_us;
  // "fixed count" | "target precision reached" | "max time reached" | "precision not established"
  std::string stop_reason;
  double wall_time_ms = 0;        // host wall time of warmup + sampling, milliseconds
  std::uint64_t timed_calls = 0;  // calls inside timed windows
  std::uint64_t flush_bytes = 0;  // bytes overwritten before each call (cache=cold), else 0
  std::uint64_t rotation_copies = 0;  // input copies cycled through (cache=rotate), else 0
  std::vector<std::string> notes;     // what the number means when it is easy to misread
  std::vector<std::string> warnings;  // reasons to distrust it
  // What happened, as names a program can select on (caliber/result_flags.h): why the result is
  // not stable, and the power or thermal throttle reasons seen while the samples ran.
  std::vector<std::string> flags;
  std::vector<double> samples_us;     // raw samples, when asked for

  InstrumentChoice instrument;        // requested vs used instrument, and why
  // instrument cupti: what the measured call ran (flush and caliber's own work excluded), and
  // how many samples ran a different set of kernels than the first one.
  std::vector<KernelStat> kernels;
  std::int64_t kernel_set_changes = 0;
  TelemetrySummary telemetry;                    // clocks, temperature, power, throttling
  std::vector<TelemetrySample> telemetry_samples;  // raw readings, when asked for

  // What was verified about this number (docs/integrity.md): the checks, their outcomes, what
  // could not be checked and why.
  Integrity integrity;
  // Instrument cupti: what tracing did to the number (absent for other instruments).
  std::optional<InstrumentPerturbation> instrument_perturbation;
};

}  // namespace caliber
