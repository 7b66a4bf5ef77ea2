#include "ops/op_expression.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <muParser.h>

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

}  // namespace

ArgFormula::ArgFormula(std::string text, const std::vector<std::string>& arg_names) : text_(std::move(text)) {
  if (text_.find_first_not_of(" \t") == std::string::npos) throw std::invalid_argument("empty formula");
  std::map<std::string, double> vars;
  for (const std::string& name : arg_names) vars[name] = 1.0;
  mu::Parser p;
  try {
    set_up(p, text_, vars);
    p.Eval();  // parses: an unknown name or a syntax error throws here
  } catch (const mu::Parser::exception_type& e) {
    throw std::invalid_argument(fmt::format("formula '{}': {}", text_, e.GetMsg()));
  }
}

double ArgFormula::value(const std::map<std::string, double>& args) const {
  std::map<std::string, double> vars = args;
  mu::Parser p;
  double v = 0;
  try {
    set_up(p, text_, vars);
    v = p.Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw std::invalid_argument(fmt::format("formula '{}': {}", text_, e.GetMsg()));
  }
  if (!std::isfinite(v)) throw std::invalid_argument(fmt::format("formula '{}' is not finite ({})", text_, v));
  return v;
}

std::int64_t ArgFormula::count(const std::map<std::string, double>& args, std::int64_t lo, std::int64_t hi) const {
  const double v = value(args);
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi)) {
    throw std::invalid_argument(fmt::format("formula '{}' = {} is not an integer in [{}, {}]", text_, v, lo, hi));
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace caliber::ops
