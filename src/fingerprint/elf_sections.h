// The sections of an ELF image (a CUDA cubin, a host shared library or executable), read with the
// layouts of <elf.h>: code fingerprints hash the bytes of code sections only, so a rebuild that
// changes a timestamp or a string but no instruction is not "changed code".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace caliber {

struct ElfSection {
  std::string name;
  std::uint32_t type = 0;   // SHT_*
  std::uint64_t flags = 0;  // SHF_*
  std::string_view bytes;   // empty for SHT_NOBITS
  bool executable() const;  // SHF_EXECINSTR
};

// 64-bit little-endian ELF only (cubins and x86-64/aarch64 Linux objects). Returns false with
// *error set when `image` is not such an ELF or a header points outside it.
bool read_elf_sections(std::string_view image, std::vector<ElfSection>* sections, std::string* error);

inline bool looks_like_elf(std::string_view image) { return image.substr(0, 4) == std::string_view("\x7f" "ELF", 4); }

}  // namespace caliber
