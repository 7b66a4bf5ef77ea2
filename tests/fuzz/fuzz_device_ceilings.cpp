// libFuzzer target: the device ceilings file (caliber calibrate writes it; report --ceilings and
// the roofline read it).
#include "fuzz_input.h"
#include "io/device_ceilings_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::read_file(data, size, "fuzz-input.device_ceilings.json",
                                  [](const std::string& path) { caliber::read_device_ceilings(path); });
}
