#include "fingerprint/elf_sections.h"

#include <elf.h>

#include <cstring>

#include <fmt/format.h>

namespace caliber {

bool ElfSection::executable() const { return (flags & SHF_EXECINSTR) != 0; }

namespace {

// Whether [offset, offset + size) lies inside an image of `image_size` bytes (without the sum
// wrapping around, which a hostile header can make it do).
bool inside(std::uint64_t offset, std::uint64_t size, std::size_t image_size) {
  return offset <= image_size && size <= image_size - offset;
}

}  // namespace

bool read_elf_sections(std::string_view image, std::vector<ElfSection>* sections, std::string* error) {
  const auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (!looks_like_elf(image)) return fail("not an ELF image");
  if (image.size() < sizeof(Elf64_Ehdr)) return fail("truncated ELF header");
  Elf64_Ehdr eh;
  std::memcpy(&eh, image.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return fail("not a 64-bit ELF");
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) return fail("not a little-endian ELF");
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) return fail("unexpected section header size");
  const std::uint64_t table_end = eh.e_shoff + static_cast<std::uint64_t>(eh.e_shnum) * sizeof(Elf64_Shdr);
  if (eh.e_shnum == 0 || table_end > image.size() || table_end < eh.e_shoff) return fail("section table outside the image");
  std::vector<Elf64_Shdr> headers(eh.e_shnum);
  std::memcpy(headers.data(), image.data() + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
  if (eh.e_shstrndx >= eh.e_shnum) return fail("no section name table");
  const Elf64_Shdr& names = headers[eh.e_shstrndx];
  if (!inside(names.sh_offset, names.sh_size, image.size())) return fail("section name table outside the image");
  const std::string_view name_table = image.substr(names.sh_offset, names.sh_size);
  sections->clear();
  for (std::size_t i = 0; i < headers.size(); ++i) {
    const Elf64_Shdr& h = headers[i];
    ElfSection s;
    if (h.sh_name >= name_table.size()) return fail(fmt::format("section {} has a name outside the name table", i));
    const std::string_view rest = name_table.substr(h.sh_name);
    s.name = std::string(rest.substr(0, rest.find('\0')));
    s.type = h.sh_type;
    s.flags = h.sh_flags;
    if (h.sh_type != SHT_NOBITS && h.sh_size > 0) {
      if (!inside(h.sh_offset, h.sh_size, image.size())) {
        return fail(fmt::format("section {} lies outside the image", s.name));
      }
      s.bytes = image.substr(h.sh_offset, h.sh_size);
    }
    sections->push_back(std::move(s));
  }
  return true;
}

}  // namespace caliber
