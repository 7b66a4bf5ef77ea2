// libFuzzer target: a model shapes file (caliber ledger models --models).
#include "fuzz_input.h"
#include "ledger/model_shapes.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::read_file(data, size, "fuzz-input.model_shapes.json",
                                  [](const std::string& path) { caliber::ledger::read_model_shapes(path); });
}
