// Files written so that a crash, a kill or a full disk never leaves a partial file behind.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace caliber {

// Writes the content produced by `write` to a temporary file beside `path`, fsyncs it and renames
// it over `path`. Throws Error when any step fails; the old file, if any, is left intact. `path`
// must be a new path or a regular file: a device node, FIFO, directory or symbolic link there is
// refused, never replaced.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// One file of a multi-file output.
struct PendingFile {
  std::string path;
  std::string content;
};

// All or nothing: every file is written to its temporary and fsynced before any is renamed into
// place, so a failure (a full disk) leaves every old file as it was and no new one. The renames
// come last and need no space. The same rules for `path` as write_file_atomically.
void write_files_atomically(const std::vector<PendingFile>& files);

// The same all-or-nothing output, written as streams: what is written through open(path) goes to
// that file's temporary as it is produced (an output of any size, in bounded memory); commit()
// fsyncs every temporary, then renames each into place. Destroyed without a commit (an
// exception, bad input found halfway), every temporary is removed and no old file is touched.
// The same rules for each path as write_file_atomically, checked by open().
class AtomicFiles {
 public:
  AtomicFiles();
  ~AtomicFiles();
  AtomicFiles(const AtomicFiles&) = delete;
  AtomicFiles& operator=(const AtomicFiles&) = delete;
  // The stream into `path`'s temporary: valid until commit() or destruction.
  std::ostream& open(const std::string& path);
  // Throws Error, removing every temporary, when a write, an fsync or a rename failed.
  void commit();

 private:
  struct Pending;
  std::vector<std::unique_ptr<Pending>> files_;
};

// Replaces `path` by `content` through a temporary swapped in by rename, like
// write_file_atomically, but without fsync: a reader (another process, after this one was killed)
// finds the old content or the new, whole; only a crash of the machine itself may lose the new
// content. For small files rewritten many times a second whose loss with the machine costs
// nothing: tens of microseconds, where an fsync costs about a millisecond on the disks measured.
// The same rules for `path` as write_file_atomically.
void replace_file_unsynced(const std::string& path, const std::string& content);

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
// unwritable directory, `path` is a directory or another file that is not a regular file).
// Creates nothing.
void require_writable_file(const std::string& path, const std::string& option);

// Throws UsageError naming `option` when `directory` cannot take new files: it exists and is not
// a directory, is not writable, or does not exist and its nearest existing parent is not
// writable. Creates nothing.
void require_writable_directory(const std::string& directory, const std::string& option);

}  // namespace caliber
