// One measurement's result: the number, its distribution, and the contract that produced it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliber/contract.h"
#include "caliber/device.h"
#include "caliber/statistics.h"

namespace caliber {

struct Result {
  std::string name;               // what was measured: a built-in kernel, an op, a user label
  nlohmann::json params = nlohmann::json::object();  // e.g. {"size_bytes": 1073741824}
  DeviceInfo device;
  Contract contract;

  double value_us = 0;            // the contract's statistic over the samples, microseconds
  Summary summary;
  bool stable = false;            // p90 / p10 <= 1.2
  Interval median_ci95_us;        // order-statistic 95% confidence interval of the median
  std::string stop_reason;        // "fixed count" | "target precision reached" | "max time reached"
  double wall_time_ms = 0;        // host wall time of warmup + sampling, milliseconds
  std::uint64_t timed_calls = 0;  // calls inside timed windows
  std::uint64_t flush_bytes = 0;  // bytes overwritten before each call (cache=cold), else 0
  std::uint64_t rotation_copies = 0;  // input copies cycled through (cache=rotate), else 0
  std::vector<std::string> notes;     // what the number means when it is easy to misread
  std::vector<std::string> warnings;  // reasons to distrust it
  std::vector<double> samples_us;     // raw samples, when asked for
};

}  // namespace caliber
