#include "ab/ab_telemetry_trace.h"

#include <filesystem>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ab/ab_protocol.h"
#include "core/atomic_file.h"
#include "caliber/clock.h"

namespace caliber {

namespace fs = std::filesystem;

AbTelemetryTrace::AbTelemetryTrace(const AbPlan& plan) : dir_(plan.out_dir) {
  int k = 1;
  while (fs::exists(fs::path(dir_) / fmt::format("telemetry_trace_s{}.csv", k)) ||
         fs::exists(fs::path(dir_) / fmt::format("telemetry_trace_s{}.json", k))) {
    ++k;
  }
  stem_ = fmt::format("telemetry_trace_s{}", k);
  if (plan.telemetry_device < 0) {
    why_ = "off (--telemetry-device -1)";
  } else {
    reader_ = open_nvml_telemetry("", plan.telemetry_device, &why_);
  }
  if (reader_) {
    sampler_ = std::make_unique<TelemetrySampler>(*reader_, steady_clock(), plan.telemetry_period_ms);
    sampler_->start();
    origin_us_ = sampler_->origin_us();
  } else {
    origin_us_ = steady_clock().now_us();
  }
}

double AbTelemetryTrace::now_ms() const { return (steady_clock().now_us() - origin_us_) / 1000.0; }

void AbTelemetryTrace::cell(const CellSpec& c, double start_ms, double end_ms) {
  timeline_ += fmt::format("{}\t{}\t{}\t{:.1f}\t{:.1f}\n", c.op, c.round, c.side, start_ms, end_ms);
}

void AbTelemetryTrace::write() {
  if (written_) return;
  written_ = true;
  const fs::path dir(dir_);
  write_file_atomically((dir / (stem_ + ".cells.tsv")).string(), [&](std::ostream& o) {
    o << "op\tround\tside\tstart_ms\tend_ms\n" << timeline_;
  });
  if (!sampler_) {
    write_file_atomically((dir / (stem_ + ".json")).string(), [&](std::ostream& o) {
      o << nlohmann::json{{"available", false}, {"reason", why_}}.dump(2) << '\n';
    });
    return;
  }
  const std::vector<TelemetrySample> readings = sampler_->stop();
  write_file_atomically((dir / (stem_ + ".csv")).string(), [&](std::ostream& o) {
    o << "timestamp_ms,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,util_pct,throttle_reasons\n";
    for (const TelemetrySample& r : readings) {
      o << fmt::format("{:.1f},{},{},{},{:.1f},{},{}\n", r.timestamp_ms, r.sm_clock_mhz, r.mem_clock_mhz, r.temp_c,
                       r.power_w, r.util_pct, describe_throttle_reasons(r.throttle_reasons));
    }
  });
}

AbTelemetryTrace::~AbTelemetryTrace() {
  try {
    write();
  } catch (...) {
  }
}

}  // namespace caliber
