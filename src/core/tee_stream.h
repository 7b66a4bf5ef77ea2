// An ostream that writes to two others: a report printed live and kept for its file.
#pragma once

#include <ostream>
#include <streambuf>

namespace caliber {

class TeeBuffer final : public std::streambuf {
 public:
  TeeBuffer(std::streambuf* a, std::streambuf* b) : a_(a), b_(b) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    const bool ok_a = a_->sputc(ch) != traits_type::eof();
    const bool ok_b = b_->sputc(ch) != traits_type::eof();
    return ok_a && ok_b ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const std::streamsize na = a_->sputn(s, n);
    const std::streamsize nb = b_->sputn(s, n);
    return na < nb ? na : nb;
  }
  int sync() override { return (a_->pubsync() == 0 && b_->pubsync() == 0) ? 0 : -1; }

 private:
  std::streambuf* a_;
  std::streambuf* b_;
};

class TeeStream final : public std::ostream {
 public:
  TeeStream(std::ostream& a, std::ostream& b) : std::ostream(nullptr), buffer_(a.rdbuf(), b.rdbuf()) { rdbuf(&buffer_); }

 private:
  TeeBuffer buffer_;
};

}  // namespace caliber
