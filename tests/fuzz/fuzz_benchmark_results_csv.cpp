// libFuzzer target: caliber run's benchmark_results.csv, through both of its readers.
#include "results/benchmark_results.h"
#include "compare/importers.h"
#include "fuzz_input.h"
#include "io/benchmark_results_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    caliber::parse_benchmark_results_csv(text, caliber::fuzz::kFuzzFile);
  });
  return caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    caliber::compare::import_benchmark_results_csv(text, caliber::fuzz::kFuzzFile);
  });
}
