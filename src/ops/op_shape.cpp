#include "ops/op_shape.h"

#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/json_fields.h"
#include "core/number_text.h"
#include "ops/described_op.h"

namespace caliber::ops {
namespace {

std::vector<std::string> keys_of(OpType op) {
  switch (op) {
    case OpType::rmsnorm:
    case OpType::layernorm: return {"eps", "m", "n"};
    case OpType::softmax: return {"m", "n"};
    case OpType::gemm: return {"k", "m", "n"};
    case OpType::described: break;  // its description lists them
  }
  return {};
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

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

std::string OpShape::op_name() const {
  return described ? described->description().name : std::string(to_string(op));
}

std::string OpShape::describe() const {
  if (described) {
    std::string out;
    for (const OpArgument& a : described->description().args) {
      out += fmt::format("{}{}={:g}", out.empty() ? "" : " ", a.name, values.at(a.name));
    }
    return out;
  }
  std::string out = fmt::format("m={} n={}", m, n);
  if (op == OpType::gemm) out += fmt::format(" k={}", k);
  if (op == OpType::rmsnorm || op == OpType::layernorm) out += fmt::format(" eps={:g}", eps);
  return out;
}

OpShape parse_op_shape(OpType op, DType dtype, const std::string& layout, const nlohmann::json& args,
                       const std::string& file, long line, const std::string& field) {
  JsonFields f(args, file, line, field);
  const std::vector<std::string> keys = keys_of(op);
  for (const auto& [key, value] : args.items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      f.fail(key, fmt::format("unknown argument of op {} (expected {})", to_string(op), join(keys)));
    }
  }
  if (layout != kRowMajor) {
    throw InputError(file, line, "layout",
                     fmt::format("unknown layout '{}' (expected {})", layout, kRowMajor));
  }
  OpShape s;
  s.op = op;
  s.dtype = dtype;
  s.layout = layout;
  auto dim = [&](const std::string& key) {
    const std::int64_t v = f.integer(key);
    if (v < 1 || v > kMaxDim) f.fail(key, fmt::format("must be in [1, {}] (got {})", kMaxDim, v));
    return v;
  };
  s.m = dim("m");
  s.n = dim("n");
  if (op == OpType::gemm) s.k = dim("k");
  if (op == OpType::rmsnorm || op == OpType::layernorm) {
    s.eps = f.number("eps");
    if (!(s.eps > 0 && s.eps < 1)) f.fail("eps", fmt::format("must be in (0, 1) (got {})", s.eps));
  }
  auto check_elements = [&](std::int64_t a, std::int64_t b, const char* what) {
    if (a > kMaxElements / b) {
      throw InputError(file, line, field,
                       fmt::format("{} has more than 2^40 elements ({} x {})", what, a, b));
    }
  };
  if (op == OpType::gemm) {
    check_elements(s.m, s.k, "A");
    check_elements(s.k, s.n, "B");
    check_elements(s.m, s.n, "C");
  } else {
    check_elements(s.m, s.n, "x");
  }
  return s;
}

nlohmann::json args_to_json(const OpShape& s) {
  nlohmann::json j = nlohmann::json::object();
  if (s.described) {
    for (const OpArgument& a : s.described->description().args) {
      const double v = s.values.at(a.name);
      if (a.integer) {
        j[a.name] = static_cast<std::int64_t>(v);
      } else {
        j[a.name] = v;
      }
    }
    return j;
  }
  j["m"] = s.m;
  j["n"] = s.n;
  if (s.op == OpType::gemm) j["k"] = s.k;
  if (s.op == OpType::rmsnorm || s.op == OpType::layernorm) j["eps"] = s.eps;
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

nlohmann::json parse_args_text(OpType op, const std::string& text, const std::string& option) {
  nlohmann::json j = parse_key_values(text, option, [](const std::string& key) { return key == "eps"; });
  if ((op == OpType::rmsnorm || op == OpType::layernorm) && !j.contains("eps")) j["eps"] = 1e-6;
  // Checks keys and ranges with the ledger's own rules.
  try {
    parse_op_shape(op, DType::fp32, std::string(kRowMajor), j, option, 0, "args");
  } catch (const InputError& e) {
    throw UsageError(fmt::format("{} '{}': {}", option, text, e.what()));
  }
  return j;
}

}  // namespace caliber::ops
