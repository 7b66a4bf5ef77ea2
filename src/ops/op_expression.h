// A formula of an op's arguments: a tensor extent ("m * n"), a byte or flop count
// ("5 * m * n"), as an op description writes it (docs/user-ops.md). Parsed and evaluated by
// muparser (Debian's libmuparser): + - * / ^, parentheses, comparisons and `c ? a : b`, min(),
// max(), and its other built-ins, and ceil() and floor().
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace caliber::ops {

class ArgFormula {
 public:
  ArgFormula() = default;
  // Checks that `text` parses and uses no name outside `arg_names`; throws std::invalid_argument
  // with one line saying what is wrong (the caller adds file, line and field).
  ArgFormula(std::string text, const std::vector<std::string>& arg_names);

  const std::string& text() const { return text_; }
  // The value for `args` (every name the formula uses must be there). Throws
  // std::invalid_argument when it is not finite.
  double value(const std::map<std::string, double>& args) const;
  // The value as a count: an integer in [lo, hi], else std::invalid_argument saying so.
  std::int64_t count(const std::map<std::string, double>& args, std::int64_t lo, std::int64_t hi) const;

 private:
  std::string text_;
};

}  // namespace caliber::ops
