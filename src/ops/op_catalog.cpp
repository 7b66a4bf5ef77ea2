#include "ops/op_catalog.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "ops/shipped_op_descriptions.h"

namespace caliber::ops {
namespace {

struct Catalog {
  std::mutex mutex;
  std::vector<std::unique_ptr<DescribedOp>> ops;  // never removed: shapes point at them

  // The shipped ops first, in OpType's order, from their built-in descriptions.
  Catalog() {
    for (OpType type : all_op_types()) {
      const std::string file = fmt::format("{}.op.yaml", to_string(type));
      const auto& shipped = shipped_op_descriptions();
      const auto it = std::find_if(shipped.begin(), shipped.end(),
                                   [&](const ShippedOpDescription& d) { return file == d.file; });
      if (it == shipped.end()) throw std::logic_error("caliber was built without ops/" + file);
      ops.push_back(std::make_unique<DescribedOp>(parse_op_description(it->text, "ops/" + file, true)));
    }
  }
};

Catalog& catalog() {
  static Catalog c;
  return c;
}

}  // namespace

const DescribedOp& register_op_description(OpDescription description) {
  Catalog& c = catalog();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (const auto& op : c.ops) {
    const OpDescription& known = op->description();
    if (known.name != description.name) continue;
    if (known.sha256 == description.sha256) return *op;
    throw InputError(description.file, 1, "op",
                     fmt::format("op '{}' is already described by {}, with other content (sha256 {} vs {})",
                                 description.name, known.file, known.sha256.substr(0, 12),
                                 description.sha256.substr(0, 12)));
  }
  c.ops.push_back(std::make_unique<DescribedOp>(std::move(description)));
  return *c.ops.back();
}

const DescribedOp* find_described_op(std::string_view name) {
  Catalog& c = catalog();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (const auto& op : c.ops) {
    if (op->description().name == name) return op.get();
  }
  return nullptr;
}

bool is_known_op(std::string_view name) { return find_described_op(name) != nullptr; }

void check_known_op(std::string_view name) {
  if (is_known_op(name)) return;
  std::string known;
  {
    Catalog& c = catalog();
    std::lock_guard<std::mutex> lock(c.mutex);
    for (const auto& op : c.ops) known += (known.empty() ? "" : "|") + op->description().name;
  }
  throw UsageError(fmt::format("unknown op '{}' (expected {}; an op of your own needs its description: a baseline "
                               "matrix's op_description or --op-description, docs/user-ops.md)",
                               name, known));
}

const DescribedOp& known_op(std::string_view name) {
  check_known_op(name);
  return *find_described_op(name);
}

OpShape parse_shape(const std::string& op_type, DType dtype, const std::string& layout, const nlohmann::json& args,
                    const std::string& file, long line, const std::string& field) {
  return known_op(op_type).parse_shape(dtype, layout, args, file, line, field);
}

nlohmann::json parse_shape_text(const std::string& op_name, const std::string& text, const std::string& option) {
  const DescribedOp* d = &known_op(op_name);
  nlohmann::json j = parse_key_values(text, option, [d](const std::string& key) {
    const OpArgument* a = d->description().find_arg(key);
    return !a || !a->integer;  // a key that is no argument is read, then refused by name below
  });
  for (const OpArgument& a : d->description().args) {  // what the text may leave out
    if (!j.contains(a.name) && a.default_value) j[a.name] = *a.default_value;
  }
  try {
    d->parse_shape(DType::fp32, std::string(kRowMajor), j, option, 0, "args");
  } catch (const InputError& e) {
    throw UsageError(fmt::format("{} '{}': {}", option, text, e.what()));
  }
  return j;
}

const Op& op_of(const OpShape& shape) { return shape.op_description(); }

const Op& op_for(OpType type) { return known_op(to_string(type)); }

OpShape shipped_shape(OpType type, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, double eps) {
  const DescribedOp& op = known_op(to_string(type));
  nlohmann::json args = nlohmann::json::object();
  for (const OpArgument& a : op.description().args) {
    if (a.name == "m") args["m"] = m;
    if (a.name == "n") args["n"] = n;
    if (a.name == "k") args["k"] = k;
    if (a.name == "eps") args["eps"] = eps;
  }
  return op.parse_shape(dtype, std::string(kRowMajor), args, "(shipped_shape)", 0, "args");
}

}  // namespace caliber::ops
