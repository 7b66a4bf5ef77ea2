// libFuzzer target: a campaign's manifest (caliber batch --resume, campaign verify and reaccount
// read it from the campaign directory).
#include <filesystem>

#include "campaign/campaign_manifest.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string dir = [] {
    std::filesystem::create_directories("fuzz-input.campaign");
    return std::string("fuzz-input.campaign");
  }();
  return caliber::fuzz::read_file(data, size, dir + "/" + caliber::campaign::kManifestFileName,
                                  [](const std::string&) { caliber::campaign::read_manifest(dir); });
}
