// Thresholds from history: for each stable series, the relative and absolute thresholds its
// observed run-to-run noise calls for (history/noise_threshold.h), written as the thresholds file
// `caliber compare` reads (docs/gate.md), with the method, the number of runs and their dates in
// each rule's `calibration` field. A series with too little history since its last change point
// is refused, and says so.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/noise_threshold.h"
#include "history/trend.h"

namespace caliber::history {

struct RefusedSeries {
  std::int64_t series = 0;
  std::string label, arch;
  std::string why;  // "7 runs since its last change point; 10 needed"
};

struct Calibration {
  nlohmann::json thresholds;  // kind caliber.thresholds, schema_version 1
  std::size_t rules = 0;
  std::vector<RefusedSeries> refused;
};

// Series are calibrated from their points after their last change point. When several series
// would give the same rule (the same arch, name, params and measurement variant under another run
// identity), the one measured last gives it. `arch` (non-empty) keeps that architecture only.
Calibration calibrate_thresholds(const Trends& trends, const History& history, const NoiseSettings& noise,
                                 const std::string& arch = "");

}  // namespace caliber::history
