#include "ops/op_description.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/input_file.h"
#include "core/sha256.h"
#include "core/yaml_fields.h"
#include "ops/op_catalog.h"
#include "ops/op_shape.h"
#include "ops/row_reference.h"
#include "ops/tensor_yaml.h"

namespace caliber::ops {
namespace {

bool valid_name(const std::string& name) {
  static const std::regex re("[a-z][a-z0-9_]{0,63}");
  return std::regex_match(name, re);
}

long line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 1; }

// `what`: what the names are, for the error ("args", "the model's numbers").
ArgFormula formula(const YamlFields& f, const YAML::Node& node, const std::string& field,
                   const std::vector<std::string>& arg_names, const char* what = "args") {
  if (!node.IsScalar()) throw InputError(f.file(), line_of(node), field, fmt::format("expected a formula of the {}", what));
  try {
    return ArgFormula(node.Scalar(), arg_names);
  } catch (const std::invalid_argument& e) {
    throw InputError(f.file(), line_of(node), field, fmt::format("{} ({}: {})", e.what(), what, [&] {
                       std::string s;
                       for (const auto& a : arg_names) s += (s.empty() ? "" : ", ") + a;
                       return s.empty() ? std::string("none") : s;
                     }()));
  }
}

// `inputs_read`: the inputs, when reading the outputs (an output may name one `in_place`).
std::vector<DescribedTensor> read_tensors(const YamlFields& root, const std::string& key,
                                          const std::vector<std::string>& arg_names, std::set<std::string>& names,
                                          const std::vector<DescribedTensor>* inputs_read = nullptr) {
  const bool inputs = inputs_read == nullptr;
  const YAML::Node list = root.get(key);
  if (!list.IsSequence() || list.size() == 0) root.fail(key, "expected a non-empty list of tensors");
  std::vector<DescribedTensor> out;
  std::set<std::size_t> updated;  // inputs an output already updates in place
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("{}[{}]", key, i);
    const YamlFields t(list[i], root.file(), path);
    t.refuse_unknown(inputs ? std::vector<std::string>{"name", "shape", "dtype", "uniform", "draw"}
                            : std::vector<std::string>{"name", "shape", "dtype", "in_place", "check"});
    DescribedTensor d;
    d.name = t.str("name");
    if (!valid_name(d.name)) t.fail("name", "tensor names are lowercase letters, digits and '_', starting with a letter");
    if (!names.insert(d.name).second) t.fail("name", fmt::format("tensor '{}' is named twice", d.name));
    if (!inputs && t.has("in_place")) {
      // The output is that input, updated in place: its buffer and its shape are the input's.
      const std::string of = t.str("in_place");
      const auto it = std::find_if(inputs_read->begin(), inputs_read->end(),
                                   [&](const DescribedTensor& in) { return in.name == of; });
      if (it == inputs_read->end()) t.fail("in_place", fmt::format("'{}' is not an input of the op", of));
      const auto index = static_cast<std::size_t>(it - inputs_read->begin());
      if (!updated.insert(index).second) {
        t.fail("in_place", fmt::format("input '{}' is already updated in place by another output", of));
      }
      if (t.has("shape")) t.fail("shape", fmt::format("an in-place output has the shape of its input '{}': leave shape out", of));
      if (t.has("dtype")) t.fail("dtype", fmt::format("an in-place output has the dtype of its input '{}': leave dtype out", of));
      d.dims = it->dims;
      d.element = it->element;
      d.in_place_of = index;
      read_output_check(t, d, *inputs_read);
      out.push_back(std::move(d));
      continue;
    }
    const YAML::Node shape = t.get("shape");
    if (!shape.IsSequence() || shape.size() == 0 || shape.size() > 8) {
      t.fail("shape", "expected a list of 1 to 8 extents, each a formula of the args");
    }
    for (std::size_t k = 0; k < shape.size(); ++k) {
      d.dims.push_back(formula(t, shape[k], fmt::format("{}.shape[{}]", path, k), arg_names));
    }
    read_tensor_dtype(t, d);
    if (inputs) {
      read_input_draw(t, d, arg_names);
    } else {
      read_output_check(t, d, *inputs_read);
    }
    out.push_back(std::move(d));
  }
  return out;
}

// One argument: `NAME: integer|number`, or `NAME: {type: ..., min, max, above, below, default}`.
OpArgument read_argument(const YamlFields& args, const std::string& name) {
  OpArgument a;
  a.name = name;
  const auto kind_of = [](const YamlFields& f, const std::string& key) {
    const std::string kind = f.str(key);
    if (kind != "integer" && kind != "number") {
      f.fail(key, fmt::format("unknown argument type '{}' (expected integer|number)", kind));
    }
    return kind == "integer";
  };
  if (!args.get(name).IsMap()) {
    a.integer = kind_of(args, name);
    return a;
  }
  const YamlFields f = args.mapping(name);
  f.refuse_unknown({"type", "min", "max", "above", "below", "default"});
  a.integer = kind_of(f, "type");
  const auto bound = [&](const char* key) -> std::optional<double> {
    if (!f.has(key)) return std::nullopt;
    return finite_number(f, key);
  };
  a.min = bound("min");
  a.max = bound("max");
  a.above = bound("above");
  a.below = bound("below");
  if (a.min && a.above) f.fail("above", "give min or above, not both");
  if (a.max && a.below) f.fail("below", "give max or below, not both");
  const std::optional<double> lo = a.min ? a.min : a.above, hi = a.max ? a.max : a.below;
  if (lo && hi && (*lo > *hi || (*lo == *hi && (a.above || a.below)))) f.fail(a.max ? "max" : "below", "the range is empty");
  if (a.integer) {
    for (const char* key : {"min", "max"}) {
      if (const auto v = bound(key); v && (*v != std::floor(*v) || *v < 0 || *v > static_cast<double>(kMaxDim))) {
        f.fail(key, fmt::format("an integer argument's bound is a whole number in [0, {}]", kMaxDim));
      }
    }
  }
  if (f.has("default")) {
    a.default_value = finite_number(f, "default");
    if (!a.accepts(*a.default_value)) {
      f.fail("default", fmt::format("{} is not in the argument's range {}", *a.default_value, a.range_text()));
    }
  }
  return a;
}

// The `args` mapping of `entry`, which gives every argument of the op and nothing else (`who`
// gives them: "a probe").
YamlFields every_arg(const YamlFields& entry, const std::vector<OpArgument>& op_args, const char* who) {
  const YamlFields a = entry.mapping("args");
  for (const std::string& key : a.keys()) {
    if (std::none_of(op_args.begin(), op_args.end(), [&](const OpArgument& x) { return x.name == key; })) {
      a.fail(key, "not an argument of the op");
    }
  }
  for (const OpArgument& arg : op_args) {
    if (!a.has(arg.name)) a.fail(arg.name, fmt::format("missing: {} gives every argument of the op", who));
  }
  return a;
}

// The boundary probes: each `{args: {...}, note: "..."}` with every arg of the op, integers whole
// numbers in [0, kMaxDim], numbers finite (the extents are checked when a ledger row is made).
std::vector<OpProbe> read_probes(const YamlFields& root, const std::vector<OpArgument>& op_args) {
  const YAML::Node list = root.get("probes");
  if (!list.IsSequence() || list.size() == 0) root.fail("probes", "expected a non-empty list of {args, note}");
  std::vector<OpProbe> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YamlFields p(list[i], root.file(), fmt::format("probes[{}]", i));
    p.refuse_unknown({"args", "note"});
    OpProbe probe;
    probe.line = p.line();
    probe.note = p.str("note");
    if (probe.note.empty()) p.fail("note", "say what the probe probes");
    const YamlFields a = every_arg(p, op_args, "a probe");
    for (const OpArgument& arg : op_args) {
      const double v = finite_number(a, arg.name);
      if (!arg.accepts(v)) {
        a.fail(arg.name, fmt::format("expected {} in {}", arg.integer ? "a whole number" : "a number", arg.range_text()));
      }
      probe.args.emplace_back(arg.name, v);
    }
    out.push_back(std::move(probe));
  }
  return out;
}

// `models:` each `{tensor: TEXT, when: {KEY: VALUE, ...}, args: {ARG: FORMULA, ...}}` with every
// arg of the op, each a formula of model_shape_variables().
std::vector<ModelShapeRule> read_models(const YamlFields& root, const std::vector<OpArgument>& op_args) {
  const YAML::Node list = root.get("models");
  if (!list.IsSequence() || list.size() == 0) root.fail("models", "expected a non-empty list of {tensor, when, args}");
  std::vector<ModelShapeRule> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("models[{}]", i);
    const YamlFields r(list[i], root.file(), path);
    r.refuse_unknown({"tensor", "when", "args"});
    ModelShapeRule rule;
    rule.line = r.line();
    rule.tensor = r.str("tensor");
    if (rule.tensor.empty()) r.fail("tensor", "say which tensor of the model it is");
    if (r.has("when")) {
      const YamlFields w = r.mapping("when");
      for (const std::string& key : w.keys()) {
        const auto known = model_shape_conditions().find(key);
        if (known == model_shape_conditions().end()) {
          w.fail(key, "unknown condition (expected family, norm, mlp or stage)");
        }
        const std::string value = w.str(key);
        if (std::find(known->second.begin(), known->second.end(), value) == known->second.end()) {
          std::string values;
          for (const auto& v : known->second) values += (values.empty() ? "" : "|") + v;
          w.fail(key, fmt::format("unknown {} '{}' (expected {})", key, value, values));
        }
        rule.when[key] = value;
      }
    }
    const YamlFields a = every_arg(r, op_args, "a models entry");
    for (const OpArgument& arg : op_args) {
      rule.args.emplace_back(arg.name, formula(a, a.get(arg.name), a.field_name(arg.name), model_shape_variables(),
                                               "the model's numbers"));
    }
    out.push_back(std::move(rule));
  }
  return out;
}

// `work: {units: FORMULA, unit_name: TEXT, vector_extents: [ARG, ...]}`.
OpWork read_work(const YamlFields& root, const std::vector<OpArgument>& op_args, const std::vector<std::string>& names) {
  const YamlFields w = root.mapping("work");
  w.refuse_unknown({"units", "unit_name", "vector_extents"});
  OpWork work;
  work.units = formula(w, w.get("units"), w.field_name("units"), names);
  work.unit_name = w.str("unit_name");
  if (work.unit_name.empty()) w.fail("unit_name", "say what one unit is (\"row(s)\")");
  if (w.has("vector_extents")) {
    const YAML::Node list = w.get("vector_extents");
    if (!list.IsSequence()) w.fail("vector_extents", "expected a list of integer args");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string name = list[i].IsScalar() ? list[i].Scalar() : "";
      const auto arg = std::find_if(op_args.begin(), op_args.end(), [&](const OpArgument& a) { return a.name == name; });
      if (arg == op_args.end() || !arg->integer) {
        throw InputError(w.file(), line_of(list[i]), fmt::format("{}[{}]", w.field_name("vector_extents"), i),
                         fmt::format("'{}' is not an integer argument of the op", name));
      }
      work.vector_extents.push_back(name);
    }
  }
  return work;
}

}  // namespace

const std::vector<std::string>& model_shape_variables() {
  static const std::vector<std::string> names = {
      "hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads", "head_dim",
      "num_hidden_layers", "vocab_size", "norm_eps", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim",
      "qk_rope_head_dim", "v_head_dim", "moe_intermediate_size", "n_routed_experts", "num_experts_per_tok",
      "n_shared_experts", "first_k_dense_replace", "tokens", "tp", "decode_context", "heads", "kv_heads"};
  return names;
}

const std::map<std::string, std::vector<std::string>>& model_shape_conditions() {
  static const std::map<std::string, std::vector<std::string>> conditions = {
      {"family", {"dense", "mla_moe"}},
      {"norm", {"rmsnorm", "layernorm"}},
      {"mlp", {"gated", "plain"}},
      {"stage", {"prefill", "decode"}}};
  return conditions;
}

OpDescription parse_op_description(const std::string& text, const std::string& file, bool shipped) {
  const YAML::Node doc = parse_yaml_document(text, file);
  if (!doc.IsDefined() || doc.IsNull()) throw InputError(file, 1, "", "empty op description");
  const YamlFields root(doc, file, "");
  root.refuse_unknown({"schema_version", "op", "summary", "args", "inputs", "outputs", "flops", "bytes",
                       "tolerance", "reference", "probes", "models", "work"});
  const std::int64_t version = root.integer("schema_version");
  if (version != kOpDescriptionSchemaVersion) {
    root.fail("schema_version", fmt::format("unsupported schema version {} (this caliber reads {})", version,
                                            kOpDescriptionSchemaVersion));
  }
  OpDescription d;
  d.shipped = shipped;
  d.file = file;
  d.sha256 = sha256_hex(text);
  d.name = root.str("op");
  if (!valid_name(d.name)) root.fail("op", "op names are lowercase letters, digits and '_', starting with a letter");
  for (OpType builtin : all_op_types()) {
    if (!shipped && to_string(builtin) == d.name) {
      root.fail("op", fmt::format("'{}' is an op caliber ships (docs/ops.md); a described op needs another name", d.name));
    }
  }
  d.summary = root.opt_str("summary").value_or("");

  const YamlFields args = root.mapping("args");
  std::vector<std::string> arg_names;
  for (const std::string& name : args.keys()) {
    if (!valid_name(name)) args.fail(name, "argument names are lowercase letters, digits and '_', starting with a letter");
    d.args.push_back(read_argument(args, name));
    arg_names.push_back(name);
  }
  if (d.args.empty()) root.fail("args", "lists no argument");

  std::set<std::string> tensor_names;
  d.inputs = read_tensors(root, "inputs", arg_names, tensor_names);
  d.outputs = read_tensors(root, "outputs", arg_names, tensor_names, &d.inputs);
  d.flops = formula(root, root.get("flops"), "flops", arg_names);
  if (root.has("bytes")) {
    std::vector<std::string> names = arg_names;
    names.push_back(kDtypeBytesName);  // the element size: bytes depend on the dtype
    d.bytes = formula(root, root.get("bytes"), "bytes", names);
  }

  if (root.has("tolerance")) {
    const YamlFields tol = root.mapping("tolerance");
    for (const std::string& dt : tol.keys()) {
      ElementType element{};
      try {
        element = parse_element_type(dt);
      } catch (const UsageError& e) {
        tol.fail(dt, e.what());
      }
      if (is_integer(element)) tol.fail(dt, "integer outputs are compared exactly (check: exact), not with a tolerance");
      const YamlFields t = tol.mapping(dt);
      t.refuse_unknown({"rel_fro", "rtol", "atol"});
      Tolerance v = tolerance_for(element);  // keeps the element type's subnormal floor
      v.rel_fro = finite_number(t, "rel_fro");
      v.rtol = finite_number(t, "rtol");
      v.atol = finite_number(t, "atol");
      if (v.rel_fro < 0 || v.rtol < 0 || v.atol < 0) t.fail("rel_fro", "rel_fro, rtol and atol must be >= 0");
      d.tolerances[element] = v;
    }
  }

  const YamlFields ref = root.mapping("reference");
  ref.refuse_unknown({"entrypoint", "precision"});
  try {
    d.reference = Entrypoint::parse(ref.str("entrypoint"));
  } catch (const UsageError& e) {
    ref.fail("entrypoint", e.what());
  }
  if (d.reference.kind == Entrypoint::Kind::builtin && !(shipped && find_row_reference(d.reference.builtin))) {
    ref.fail("entrypoint", "a described op's reference is a plugin entry, path/to/lib.so:symbol (ABI v2, host or "
                           "cuda), or a Python provider, python:path/to/file.py:NAME");
  }
  const std::string precision = ref.opt_str("precision").value_or("fp64");
  if (precision == "fp64") {
    d.reference_precision = ReferencePrecision::fp64;
  } else if (precision == "fp32") {
    d.reference_precision = ReferencePrecision::fp32;
  } else if (precision == "same") {
    d.reference_precision = ReferencePrecision::same;
  } else {
    ref.fail("precision", fmt::format("unknown precision '{}' (expected fp64|fp32|same)", precision));
  }
  if (root.has("probes")) d.probes = read_probes(root, d.args);
  if (root.has("models")) d.models = read_models(root, d.args);
  if (root.has("work")) d.work = read_work(root, d.args, arg_names);
  return d;
}

OpDescription read_op_description(const std::string& file) {
  return parse_op_description(read_text_file(file), file);
}

const DescribedOp& register_op_description(const std::string& file) {
  return register_op_description(read_op_description(file));
}

}  // namespace caliber::ops
