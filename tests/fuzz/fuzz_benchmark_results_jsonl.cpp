// libFuzzer target: caliber run's benchmark_results.jsonl, through both of its readers (the
// runner's and report's parse_benchmark_results, and compare's importer).
#include "results/benchmark_results.h"
#include "compare/importers.h"
#include "fuzz_input.h"
#include "io/benchmark_results_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    caliber::parse_benchmark_results(text, caliber::fuzz::kFuzzFile);
  });
  return caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    caliber::compare::import_benchmark_results_jsonl(text, caliber::fuzz::kFuzzFile);
  });
}
