// libFuzzer target: compare's thresholds file.
#include "compare/thresholds.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    caliber::compare::parse_thresholds(text, caliber::fuzz::kFuzzFile);
  });
}
