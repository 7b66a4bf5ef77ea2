#include "ledger/shape_axes.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::ledger {
namespace {

struct Axis {
  std::string name;
  std::vector<std::string> values;
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

Axis parse_axis(const std::string& text) {
  const std::size_t eq = text.find('=');
  Axis a;
  a.name = eq == std::string::npos ? "" : text.substr(0, eq);
  if (a.name.empty() || eq + 1 >= text.size()) {
    throw UsageError(fmt::format("--axis {}: expected NAME=V1,V2,... (e.g. --axis m=1,7,4096)", text));
  }
  a.values = split(text.substr(eq + 1), ',');
  if (std::any_of(a.values.begin(), a.values.end(), [](const std::string& v) { return v.empty(); })) {
    throw UsageError(fmt::format("--axis {}: an empty value", text));
  }
  return a;
}

// The arg names a shape text gives ("m=4,n=8" -> m, n).
std::set<std::string> arg_names(const std::string& shape) {
  std::set<std::string> names;
  for (const std::string& part : split(shape, ',')) names.insert(part.substr(0, part.find('=')));
  return names;
}

}  // namespace

std::vector<std::string> sweep_shape_texts(const std::vector<std::string>& shapes, const std::vector<std::string>& axes) {
  if (axes.empty()) return shapes;
  std::vector<Axis> parsed;
  std::set<std::string> names;
  std::size_t total = std::max<std::size_t>(shapes.size(), 1);
  for (const std::string& text : axes) {
    parsed.push_back(parse_axis(text));
    if (!names.insert(parsed.back().name).second) {
      throw UsageError(fmt::format("--axis {}: axis {} is given twice", text, parsed.back().name));
    }
    total *= parsed.back().values.size();
    if (total > kMaxSweepShapes) {
      throw UsageError(fmt::format("--axis: the sweep makes more than {} shapes", kMaxSweepShapes));
    }
  }
  std::vector<std::string> bases = shapes.empty() ? std::vector<std::string>{""} : shapes;
  for (const std::string& base : bases) {
    for (const std::string& name : arg_names(base)) {
      if (names.count(name)) throw UsageError(fmt::format("--axis {}: --shape {} gives {} already", name, base, name));
    }
  }
  std::vector<std::string> out;
  for (const std::string& base : bases) {
    std::vector<std::string> texts = {base};
    for (const Axis& a : parsed) {  // the first axis varies slowest
      std::vector<std::string> next;
      for (const std::string& t : texts) {
        for (const std::string& v : a.values) next.push_back(fmt::format("{}{}{}={}", t, t.empty() ? "" : ",", a.name, v));
      }
      texts = std::move(next);
    }
    out.insert(out.end(), texts.begin(), texts.end());
  }
  return out;
}

}  // namespace caliber::ledger
