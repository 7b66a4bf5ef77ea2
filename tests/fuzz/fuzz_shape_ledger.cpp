// libFuzzer target: the shape ledger reader (JSON Lines, caliber/shape_ledger.h).
#include "ledger/shape_ledger.h"
#include "fuzz_input.h"
#include "io/shape_ledger_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    caliber::parse_shape_ledger(text, caliber::fuzz::kFuzzFile);
  });
}
