// libFuzzer target: the baseline matrix reader (YAML, io/baseline_matrix_yaml.h), aliases included.
#include "matrix/baseline_matrix.h"
#include "fuzz_input.h"
#include "io/baseline_matrix_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    caliber::parse_baseline_matrix(text, caliber::fuzz::kFuzzFile);
  });
}
