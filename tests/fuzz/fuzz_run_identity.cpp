// libFuzzer target: run identities (run_identity.json and bench sidecars), read as
// read_run_identity does.
#include "caliber/run_identity_json.h"
#include "core/json_fields.h"
#include "core/json_line_index.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::parse_text(data, size, [](const std::string& text) {
    const std::string file = caliber::fuzz::kFuzzFile;
    caliber::with_json_lines(text, file, [&] {
      return caliber::run_identity_from_json(caliber::parse_json_document(text, file), file);
    });
  });
}
