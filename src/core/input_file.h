// The one reader of caliber's input files. Every parser reads its file through it, so a FIFO,
// a device node, a directory or a file too large to hold is refused the same way everywhere,
// before a byte is parsed (a FIFO would block forever, /dev/zero never ends).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace caliber {

// Text inputs (ledgers, matrices, results, thresholds, identities): 256 MiB. The largest file
// caliber writes is a results file with raw samples, ~20 bytes per sample; 256 MiB holds over
// ten million samples, and its parsed form still fits in memory many times over.
inline constexpr std::uint64_t kMaxTextInputBytes = 256ull << 20;
// Binary inputs (ELF images hashed by code fingerprints, nvbench sample files): 2 GiB.
inline constexpr std::uint64_t kMaxBinaryInputBytes = 2ull << 30;

// Why `file` cannot be read as an input: it does not exist, is a directory, is not a regular
// file, cannot be opened, or is larger than `limit` bytes. Nothing when it can. Never blocks.
std::optional<std::string> input_file_problem(const std::string& file,
                                              std::uint64_t limit = kMaxTextInputBytes);

// Files that are read line by line, a line at a time in memory (results, ledgers, histories):
// any size up to this, each line at most kMaxLineBytes. A 200,000-row campaign's results are
// about 1.4 GB; a row with a 4 MiB provider detail is one line.
inline constexpr std::uint64_t kMaxStreamedInputBytes = 64ull << 30;
inline constexpr std::size_t kMaxLineBytes = 64u << 20;

// Calls `line` for each line of a text file (without its '\n'; 1-based number; `terminated`
// false for a last line without a newline), reading it in pieces: memory holds one line, not
// the file. Each line is checked as require_text_content checks a whole text (UTF-8, no NUL, no
// byte order mark at its start). InputError (file, line) for a line longer than kMaxLineBytes;
// the file is opened as read_input_bytes opens it, up to kMaxStreamedInputBytes.
void for_each_text_line(const std::string& file,
                        const std::function<void(std::string_view line, long number, bool terminated)>& line);

// The first `max` bytes of a file (all of it when shorter), opened as read_input_bytes opens it
// (up to kMaxStreamedInputBytes): what a reader needs to recognize a format.
std::string read_input_prefix(const std::string& file, std::size_t max);

// The bytes of a regular file of at most `limit` bytes; InputError (file, no line) otherwise.
// Opened without blocking: a FIFO is refused, not waited on.
std::string read_input_bytes(const std::string& file, std::uint64_t limit);

// A text input: read_input_bytes(file, kMaxTextInputBytes), then require_text_content.
std::string read_text_file(const std::string& file);

// Text must be UTF-8 without NUL bytes: InputError naming the file and the line of the first
// offending byte. (JSON strings, CSV cells and YAML scalars all end up in messages and in JSON
// output, where invalid UTF-8 cannot be written.)
void require_text_content(std::string_view text, const std::string& file);

// Line (1-based) of a byte offset in `text`, for errors found in whole documents.
long line_of_offset(std::string_view text, std::size_t offset);

// Offset of the first byte of `text` that is NUL or not part of valid UTF-8; nothing when clean.
std::optional<std::size_t> first_invalid_text_byte(std::string_view text);

}  // namespace caliber
