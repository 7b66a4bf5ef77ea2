#include "ops/tensor_yaml.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::ops {
namespace {

// A number that may be written -inf, inf or nan (a mask's value).
double any_number(const YamlFields& f, const std::string& key) {
  const YAML::Node v = f.get(key);
  if (v.IsScalar()) {
    const std::string s = v.Scalar();
    if (s == "-inf" || s == "-.inf") return -std::numeric_limits<double>::infinity();
    if (s == "inf" || s == ".inf") return std::numeric_limits<double>::infinity();
    if (s == "nan" || s == ".nan") return std::numeric_limits<double>::quiet_NaN();
  }
  return finite_number(f, key);
}

// [a, b] of two finite numbers.
void pair_of(const YamlFields& f, const std::string& key, double& a, double& b, const char* what) {
  const YAML::Node u = f.get(key);
  if (!u.IsSequence() || u.size() != 2 || !YAML::convert<double>::decode(u[0], a) ||
      !YAML::convert<double>::decode(u[1], b) || !std::isfinite(a) || !std::isfinite(b)) {
    f.fail(key, fmt::format("expected {}", what));
  }
}

double fraction(const YamlFields& f, const std::string& key) {
  const double v = finite_number(f, key);
  if (v < 0 || v > 1) f.fail(key, fmt::format("a fraction in [0, 1] (got {})", v));
  return v;
}

// The largest magnitude an integer draw may reach in `e` (and 2^53: values travel as doubles).
void integer_range(ElementType e, double& lo, double& hi) {
  switch (e) {
    case ElementType::int8: lo = -128, hi = 127; return;
    case ElementType::uint8: lo = 0, hi = 255; return;
    case ElementType::boolean: lo = 0, hi = 1; return;
    case ElementType::int32: lo = -2147483648.0, hi = 2147483647.0; return;
    default: lo = -9007199254740992.0, hi = 9007199254740992.0; return;
  }
}

// `integers: [lo, hi]`, each a number or a formula of the args.
void read_integer_bounds(const YamlFields& f, DescribedTensor& d, ElementType e, const std::vector<std::string>& args) {
  const YAML::Node u = f.get("integers");
  if (!u.IsSequence() || u.size() != 2 || !u[0].IsScalar() || !u[1].IsScalar()) {
    f.fail("integers", "expected [lo, hi]: whole numbers or formulas of the args, lo <= hi");
  }
  try {
    d.integer_bounds.emplace(ArgFormula(u[0].Scalar(), args), ArgFormula(u[1].Scalar(), args));
  } catch (const std::invalid_argument& ex) {
    f.fail("integers", ex.what());
  }
  bool constant = true;  // bounds that use no arg are checked here, the others for each shape
  try {
    (void)d.integer_bounds->first.value({});
    (void)d.integer_bounds->second.value({});
  } catch (const std::invalid_argument&) {
    constant = false;
  }
  if (!constant) return;
  try {
    integer_draw_range(d, e, {}, d.draw.a, d.draw.b);
  } catch (const std::invalid_argument& ex) {
    f.fail("integers", ex.what());
  }
}

void read_base(const YamlFields& f, DescribedTensor& d, ElementType e, const std::vector<std::string>& args) {
  DrawParams& p = d.draw;
  const char* bases[] = {"uniform", "normal", "integers", "permutation", "file"};
  int given = 0;
  for (const char* b : bases) given += f.has(b) ? 1 : 0;
  if (given > 1) f.fail("uniform", "give one of uniform, normal, integers, permutation, file");
  if (f.has("uniform")) {
    pair_of(f, "uniform", p.a, p.b, "[lo, hi] with finite lo < hi");
    if (!(p.a < p.b)) f.fail("uniform", "expected [lo, hi] with finite lo < hi");
  } else if (f.has("normal")) {
    p.kind = DrawKind::normal;
    pair_of(f, "normal", p.a, p.b, "[mean, std] with std > 0");
    if (!(p.b > 0)) f.fail("normal", "expected [mean, std] with std > 0");
  } else if (f.has("integers")) {
    p.kind = DrawKind::integers;
    read_integer_bounds(f, d, e, args);
  } else if (f.has("permutation")) {
    p.kind = DrawKind::permutation;
    if (!f.boolean("permutation")) f.fail("permutation", "write permutation: true, or leave it out");
  } else if (f.has("file")) {
    p.kind = DrawKind::file;
    std::filesystem::path path(f.str("file"));
    if (path.is_relative()) path = std::filesystem::path(f.file()).parent_path() / path;
    d.file = path.lexically_normal().string();
    if (!std::filesystem::is_regular_file(d.file)) f.fail("file", fmt::format("no file {}", d.file));
  } else if (is_integer(e)) {
    p.kind = DrawKind::integers;
    p.a = 0;
    p.b = e == ElementType::boolean ? 1 : 127;
  }
}

void read_modifiers(const YamlFields& f, DrawParams& p) {
  const bool modified = f.has("ties") || f.has("mask") || f.has("special");
  if (modified && (p.kind == DrawKind::permutation || p.kind == DrawKind::file)) {
    f.fail(f.has("ties") ? "ties" : f.has("mask") ? "mask" : "special",
           "a permutation or a file's values take no ties, mask or special values");
  }
  if (f.has("ties")) {
    const YamlFields t = f.mapping("ties");
    t.refuse_unknown({"fraction", "levels"});
    p.tie_fraction = fraction(t, "fraction");
    p.tie_levels = 4;
    if (t.has("levels")) {
      const std::int64_t levels = t.integer("levels");
      if (levels < 1 || levels > 1 << 20) t.fail("levels", "expected 1 to 1048576 levels");
      p.tie_levels = static_cast<std::uint32_t>(levels);
    }
  }
  if (f.has("mask")) {
    const YamlFields m = f.mapping("mask");
    m.refuse_unknown({"fraction", "value"});
    p.mask_fraction = fraction(m, "fraction");
    p.mask_value = m.has("value") ? any_number(m, "value") : -std::numeric_limits<double>::infinity();
  }
  if (f.has("special")) p.special_fraction = fraction(f, "special");
}

}  // namespace

double finite_number(const YamlFields& f, const std::string& key) {
  const YAML::Node v = f.get(key);
  double d = 0;
  if (!v.IsScalar() || !YAML::convert<double>::decode(v, d) || !std::isfinite(d)) {
    f.fail(key, "expected a finite number");
  }
  return d;
}

void read_tensor_dtype(const YamlFields& t, DescribedTensor& d) {
  if (!t.has("dtype")) return;
  try {
    d.element = parse_element_type(t.str("dtype"));
  } catch (const UsageError& e) {
    t.fail("dtype", e.what());
  }
}

void integer_draw_range(const DescribedTensor& d, ElementType e, const std::map<std::string, double>& args,
                        double& lo, double& hi) {
  if (!d.integer_bounds) return;
  double min = 0, max = 0;
  integer_range(e, min, max);
  lo = d.integer_bounds->first.value(args);
  hi = d.integer_bounds->second.value(args);
  if (lo != std::floor(lo) || hi != std::floor(hi) || lo > hi || lo < min || hi > max) {
    throw std::invalid_argument(fmt::format("integers [{}, {}]: expected whole numbers lo <= hi within [{:.0f}, {:.0f}] ({})",
                                            lo, hi, min, max, to_string(e)));
  }
}

void read_input_draw(const YamlFields& t, DescribedTensor& d, const std::vector<std::string>& args) {
  const ElementType e = d.element.value_or(ElementType::fp32);
  if (t.has("uniform") && t.has("draw")) t.fail("draw", "give uniform or draw, not both");
  if (t.has("uniform")) {
    read_base(t, d, e, args);
    return;
  }
  if (!t.has("draw")) {
    read_base(YamlFields(YAML::Node(YAML::NodeType::Map), t.file(), t.field_name("draw")), d, e, args);
    return;
  }
  const YAML::Node node = t.get("draw");
  if (node.IsScalar() && node.Scalar() == "permutation") {
    d.draw.kind = DrawKind::permutation;
    return;
  }
  const YamlFields f = t.mapping("draw");
  f.refuse_unknown({"uniform", "normal", "integers", "permutation", "file", "ties", "mask", "special"});
  read_base(f, d, e, args);
  read_modifiers(f, d.draw);
}

void read_output_check(const YamlFields& t, DescribedTensor& d, const std::vector<DescribedTensor>& inputs) {
  const bool integer = d.element && is_integer(*d.element);
  CheckRule& c = d.check;
  c.kind = integer ? CheckRule::Kind::exact : CheckRule::Kind::tolerance;
  if (!t.has("check")) return;
  const YAML::Node node = t.get("check");
  if (node.IsScalar()) {
    const std::string kind = node.Scalar();
    if (kind == "exact") {
      c.kind = CheckRule::Kind::exact;
    } else if (kind == "tolerance" && !integer) {
      c.kind = CheckRule::Kind::tolerance;
    } else {
      t.fail("check", fmt::format("unknown check '{}' (expected exact{}, {{ulp: N}} or {{indices_into: INPUT}})", kind,
                                  integer ? "" : ", tolerance"));
    }
    return;
  }
  const YamlFields f = t.mapping("check");
  f.refuse_unknown({"ulp", "indices_into", "unordered"});
  if (f.has("ulp") == f.has("indices_into")) f.fail("ulp", "give one of ulp and indices_into");
  if (f.has("ulp")) {
    if (integer) f.fail("ulp", "an integer output is compared exactly: check: exact");
    c.kind = CheckRule::Kind::ulp;
    c.ulps = finite_number(f, "ulp");
    if (c.ulps < 0) f.fail("ulp", "expected ulp >= 0");
    return;
  }
  if (!integer) f.fail("indices_into", "an output of indices has an integer dtype (dtype: int32, int64, ...)");
  c.kind = CheckRule::Kind::indices;
  c.indices_into_name = f.str("indices_into");
  std::size_t k = 0;
  while (k < inputs.size() && inputs[k].name != c.indices_into_name) ++k;
  if (k == inputs.size()) f.fail("indices_into", fmt::format("'{}' is not an input of the op", c.indices_into_name));
  c.indices_into = k;
  c.unordered = f.has("unordered") && f.boolean("unordered");
}

}  // namespace caliber::ops
