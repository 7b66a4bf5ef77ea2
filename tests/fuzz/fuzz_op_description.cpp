// libFuzzer target: the op description reader (YAML and formulas, src/ops/op_description.h).
#include "fuzz_input.h"
#include "ops/op_description.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    caliber::ops::parse_op_description(text, caliber::fuzz::kFuzzFile);
  });
}
