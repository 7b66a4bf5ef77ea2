// The telemetry of a whole A/B (docs/ab.md): one NVML sampler from the first cell to the last,
// and the cells' start and end on the same clock, so a throttle or a clock drop lines up with its
// cells. Files under the A/B's directory: telemetry_trace_s<k>.cells.tsv, and .csv (the readings)
// or .json (why there are none); k is the first session number not taken (a resumed A/B adds one).
#pragma once

#include <memory>
#include <string>

#include "ab/cell_run.h"
#include "caliber/telemetry.h"
#include "telemetry/telemetry_sampler.h"

namespace caliber {

struct AbPlan;

class AbTelemetryTrace {
 public:
  explicit AbTelemetryTrace(const AbPlan& plan);
  // Milliseconds since the trace started (the readings' clock).
  double now_ms() const;
  void cell(const CellSpec& c, double start_ms, double end_ms);
  // Writes the files once; later calls do nothing.
  void write();
  ~AbTelemetryTrace();

 private:
  std::string dir_, stem_, why_, timeline_;
  std::unique_ptr<TelemetryReader> reader_;
  std::unique_ptr<TelemetrySampler> sampler_;
  double origin_us_ = 0;
  bool written_ = false;
};

}  // namespace caliber
