// One SAX walker serves the strict parser (core/json_text.h) and the line index
// (core/json_line_index.h): both need where each field is, and refuse or record the same things.
#include "core/json_text.h"

#include <cstddef>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/input_file.h"
#include "core/json_line_index.h"

namespace caliber {
namespace {

using nlohmann::json;

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

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1,
// column 5: "; the position is caliber's to give (the file's line, not the fragment's).
std::string reason_of(const nlohmann::detail::exception& e) {
  std::string what = e.what();
  if (const auto at = what.find("syntax error"); at != std::string::npos) return what.substr(at);
  if (const auto close = what.find("] "); what.rfind("[json.exception.", 0) == 0 && close != std::string::npos) {
    return what.substr(close + 2);
  }
  return what;
}

}  // namespace

// Walks the SAX events of one JSON text: tracks the field being read (for messages and the line
// index), the depth and the keys of every open object. With a DOM it builds the document, with
// an index it records every field's line; the first problem stops the walk and is kept.
class JsonWalker {
 public:
  struct Problem {
    std::size_t offset = 0;
    std::string field;
    std::string reason;
  };

  JsonWalker(std::string_view text, json* dom, JsonLineIndex* index)
      : text_(text), index_(index) {
    if (dom) dom_.emplace(*dom, /*allow_exceptions=*/false);
  }

  // True when the whole text is one valid value (and nothing refused).
  bool run() {
    read_to_ = text_.data();
    TrackingIterator first{text_.data(), &read_to_};
    TrackingIterator last{text_.data() + text_.size(), &read_to_};
    return json::sax_parse(first, last, this, nlohmann::detail::input_format_t::json, /*strict=*/true) &&
           !problem_;
  }
  const std::optional<Problem>& problem() const { return problem_; }

  // SAX interface.
  bool null() { return value() && (!dom_ || dom_->null()); }
  bool boolean(bool v) { return value() && (!dom_ || dom_->boolean(v)); }
  bool number_integer(json::number_integer_t v) { return value() && (!dom_ || dom_->number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) {
    // Beyond int64, every reader (and valijson) would see the value wrapped to a negative one.
    if (v > static_cast<json::number_unsigned_t>(std::numeric_limits<std::int64_t>::max())) {
      return refuse(fmt::format("{} is out of range (at most {})", v, std::numeric_limits<std::int64_t>::max()));
    }
    return value() && (!dom_ || dom_->number_unsigned(v));
  }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return value() && (!dom_ || dom_->number_float(v, s));
  }
  bool string(json::string_t& s) {
    if (s.find('\0') != std::string::npos) return refuse("a NUL character (\\u0000) in a string");
    return value() && (!dom_ || dom_->string(s));
  }
  bool binary(json::binary_t& b) { return value() && (!dom_ || dom_->binary(b)); }
  bool start_object(std::size_t n) { return open(false) && (!dom_ || dom_->start_object(n)); }
  bool end_object() { return close() && (!dom_ || dom_->end_object()); }
  bool start_array(std::size_t n) { return open(true) && (!dom_ || dom_->start_array(n)); }
  bool end_array() { return close() && (!dom_ || dom_->end_array()); }
  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (k.find('\0') != std::string::npos) return refuse("a NUL character (\\u0000) in a key");
    if (!f.keys.insert(k).second) return refuse("duplicate key");
    if (index_) index_->lines_.emplace(current_path(), current_line());  // a member's line: its key's
    return !dom_ || dom_->key(k);
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    if (!problem_) problem_ = Problem{position > 0 ? position - 1 : 0, pending_path(), reason_of(e)};
    return false;
  }

 private:
  struct Frame {
    bool is_array;
    std::size_t next_index = 0;  // arrays: index of the next element
    std::string key;             // objects: the member being read
    std::set<std::string> keys;  // objects: the keys seen
  };

  // Stops the walk. `started`: the value the problem is about has begun (its array index taken).
  bool refuse(std::string reason, bool started = false) {
    if (!problem_) problem_ = Problem{offset_read(), started ? current_path() : pending_path(), std::move(reason)};
    return false;
  }
  // A value starts: it takes the next index of an enclosing array.
  void start_element() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().next_index;
    if (index_) {
      const std::string path = current_path();
      if (!path.empty()) index_->lines_.emplace(path, current_line());  // keeps a key's line
    }
  }
  bool value() {
    start_element();
    return true;
  }
  bool open(bool is_array) {
    start_element();
    if (static_cast<int>(frames_.size()) >= kMaxJsonDepth) {
      return refuse(fmt::format("nested deeper than {} levels", kMaxJsonDepth), /*started=*/true);
    }
    frames_.push_back(Frame{is_array, 0, {}, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  static void append(std::string& path, const Frame& f, std::size_t index) {
    if (f.is_array) {
      path += fmt::format("[{}]", index);
    } else {
      path += (path.empty() ? "" : ".") + f.key;
    }
  }
  // The field whose value was read last (or is being read): "results[2].contract.schedule".
  std::string current_path() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.is_array && f.next_index == 0) break;
      append(path, f, f.next_index - 1);
    }
    return path;
  }
  // The field whose value is being read when an error stops the walk: for the innermost array,
  // the element after the last one that started.
  std::string pending_path() const {
    std::string path;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      const bool innermost = i + 1 == frames_.size();
      if (f.is_array && !innermost && f.next_index == 0) break;
      if (!f.is_array && innermost && f.key.empty()) break;  // no member read yet
      append(path, f, innermost && f.is_array ? f.next_index : f.next_index - 1);
    }
    return path;
  }
  std::size_t offset_read() const { return static_cast<std::size_t>(read_to_ - text_.data()); }
  // Line of the last character of the token just read (look-ahead whitespace skipped back).
  long current_line() const {
    std::size_t end = offset_read();
    while (end > 0 && (text_[end - 1] == ' ' || text_[end - 1] == '\n' || text_[end - 1] == '\r' ||
                       text_[end - 1] == '\t' || text_[end - 1] == ',')) {
      --end;
    }
    return line_of_offset(text_, end > 0 ? end - 1 : 0);
  }

  std::string_view text_;
  JsonLineIndex* index_;
  std::optional<nlohmann::detail::json_sax_dom_parser<json>> dom_;
  const char* read_to_ = nullptr;
  std::vector<Frame> frames_;
  std::optional<Problem> problem_;
};

json parse_json_text(std::string_view text, const std::string& file, long first_line) {
  json doc;
  JsonWalker walker(text, &doc, nullptr);
  if (walker.run()) return doc;
  const JsonWalker::Problem p = walker.problem().value_or(JsonWalker::Problem{text.size(), "", "malformed JSON"});
  const long line = first_line + line_of_offset(text, p.offset) - 1;
  const bool syntax = p.reason.rfind("syntax error", 0) == 0;
  throw InputError(file, line, syntax ? "" : p.field, syntax ? "malformed JSON: " + p.reason : p.reason);
}

JsonLineIndex::JsonLineIndex(const std::string& text) { JsonWalker(text, nullptr, this).run(); }

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
