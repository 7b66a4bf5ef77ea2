#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

// What a file is, in the words of an error message.
const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string size_limit_text(std::uint64_t limit) {
  return limit % (1ull << 30) == 0 ? fmt::format("{} GiB", limit >> 30) : fmt::format("{} MiB", limit >> 20);
}

// Opens `file` for reading without blocking (O_NONBLOCK: opening a FIFO with no writer returns
// at once) and checks it is a regular file within `limit`. Returns the descriptor, or -1 with
// *problem set.
int open_input(const std::string& file, std::uint64_t limit, std::string* problem, std::uint64_t* size) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    *problem = errno == ENOENT ? "does not exist" : fmt::format("cannot be opened: {}", std::strerror(errno));
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *problem = fmt::format("cannot be read: {}", std::strerror(errno));
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    const char* what = file_type_name(st.st_mode);
    *problem = S_ISDIR(st.st_mode) ? "is a directory" : fmt::format("is {}: only regular files are read", what);
    ::close(fd);
    return -1;
  }
  if (static_cast<std::uint64_t>(st.st_size) > limit) {
    *problem = fmt::format("is {} bytes, more than the {} caliber reads from one input file",
                           static_cast<std::uint64_t>(st.st_size), size_limit_text(limit));
    ::close(fd);
    return -1;
  }
  *size = static_cast<std::uint64_t>(st.st_size);
  return fd;
}

}  // namespace

std::optional<std::string> input_file_problem(const std::string& file, std::uint64_t limit) {
  std::string problem;
  std::uint64_t size = 0;
  const int fd = open_input(file, limit, &problem, &size);
  if (fd < 0) return problem;
  ::close(fd);
  return std::nullopt;
}

std::string read_input_bytes(const std::string& file, std::uint64_t limit) {
  std::string problem;
  std::uint64_t size = 0;
  const int fd = open_input(file, limit, &problem, &size);
  if (fd < 0) throw InputError(file, 0, "", problem);
  std::string out;
  // One byte more than the size: the read that finds the end needs no reallocation (a copy of
  // the whole file) to have somewhere to read into.
  out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(limit + 1, size + 1)));
  std::size_t done = 0;
  // Read until end of file: a file that grows while it is read is read to its end, within limit.
  while (true) {
    if (done == out.size()) {
      if (out.size() >= limit + 1) break;
      out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(limit + 1, out.size() + 65536)));
    }
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw InputError(file, 0, "", fmt::format("read error: {}", why));
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done > limit) {
    throw InputError(file, 0, "", fmt::format("grew past the {} caliber reads from one input file while it was read",
                                              size_limit_text(limit)));
  }
  out.resize(done);
  return out;
}

namespace {

// A line's text as require_text_content would check it, its errors on its own line number.
void require_text_line(std::string_view line, long number, const std::string& file) {
  if (const auto at = first_invalid_text_byte(line)) {
    throw InputError(file, number, "",
                     line[*at] == '\0' ? "NUL byte: not a text file"
                                       : fmt::format("byte {} of the line is not valid UTF-8 (caliber reads UTF-8 text)",
                                                     *at));
  }
  if (line.starts_with("\xEF\xBB\xBF")) {
    throw InputError(file, number, "", "a UTF-8 byte order mark (EF BB BF) starts this line; save the file without it");
  }
}

// Appends a piece of line `number` to what was read of it, within kMaxLineBytes.
void append_line_part(std::string& pending, std::string_view part, long number, const std::string& file) {
  if (pending.size() + part.size() > kMaxLineBytes) {
    throw InputError(file, number, "", fmt::format("a line longer than {} MiB: caliber reads at most that much of "
                                                   "one line",
                                                   kMaxLineBytes >> 20));
  }
  pending.append(part);
}

}  // namespace

void for_each_text_line(const std::string& file,
                        const std::function<void(std::string_view line, long number, bool terminated)>& line) {
  std::string problem;
  std::uint64_t size = 0;
  const int fd = open_input(file, kMaxStreamedInputBytes, &problem, &size);
  if (fd < 0) throw InputError(file, 0, "", problem);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::string pending;  // the current line's bytes read so far
  std::vector<char> buffer(1u << 20);
  long number = 0;
  std::uint64_t total = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(file, 0, "", fmt::format("read error: {}", std::strerror(errno)));
    if (n == 0) break;
    total += static_cast<std::uint64_t>(n);
    if (total > kMaxStreamedInputBytes) {
      throw InputError(file, number, "", fmt::format("grew past the {} caliber reads from one input file while it "
                                                     "was read",
                                                     size_limit_text(kMaxStreamedInputBytes)));
    }
    std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
    for (std::size_t nl = chunk.find('\n'); nl != std::string_view::npos; nl = chunk.find('\n')) {
      append_line_part(pending, chunk.substr(0, nl), number + 1, file);
      chunk.remove_prefix(nl + 1);
      ++number;
      require_text_line(pending, number, file);
      line(pending, number, true);
      pending.clear();
    }
    append_line_part(pending, chunk, number + 1, file);
  }
  if (!pending.empty()) {
    ++number;
    require_text_line(pending, number, file);
    line(pending, number, false);
  }
}

std::string read_input_prefix(const std::string& file, std::size_t max) {
  std::string problem;
  std::uint64_t size = 0;
  const int fd = open_input(file, kMaxStreamedInputBytes, &problem, &size);
  if (fd < 0) throw InputError(file, 0, "", problem);
  std::string out(std::min<std::uint64_t>(max, size), '\0');
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

long line_of_offset(std::string_view text, std::size_t offset) {
  const std::size_t end = std::min(offset, text.size());
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

std::optional<std::size_t> first_invalid_text_byte(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c == 0) return i;
    if (c < 0x80) {
      ++i;
      continue;
    }
    // Lead byte: the sequence length and the smallest code point it may encode (no overlong
    // forms), per RFC 3629.
    std::size_t len = 0;
    std::uint32_t cp = 0, min = 0;
    if (c >= 0xC2 && c <= 0xDF) len = 2, cp = c & 0x1Fu, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, cp = c & 0x0Fu, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07u, min = 0x10000;
    else return i;
    if (i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0u) != 0x80u) return i;
      cp = (cp << 6) | (s[i + k] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::nullopt;
}

void require_text_content(std::string_view text, const std::string& file) {
  if (const auto at = first_invalid_text_byte(text)) {
    throw InputError(file, line_of_offset(text, *at), "",
                     text[*at] == '\0' ? "NUL byte: not a text file"
                                       : fmt::format("byte {} is not valid UTF-8 (caliber reads UTF-8 text)", *at));
  }
  // A byte order mark where a line starts: parsers skip it at a document's start (JSON lines: at
  // every line's), so two files that differ by it would read alike. Caliber's text has none.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  for (std::size_t at = text.find(kBom); at != std::string_view::npos; at = text.find(kBom, at + 1)) {
    if (at == 0 || text[at - 1] == '\n') {
      throw InputError(file, line_of_offset(text, at), "",
                       "a UTF-8 byte order mark (EF BB BF) starts this line; save the file without it");
    }
  }
}

std::string read_text_file(const std::string& file) {
  std::string text = read_input_bytes(file, kMaxTextInputBytes);
  require_text_content(text, file);
  return text;
}

}  // namespace caliber
