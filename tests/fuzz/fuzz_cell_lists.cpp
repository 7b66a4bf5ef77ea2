// libFuzzer target: the cell lists caliber run reads: --rerun-cells (shape_id TAB provider) and
// --capture-denied (provider TAB reason), written by caliber batch between attempts.
#include "fuzz_input.h"
#include "runner/capture_failure.h"
#include "runner/resume_cells.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::read_file(data, size, "fuzz-input.cells.tsv", [](const std::string& path) {
    try {
      caliber::runner::read_rerun_cells(path);
    } catch (const caliber::InputError& e) {
      if (e.file() != path) throw;
    }
    caliber::runner::read_capture_denials(path);
  });
}
