// libFuzzer target: nvbench's JSON output, as compare imports it. Sample sidecars named by the
// document are looked up beside kFuzzFile, which does not exist: a named sidecar is refused.
#include "compare/importers.h"
#include "core/json_fields.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    const nlohmann::json doc = caliber::parse_json_document(text, caliber::fuzz::kFuzzFile);
    caliber::compare::import_nvbench_json(doc, text, caliber::fuzz::kFuzzFile);
  });
}
