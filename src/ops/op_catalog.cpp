#include "ops/op_catalog.h"

#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::ops {
namespace {

struct Catalog {
  std::mutex mutex;
  std::vector<std::unique_ptr<DescribedOp>> ops;  // never removed: shapes point at them
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

bool is_known_op(std::string_view name) {
  for (OpType t : all_op_types()) {
    if (to_string(t) == name) return true;
  }
  return find_described_op(name) != nullptr;
}

void check_known_op(std::string_view name) {
  if (is_known_op(name)) return;
  std::string known;
  for (OpType t : all_op_types()) known += (known.empty() ? "" : "|") + std::string(to_string(t));
  {
    Catalog& c = catalog();
    std::lock_guard<std::mutex> lock(c.mutex);
    for (const auto& op : c.ops) known += "|" + op->description().name;
  }
  throw UsageError(fmt::format("unknown op '{}' (expected {}; an op of your own needs its description: a baseline "
                               "matrix's op_description or --op-description, docs/user-ops.md)",
                               name, known));
}

OpShape parse_shape(const std::string& op_type, DType dtype, const std::string& layout, const nlohmann::json& args,
                    const std::string& file, long line, const std::string& field) {
  if (const DescribedOp* d = find_described_op(op_type)) return d->parse_shape(dtype, layout, args, file, line, field);
  check_known_op(op_type);
  return parse_op_shape(parse_op_type(op_type), dtype, layout, args, file, line, field);
}

nlohmann::json parse_shape_text(const std::string& op_name, const std::string& text, const std::string& option) {
  const DescribedOp* d = find_described_op(op_name);
  if (!d) {
    check_known_op(op_name);
    return parse_args_text(parse_op_type(op_name), text, option);
  }
  const nlohmann::json j = parse_key_values(text, option, [d](const std::string& key) {
    const OpArgument* a = d->description().find_arg(key);
    return a && !a->integer;
  });
  try {
    d->parse_shape(DType::fp32, std::string(kRowMajor), j, option, 0, "args");
  } catch (const InputError& e) {
    throw UsageError(fmt::format("{} '{}': {}", option, text, e.what()));
  }
  return j;
}

const Op& op_of(const OpShape& shape) {
  if (shape.described) return *shape.described;
  return op_for(shape.op);
}

}  // namespace caliber::ops
