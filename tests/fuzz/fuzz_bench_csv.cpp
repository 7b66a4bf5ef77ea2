// libFuzzer target: caliber bench --csv files, as compare imports them.
#include "compare/importers.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    caliber::compare::import_caliber_csv(text, caliber::fuzz::kFuzzFile);
  });
}
