#include "ops/op_shape.h"

#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/json_fields.h"
#include "core/number_text.h"
#include "ops/described_op.h"

namespace caliber::ops {
namespace {

}  // namespace

std::string_view to_string(OpType op) {
  switch (op) {
    case OpType::rmsnorm: return "rmsnorm";
    case OpType::layernorm: return "layernorm";
    case OpType::softmax: return "softmax";
    case OpType::gemm: return "gemm";
    case OpType::described: return "described";
  }
  return "?";
}

const std::vector<OpType>& all_op_types() {
  static const std::vector<OpType> all = {OpType::rmsnorm, OpType::layernorm, OpType::softmax,
                                          OpType::gemm};
  return all;
}

OpType parse_op_type(std::string_view s) {
  for (OpType op : all_op_types()) {
    if (to_string(op) == s) return op;
  }
  throw UsageError(fmt::format("unknown op '{}' (expected rmsnorm|layernorm|softmax|gemm)", s));
}

const DescribedOp& OpShape::op_description() const {
  if (!described) throw std::logic_error("an OpShape made without its op (ops::parse_shape or ops::shipped_shape make them)");
  return *described;
}

std::string OpShape::op_name() const { return op_description().description().name; }

std::string OpShape::describe() const {
  std::string out;
  for (const OpArgument& a : op_description().description().args) {
    out += fmt::format("{}{}={:g}", out.empty() ? "" : " ", a.name, values.at(a.name));
  }
  return out;
}

nlohmann::json args_to_json(const OpShape& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const OpArgument& a : s.op_description().description().args) {
    const double v = s.values.at(a.name);
    if (a.integer) {
      j[a.name] = static_cast<std::int64_t>(v);
    } else {
      j[a.name] = v;
    }
  }
  return j;
}

nlohmann::json parse_key_values(const std::string& text, const std::string& option,
                                const std::function<bool(const std::string&)>& is_number) {
  nlohmann::json j = nlohmann::json::object();
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw UsageError(fmt::format("{} '{}': expected key=value items such as m=4096,n=8192", option, text));
    }
    const std::string key = item.substr(0, eq);
    const std::string value = item.substr(eq + 1);
    if (j.contains(key)) throw UsageError(fmt::format("{} '{}': '{}' given twice", option, text, key));
    if (is_number(key)) {
      const auto v = parse_decimal(value);
      if (!v) throw UsageError(fmt::format("{} '{}': {} '{}' is not a finite number", option, text, key, value));
      j[key] = *v;
    } else {
      const auto v = parse_integer(value);
      if (!v) throw UsageError(fmt::format("{} '{}': {} '{}' is not an integer", option, text, key, value));
      j[key] = *v;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return j;
}

}  // namespace caliber::ops
