#include "ops/op_expression.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <muParser.h>

#include "core/one_line.h"

namespace caliber::ops {
namespace {

double ceil_of(double v) { return std::ceil(v); }
double floor_of(double v) { return std::floor(v); }

// A parser over `text` whose variables are `vars` (names -> storage), with ceil() and floor()
// beside muparser's built-ins.
void set_up(mu::Parser& p, const std::string& text, std::map<std::string, double>& vars) {
  p.DefineFun("ceil", ceil_of);
  p.DefineFun("floor", floor_of);
  for (auto& [name, value] : vars) p.DefineVar(name, &value);
  p.SetExpr(text);
}

// Far above any real formula; a bound on what a description can make caliber parse and echo.
constexpr std::size_t kMaxFormulaBytes = 1024;

// Evaluates a parser set up over `vars`, refusing what is not one expression of the arguments:
// several comma-separated results ("m*n, 5" is 5), or an assignment ("(n=100000000)" changes n
// for the rest of the formula while the row keeps its own n).
double evaluate_expression(mu::Parser& p, const std::string& text, std::map<std::string, double>& vars) {
  const std::map<std::string, double> before = vars;
  const double v = p.Eval();
  if (p.GetNumResults() != 1) {
    throw std::invalid_argument(fmt::format("formula '{}': {} comma-separated results; a formula is one expression",
                                            quoted_text(text), p.GetNumResults()));
  }
  for (const auto& [name, value] : vars) {
    const double was = before.at(name);
    if (value != was && !(std::isnan(value) && std::isnan(was))) {
      throw std::invalid_argument(
          fmt::format("formula '{}' assigns to '{}'; a formula reads its arguments, never sets them", quoted_text(text),
                      name));
    }
  }
  return v;
}

}  // namespace

ArgFormula::ArgFormula(std::string text, const std::vector<std::string>& arg_names) : text_(std::move(text)) {
  if (text_.find_first_not_of(" \t") == std::string::npos) throw std::invalid_argument("empty formula");
  if (text_.size() > kMaxFormulaBytes) {
    throw std::invalid_argument(
        fmt::format("formula '{}' is longer than {} bytes", quoted_text(text_), kMaxFormulaBytes));
  }
  std::map<std::string, double> vars;
  for (const std::string& name : arg_names) vars[name] = 1.0;
  mu::Parser p;
  try {
    set_up(p, text_, vars);
    evaluate_expression(p, text_, vars);  // parses: an unknown name or a syntax error throws here
  } catch (const mu::Parser::exception_type& e) {
    throw std::invalid_argument(fmt::format("formula '{}': {}", quoted_text(text_), quoted_text(e.GetMsg())));
  }
}

double ArgFormula::value(const std::map<std::string, double>& args) const {
  std::map<std::string, double> vars = args;
  mu::Parser p;
  double v = 0;
  try {
    set_up(p, text_, vars);
    v = evaluate_expression(p, text_, vars);
  } catch (const mu::Parser::exception_type& e) {
    throw std::invalid_argument(fmt::format("formula '{}': {}", quoted_text(text_), quoted_text(e.GetMsg())));
  }
  if (!std::isfinite(v)) {
    throw std::invalid_argument(fmt::format("formula '{}' is not finite ({})", quoted_text(text_), v));
  }
  return v;
}

std::int64_t ArgFormula::count(const std::map<std::string, double>& args, std::int64_t lo, std::int64_t hi) const {
  const double v = value(args);
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi)) {
    throw std::invalid_argument(
        fmt::format("formula '{}' = {} is not an integer in [{}, {}]", quoted_text(text_), v, lo, hi));
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace caliber::ops
