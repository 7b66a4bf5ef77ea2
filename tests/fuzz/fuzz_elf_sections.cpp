// libFuzzer target: the ELF section reader behind code fingerprints (binary input: every byte
// string is allowed). A malformed image must be refused with a reason, and every section it
// returns must lie inside the image.
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/elf_sections.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view image(reinterpret_cast<const char*>(data), size);
  std::vector<caliber::ElfSection> sections;
  std::string error;
  if (!caliber::read_elf_sections(image, &sections, &error)) {
    if (error.empty()) std::abort();  // refused without a reason
    return 0;
  }
  for (const caliber::ElfSection& s : sections) {
    if (s.bytes.empty()) continue;
    const char* first = s.bytes.data();
    if (first < image.data() || first + s.bytes.size() > image.data() + image.size()) std::abort();
  }
  return 0;
}
