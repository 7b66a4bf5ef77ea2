// Files written so that a crash or kill never leaves a partial file behind.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace caliber {

// Writes the content produced by `write` to a temporary file beside `path`, fsyncs it and renames
// it over `path`. Throws Error when any step fails; the old file, if any, is left intact.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Appends one line (a newline is added) and fsyncs, so a finished row survives a kill.
class LineAppender {
 public:
  explicit LineAppender(const std::string& path);
  ~LineAppender();
  LineAppender(const LineAppender&) = delete;
  LineAppender& operator=(const LineAppender&) = delete;
  void append(const std::string& line);

 private:
  std::string path_;
  int fd_ = -1;
};

// Throws UsageError naming `option` when a file cannot be created at `path` (missing or
// unwritable directory, or `path` is a directory). Creates nothing.
void require_writable_file(const std::string& path, const std::string& option);

}  // namespace caliber
