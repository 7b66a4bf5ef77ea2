#include "calibrate/calibration.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "kernels/ceiling_workloads.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#include "caliber/measure.h"
#include "measure/checked_subject.h"
#include "caliber/result_table.h"
#include "core/utc_time.h"
#include "report/report_text.h"
#include "core/unit_text.h"
#include "modules/builtins.h"

namespace caliber::calibrate {
namespace {

// Verifies the workload's output once, then measures it and turns the statistic into a rate.
Ceiling measure_ceiling(Backend& backend, CeilingWorkload w, const std::string& unit, const Contract& contract,
                        std::ostream& log) {
  Ceiling c;
  if (!w.workload) {
    c.reason = w.unavailable;
    log << fmt::format("  {}: not available ({})\n", unit == "bytes/s" ? "memory bandwidth" : "matmul", c.reason);
    return c;
  }
  bench::Workload& work = *w.workload;
  measurement::CheckedSubject checked(backend, bench::checked_subject(work));
  checked.run_untimed_check();
  if (checked.failed_before_timing()) {
    throw DeviceError(fmt::format("{}: output check failed before timing: {}", work.name,
                                  checked.untimed_integrity().first_failure()));
  }
  MeasureOptions mo;
  mo.name = work.name;
  mo.params = work.params;
  mo.working_set_bytes = work.working_set_bytes;
  Result r = checked.measure(contract, mo);
  if (r.integrity.failed()) {
    throw DeviceError(fmt::format("{}: integrity check failed, no ceiling recorded: {}", work.name,
                                  r.integrity.first_failure()));
  }
  c.available = true;
  c.unit = unit;
  c.method = w.method;
  c.work_per_call = w.work_per_call;
  c.rate_per_s = static_cast<double>(w.work_per_call) / (r.value_us * 1e-6);
  log << fmt::format("  {}: {} ({} {} us, n={}{})\n", work.name, format_rate(c.rate_per_s, unit),
                     r.contract.statistic.name(), format_us(r.value_us), r.summary.n, r.stable ? "" : ", UNSTABLE");
  r.samples_us.clear();
  c.measurement = std::move(r);
  return c;
}

}  // namespace

Contract ceiling_contract(BackendKind backend, double max_time_ms) {
  Contract c = default_contract(backend);
  c.cache = CachePolicy::warm;
  c.warmup = 3;
  c.iterations.mode = IterationRule::Mode::adaptive;
  c.iterations.max_time_ms = max_time_ms;
  c.iterations.min_time_ms = std::min(c.iterations.min_time_ms, max_time_ms);
  return c;
}

std::uint64_t minimum_copy_bytes(const DeviceInfo& device) { return 4 * device.llc_bytes; }

DeviceCeilings calibrate_device(Backend& backend, const CalibrationOptions& o, std::ostream& log) {
  const DeviceInfo& device = backend.device();
  const bool cuda = backend.kind() == BackendKind::cuda;
  std::uint64_t copy_bytes = o.copy_bytes;
  if (copy_bytes == 0) copy_bytes = cuda ? (4ull << 30) : std::max<std::uint64_t>(256ull << 20, 8 * device.llc_bytes);
  if (copy_bytes < minimum_copy_bytes(device)) {
    throw UsageError(fmt::format("--copy-size {} is below 4 x the last-level cache ({} = 4 x {}): it would measure the "
                                 "cache, not memory",
                                 format_bytes(copy_bytes), format_bytes(minimum_copy_bytes(device)),
                                 format_bytes(device.llc_bytes)));
  }
  const std::int64_t n = o.matmul_size > 0 ? o.matmul_size : (cuda ? 8192 : 1024);
  std::vector<std::string> dtypes = o.matmul_dtypes;
  if (dtypes.empty()) dtypes = cuda ? std::vector<std::string>{"bf16", "fp32"} : std::vector<std::string>{"fp32"};
  const Contract contract = ceiling_contract(backend.kind(), o.max_time_ms);
  validate(contract);

  DeviceCeilings d;
  d.device = device;
  d.device_key = device_key(device);
  d.harness_version = fmt::format("{} ({}, {})", CALIBER_VERSION, CALIBER_GIT_REVISION, CALIBER_BUILD_TYPE);
  log << fmt::format("calibrating {}\n", d.device_key);
  d.memory_bandwidth = measure_ceiling(backend, make_copy_workload(backend, copy_bytes, o.seed), "bytes/s", contract, log);
  // A copy whose working set (read + written) is a quarter of the last-level cache, warm: served
  // from the cache. On cuda it is a copy kernel under graph replay (no launch gap in the sample).
  {
    Contract cache_contract = contract;
    if (cuda) {
      cache_contract.schedule = Schedule::graph;
      cache_contract.graph_calls = 20;
    }
    d.cache_bandwidth = measure_ceiling(backend, make_cache_copy_workload(backend, device.llc_bytes / 8, o.seed),
                                        "bytes/s", cache_contract, log);
  }
  for (const auto& dt : dtypes) {
    d.matmul[dt] = measure_ceiling(backend, make_matmul_workload(backend, dt, n, o.seed), "flop/s", contract, log);
  }
  d.measured_at = utc_timestamp_now();
  return d;
}

}  // namespace caliber::calibrate
