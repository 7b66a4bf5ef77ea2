// A caliber run --out directory written from literal rows by the runner's own writers:
// benchmark_results.jsonl, benchmark_results.csv and, when given, run_identity.json.
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "results/benchmark_results.h"
#include "caliber/run_identity.h"
#include "support/run_cli.h"
#include "io/benchmark_results_csv.h"
#include "io/benchmark_results_json.h"

namespace caliber::testing_support {

// temp_path(name), emptied, holding the rows (and the identity, whose outputs should list both files).
inline std::string write_run_directory(const std::string& name, const std::vector<BenchmarkResultRow>& rows,
                                       const std::optional<RunIdentity>& identity = std::nullopt) {
  const std::string dir = temp_path(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream jsonl(dir + "/" + kBenchmarkResultsFileName);
  for (const auto& r : rows) jsonl << to_json(r).dump() << '\n';
  std::ofstream csv(dir + "/" + kBenchmarkResultsCsvFileName);
  write_benchmark_results_csv(csv, rows);
  if (identity) write_run_identity(dir + "/" + kRunIdentityFileName, *identity);
  return dir;
}

}  // namespace caliber::testing_support
