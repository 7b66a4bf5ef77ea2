// What every fuzz target shares: the bytes become a text input the way caliber's readers see one
// (core/input_file.h: UTF-8 without NUL, checked before any parser runs), and the refusals a
// parser is allowed to make are caught. Anything else that escapes — std::bad_alloc, an
// exception from nlohmann or yaml-cpp, std::out_of_range — reaches libFuzzer as an uncaught
// exception, which it reports as a crash: a bad input must be an InputError naming the file,
// never another failure (docs/reliability.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "caliber/errors.h"
#include "core/input_file.h"

namespace caliber::fuzz {

inline constexpr const char* kFuzzFile = "fuzz-input";

// Runs `parse` on the input as text when the text readers would accept it. A refusal must name
// the file it was given: an InputError about another file means a message lost its location.
template <class Parse>
int parse_text(const std::uint8_t* data, std::size_t size, Parse&& parse) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    require_text_content(text, kFuzzFile);
  } catch (const InputError&) {
    return 0;  // refused before parsing, as read_text_file does
  }
  try {
    parse(text);
  } catch (const InputError& e) {
    if (e.file().rfind(kFuzzFile, 0) != 0) throw;  // a refusal that does not name the input
  } catch (const UsageError&) {
  }
  return 0;
}

// The same for a reader that takes a path: the text is written to `path` (a name starting with
// kFuzzFile, so that a refusal naming it names the input) and `read` is given that path.
template <class Read>
int read_file(const std::uint8_t* data, std::size_t size, const std::string& path, Read&& read) {
  return parse_text(data, size, [&](const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    read(path);
  });
}

}  // namespace caliber::fuzz
