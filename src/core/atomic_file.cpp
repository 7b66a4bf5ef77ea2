#include "core/atomic_file.h"

#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <set>
#include <streambuf>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

std::string errno_text() { return std::strerror(errno); }

void write_all(int fd, const std::string& data, const std::string& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("{}: write failed: {}", path, errno_text()));
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string directory_of(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}

void fsync_directory(const std::string& dir) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

// What is at `path` when it is something an output must not replace; "" when it is absent or a
// regular file.
std::string not_replaceable(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device node";
  return "not a regular file";
}

std::string temporary_path(const std::string& path) { return fmt::format("{}.tmp.{}", path, ::getpid()); }

// A new temporary file, open for writing (never through a link).
int create_temporary(const std::string& tmp) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw Error(fmt::format("{}: cannot create: {}", tmp, errno_text()));
  return fd;
}

// Writes `content` to a new temporary beside `path`, not fsynced (replace_file_unsynced); returns
// the temporary's path.
std::string write_unsynced_temporary(const std::string& path, const std::string& content) {
  const std::string tmp = temporary_path(path);
  const int fd = create_temporary(tmp);
  try {
    write_all(fd, content, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: write failed: {}", tmp, why));
  }
  return tmp;
}

}  // namespace

namespace {

// A stream buffer over a file descriptor that keeps its first write error (an ostream swallows a
// buffer's exceptions): commit() reports it.
class FdBuffer final : public std::streambuf {
 public:
  FdBuffer(int fd, std::string path) : fd_(fd), path_(std::move(path)), buffer_(1 << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  const std::string& error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    if (!error_.empty()) return false;
    try {
      write_all(fd_, std::string(pbase(), pptr()), path_);
    } catch (const Error& e) {
      error_ = e.what();
      return false;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return true;
  }
  int fd_;
  std::string path_;
  std::vector<char> buffer_;
  std::string error_;
};

}  // namespace

struct AtomicFiles::Pending {
  Pending(std::string p, std::string t, int f) : path(std::move(p)), tmp(std::move(t)), fd(f), buffer(fd, tmp),
                                                 stream(&buffer) {}
  std::string path, tmp;
  int fd;
  FdBuffer buffer;
  std::ostream stream;
};

AtomicFiles::AtomicFiles() = default;

AtomicFiles::~AtomicFiles() {
  for (const auto& f : files_) {
    if (f->fd >= 0) ::close(f->fd);
    if (!f->tmp.empty()) ::unlink(f->tmp.c_str());
  }
}

std::ostream& AtomicFiles::open(const std::string& path) {
  if (const std::string what = not_replaceable(path); !what.empty()) {
    throw Error(fmt::format("{}: is {}; caliber writes its outputs only as new or regular files", path, what));
  }
  const std::string normal = fs::path(path).lexically_normal().string();
  for (const auto& f : files_) {
    if (fs::path(f->path).lexically_normal().string() == normal) {
      throw Error(fmt::format("{}: named twice among the files of one output", path));
    }
  }
  const std::string tmp = temporary_path(path);
  files_.push_back(std::make_unique<Pending>(path, tmp, create_temporary(tmp)));
  return files_.back()->stream;
}

void AtomicFiles::commit() {
  for (const auto& f : files_) {
    f->stream.flush();
    if (!f->buffer.error().empty()) throw Error(f->buffer.error());
    if (!f->stream) throw Error(fmt::format("{}: write failed", f->tmp));
    if (::fsync(f->fd) != 0) throw Error(fmt::format("{}: fsync failed: {}", f->tmp, errno_text()));
    const int fd = std::exchange(f->fd, -1);
    if (::close(fd) != 0) throw Error(fmt::format("{}: write failed: {}", f->tmp, errno_text()));
  }
  // The renames come last and need no space.
  std::set<std::string> directories;
  for (const auto& f : files_) {
    if (::rename(f->tmp.c_str(), f->path.c_str()) != 0) {
      throw Error(fmt::format("{}: rename failed: {}", f->path, errno_text()));
    }
    f->tmp.clear();
    directories.insert(directory_of(f->path));
  }
  for (const std::string& d : directories) fsync_directory(d);
}

void write_files_atomically(const std::vector<PendingFile>& files) {
  AtomicFiles out;
  std::vector<std::ostream*> streams;
  for (const PendingFile& f : files) streams.push_back(&out.open(f.path));  // every path checked first
  for (std::size_t i = 0; i < files.size(); ++i) *streams[i] << files[i].content;
  out.commit();
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  AtomicFiles out;
  write(out.open(path));
  out.commit();
}

void replace_file_unsynced(const std::string& path, const std::string& content) {
  if (const std::string what = not_replaceable(path); !what.empty()) {
    throw Error(fmt::format("{}: is {}; caliber writes its outputs only as new or regular files", path, what));
  }
  const std::string tmp = write_unsynced_temporary(path, content);
  // Exchanged rather than renamed over: ext4 writes back the data of a file renamed over another
  // (its auto_da_alloc), which costs as much as an fsync (0.4-0.8 ms against 30 us measured).
  // The old content, now at the temporary's name, is removed; where the file system cannot
  // exchange (or nothing is there yet), a plain rename.
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    ::unlink(tmp.c_str());
    return;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: rename failed: {}", path, why));
  }
}

LineAppender::LineAppender(const std::string& path) : path_(path) {
  if (const std::string what = not_replaceable(path); !what.empty()) {
    throw Error(fmt::format("{}: is {}; caliber appends only to regular files", path, what));
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw Error(fmt::format("{}: cannot open for append: {}", path, errno_text()));
  fsync_directory(directory_of(path));
}

LineAppender::~LineAppender() {
  if (fd_ >= 0) ::close(fd_);
}

void LineAppender::append(const std::string& line) {
  // One write() per line: with O_APPEND the line lands whole or not at all.
  write_all(fd_, line + "\n", path_);
  if (::fdatasync(fd_) != 0) throw Error(fmt::format("{}: fsync failed: {}", path_, errno_text()));
}

void require_writable_file(const std::string& path, const std::string& option) {
  if (path.empty()) throw UsageError(fmt::format("{}: empty path", option));
  if (const std::string what = not_replaceable(path); !what.empty()) {
    throw UsageError(fmt::format("{} {}: is {}; outputs are written only as new or regular files", option, path, what));
  }
  std::error_code ec;
  const std::string dir = directory_of(path);
  if (!fs::is_directory(dir, ec)) {
    throw UsageError(fmt::format("{} {}: directory {} does not exist", option, path, dir));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{} {}: directory {} is not writable", option, path, dir));
  }
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{} {}: file is not writable", option, path));
  }
}

void require_writable_directory(const std::string& directory, const std::string& option) {
  if (directory.empty()) throw UsageError(fmt::format("{}: empty path", option));
  std::error_code ec;
  fs::path p(directory);
  if (fs::exists(p, ec) && !fs::is_directory(p, ec)) {
    throw UsageError(fmt::format("{} {}: exists and is not a directory", option, directory));
  }
  // The directory itself, or the nearest parent that exists (where it would be created).
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
  const std::string existing = p.empty() ? "." : p.string();
  if (!fs::is_directory(existing, ec)) {
    throw UsageError(fmt::format("{} {}: {} is not a directory", option, directory, existing));
  }
  if (::access(existing.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{} {}: {} is not writable", option, directory, existing));
  }
}

}  // namespace caliber
