// Literal results shared by the report tests.
#pragma once

#include "caliber/result.h"

namespace caliber::testing_support {

inline Result sample_result() {
  Result r;
  r.name = "copy";
  r.params = {{"size_bytes", 1073741824}, {"dtype", "float32"}};
  r.device.backend = BackendKind::cuda;
  r.device.index = 0;
  r.device.name = "NVIDIA H200";
  r.device.arch = "sm_90";
  r.device.uuid = "GPU-00000000-1111-2222-3333-444444444444";
  r.device.multiprocessors = 132;
  r.device.llc_bytes = 62914560;
  r.device.llc_source = "cudaDeviceProp::l2CacheSize";
  r.device.memory_bytes = 150754820096;
  r.device.sm_clock_max_mhz = 1980;
  r.device.mem_clock_max_mhz = 3201;
  r.device.driver_version = "13.0";
  r.device.runtime_version = "13.0";
  r.contract = default_contract(BackendKind::cuda);
  r.contract.iterations.mode = IterationRule::Mode::fixed;
  r.contract.iterations.count = 4;
  r.value_us = 537.25;
  r.summary = {4, 536.5, 536.8, 537.0, 537.25, 537.5, 538.0, 540.0, 537.75, 1.5, 0.0009};
  r.stable = true;
  r.median_ci95_us = std::nullopt;  // 4 samples: no 95% interval of the median exists
  r.stop_reason = "fixed count";
  r.wall_time_ms = 12.5;
  r.timed_calls = 4;
  r.flush_bytes = 125829120;
  r.notes = {};
  r.warnings = {"few samples (n = 4): quantiles are coarse"};
  r.samples_us = {536.5, 537.0, 537.5, 540.0};
  return r;
}

}  // namespace caliber::testing_support
