// The thresholds file: per architecture, the allowlist of gated rows, each with a relative
// threshold (%), an absolute floor (us) and a calibration note saying where the numbers came
// from. docs/gate.md documents the format; docs/examples/thresholds.json is an example.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/compare_row.h"

namespace caliber::compare {

inline constexpr int kThresholdsSchemaVersion = 1;

// A row regresses only when it is more than relative_pct % slower AND more than absolute_us
// microseconds slower.
struct PracticalThreshold {
  double relative_pct = 0;
  double absolute_us = 0;
};

// The statistical test's settings (docs/gate.md "Statistical verdict").
struct StatisticsSettings {
  double alpha = 0.05;           // two-sided significance level of the rank test
  std::int64_t min_samples = 5;  // per side; fewer -> UNKNOWN when the threshold is exceeded
};

struct GateRule {
  std::string arch;
  std::size_t index = 0;      // position in the architecture's rule list
  std::string name;           // exact name, or a glob (fnmatch: * ? [...])
  nlohmann::json params = nlohmann::json::object();  // each listed param must equal the row's
  std::map<std::string, std::string> contract;  // quantity/instrument/schedule/cache/statistic
  PracticalThreshold threshold;
  std::string calibration;
  long line = 0;              // where the rule is written in the file

  bool matches(const CompareRow& row) const;
  // "sm_90 rule 0 (copy)" for messages.
  std::string describe() const;
};

struct ArchitectureRules {
  std::string calibration;       // optional note for the whole architecture
  std::vector<GateRule> rules;   // empty: the architecture is reported, never gated
};

struct Thresholds {
  std::string file;  // empty: no thresholds file (nothing gated)
  StatisticsSettings statistics;
  // The practical threshold behind the SAME/FASTER/SLOWER verdict of rows that are not gated.
  // 10% echoes asv's default factor of 1.1.
  PracticalThreshold report_only{10.0, 0.0};
  std::map<std::string, ArchitectureRules> architectures;

  // The first rule of `arch` that matches the row, or null (not allowlisted: report-only).
  const GateRule* rule_for(const CompareRow& row, const std::string& arch) const;
};

// Parses a thresholds document. Syntax errors, unknown schema versions or keys, duplicate keys,
// negative or out-of-range values, unknown enum names: InputError naming file, line and field.
Thresholds parse_thresholds(const std::string& text, const std::string& file);
Thresholds read_thresholds(const std::string& file);

}  // namespace caliber::compare
