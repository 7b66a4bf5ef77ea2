#include "core/json_line_index.h"

#include <cstddef>
#include <iterator>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_fields.h"

namespace caliber {
namespace {

// A char iterator that publishes how far it has been advanced: the lexer reads one character at
// a time, so after each SAX event `*read_to` is just past the token that produced it (plus, for a
// number, one character of look-ahead).
struct TrackingIterator {
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* at = nullptr;
  const char** read_to = nullptr;

  reference operator*() const { return *at; }
  TrackingIterator& operator++() {
    ++at;
    *read_to = at;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const TrackingIterator& o) const { return at == o.at; }
  bool operator!=(const TrackingIterator& o) const { return at != o.at; }
};

}  // namespace

class JsonLineIndexBuilder {
 public:
  using json = nlohmann::json;

  JsonLineIndexBuilder(JsonLineIndex& index, const std::string& text) : index_(index), text_(text) {}

  void run() {
    const char* begin = text_.data();
    read_to_ = begin;
    TrackingIterator first{begin, &read_to_};
    TrackingIterator last{begin + text_.size(), &read_to_};
    json::sax_parse(first, last, this, nlohmann::detail::input_format_t::json, /*strict=*/false);
  }

  // SAX interface.
  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t&) { return value(); }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(true); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    f.key = k;
    const std::string path = f.path.empty() ? k : f.path + "." + k;
    const long line = current_line();
    if (!f.keys.insert(k).second) {
      if (!index_.first_duplicate_) index_.first_duplicate_ = std::make_pair(path, line);
    } else {
      index_.lines_.emplace(path, line);  // the member's line is the line of its key
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;  // index what was read; the caller reports the syntax error itself
  }

 private:
  struct Frame {
    bool is_array;
    std::size_t next_index;
    std::string path;
    std::string key;
    std::set<std::string> keys;
  };

  // The path of the value that starts now; advances the enclosing array's index.
  std::string element_path() {
    if (frames_.empty()) return "";
    Frame& f = frames_.back();
    if (f.is_array) return f.path + "[" + std::to_string(f.next_index++) + "]";
    return f.path.empty() ? f.key : f.path + "." + f.key;
  }
  bool value() {
    record(element_path());
    return true;
  }
  bool open(bool is_array) {
    const std::string path = element_path();
    record(path);
    frames_.push_back(Frame{is_array, 0, path, {}, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }
  void record(const std::string& path) {
    if (!path.empty()) index_.lines_.emplace(path, current_line());  // keeps a key's line
  }
  // Line of the last character of the token just read (look-ahead whitespace skipped back).
  long current_line() const {
    std::size_t end = static_cast<std::size_t>(read_to_ - text_.data());
    while (end > 0 && (text_[end - 1] == ' ' || text_[end - 1] == '\n' || text_[end - 1] == '\r' ||
                       text_[end - 1] == '\t' || text_[end - 1] == ',')) {
      --end;
    }
    return line_of_offset(text_, end > 0 ? end - 1 : 0);
  }

  JsonLineIndex& index_;
  const std::string& text_;
  const char* read_to_ = nullptr;
  std::vector<Frame> frames_;
};

JsonLineIndex::JsonLineIndex(const std::string& text) { JsonLineIndexBuilder(*this, text).run(); }

long JsonLineIndex::line_of(const std::string& field) const {
  std::string f = field;
  while (!f.empty()) {
    if (auto it = lines_.find(f); it != lines_.end()) return it->second;
    // Strip the last component: ".key" or "[i]".
    const std::size_t cut = f.find_last_of(".[");
    if (cut == std::string::npos) break;
    f.resize(cut);
  }
  return 0;
}

}  // namespace caliber
