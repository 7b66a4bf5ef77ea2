#include "ledger/model_shapes.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/json_fields.h"
#include "ops/described_op.h"

namespace caliber::ledger {
namespace {

using nlohmann::json;

const std::set<std::string> kCommon = {"name", "config", "family", "norm", "norm_eps", "mlp", "hidden_size",
                                       "intermediate_size", "num_attention_heads", "num_key_value_heads",
                                       "head_dim", "num_hidden_layers", "vocab_size", "notes"};
const std::set<std::string> kMla = {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                                    "v_head_dim", "moe_intermediate_size", "n_routed_experts",
                                    "num_experts_per_tok", "n_shared_experts", "first_k_dense_replace"};

std::int64_t positive(const JsonFields& f, const std::string& key) {
  const std::int64_t v = f.integer(key);
  if (v < 1) f.fail(key, fmt::format("must be >= 1 (got {})", v));
  return v;
}

}  // namespace

std::vector<ModelConfig> read_model_shapes(const std::string& file) {
  const json doc = parse_json_document(read_text_file(file), file);
  JsonFields root(doc, file, 0, "");
  const std::int64_t version = root.integer("schema_version");
  if (version != 1) root.fail("schema_version", fmt::format("unsupported schema version {} (this caliber reads 1)", version));
  if (root.str("kind") != "caliber.model_shapes") root.fail("kind", "expected 'caliber.model_shapes'");
  const json& models = root.array("models");
  std::vector<ModelConfig> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < models.size(); ++i) {
    JsonFields f(models[i], file, 0, fmt::format("models[{}]", i));
    ModelConfig m;
    m.family = f.str("family");
    if (m.family != "dense" && m.family != "mla_moe") f.fail("family", "expected dense or mla_moe");
    for (const auto& [key, value] : models[i].items()) {
      if (!kCommon.count(key) && !(m.family == "mla_moe" && kMla.count(key))) f.fail(key, "unknown field");
    }
    m.name = f.str("name");
    if (m.name.empty() || !names.insert(m.name).second) f.fail("name", "empty or duplicate model name");
    m.config = f.str("config");
    m.norm = f.str("norm");
    if (m.norm != "rmsnorm" && m.norm != "layernorm") f.fail("norm", "expected rmsnorm or layernorm");
    m.norm_eps = f.number("norm_eps");
    if (!(m.norm_eps > 0 && m.norm_eps < 1)) f.fail("norm_eps", "must be in (0, 1)");
    m.mlp = f.str("mlp");
    if (m.mlp != "gated" && m.mlp != "plain") f.fail("mlp", "expected gated or plain");
    m.hidden_size = positive(f, "hidden_size");
    m.intermediate_size = positive(f, "intermediate_size");
    m.num_attention_heads = positive(f, "num_attention_heads");
    m.num_key_value_heads = positive(f, "num_key_value_heads");
    m.num_hidden_layers = positive(f, "num_hidden_layers");
    m.vocab_size = positive(f, "vocab_size");
    m.notes = f.opt_str("notes").value_or("");
    if (m.family == "dense") {
      m.head_dim = positive(f, "head_dim");
    } else {
      m.q_lora_rank = positive(f, "q_lora_rank");
      m.kv_lora_rank = positive(f, "kv_lora_rank");
      m.qk_nope_head_dim = positive(f, "qk_nope_head_dim");
      m.qk_rope_head_dim = positive(f, "qk_rope_head_dim");
      m.v_head_dim = positive(f, "v_head_dim");
      m.moe_intermediate_size = positive(f, "moe_intermediate_size");
      m.n_routed_experts = positive(f, "n_routed_experts");
      m.num_experts_per_tok = positive(f, "num_experts_per_tok");
      m.n_shared_experts = positive(f, "n_shared_experts");
      m.first_k_dense_replace = f.integer("first_k_dense_replace");
    }
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

// The values a `models` formula reads (ops::model_shape_variables()) for one model and workload.
std::map<std::string, double> model_variables(const ModelConfig& c, const Workload& w) {
  const auto d = [](std::int64_t v) { return static_cast<double>(v); };
  const std::int64_t P = w.tp, KV = c.num_key_value_heads;
  return {{"hidden_size", d(c.hidden_size)},
          {"intermediate_size", d(c.intermediate_size)},
          {"num_attention_heads", d(c.num_attention_heads)},
          {"num_key_value_heads", d(KV)},
          {"head_dim", d(c.head_dim)},
          {"num_hidden_layers", d(c.num_hidden_layers)},
          {"vocab_size", d(c.vocab_size)},
          {"norm_eps", c.norm_eps},
          {"q_lora_rank", d(c.q_lora_rank)},
          {"kv_lora_rank", d(c.kv_lora_rank)},
          {"qk_nope_head_dim", d(c.qk_nope_head_dim)},
          {"qk_rope_head_dim", d(c.qk_rope_head_dim)},
          {"v_head_dim", d(c.v_head_dim)},
          {"moe_intermediate_size", d(c.moe_intermediate_size)},
          {"n_routed_experts", d(c.n_routed_experts)},
          {"num_experts_per_tok", d(c.num_experts_per_tok)},
          {"n_shared_experts", d(c.n_shared_experts)},
          {"first_k_dense_replace", d(c.first_k_dense_replace)},
          {"tokens", d(w.tokens)},
          {"tp", d(P)},
          {"decode_context", d(w.decode_context)},
          {"heads", d(c.num_attention_heads / P)},
          {"kv_heads", d(KV >= P ? KV / P : 1)}};  // KV heads are replicated when tp > KV
}

// Whether the model and workload are those `when` names.
bool applies(const ops::ModelShapeRule& rule, const ModelConfig& c, const Workload& w) {
  for (const auto& [key, value] : rule.when) {
    const std::string actual = key == "family" ? c.family
                               : key == "norm" ? c.norm
                               : key == "mlp"  ? c.mlp
                                               : std::string(to_string(w.stage));
    if (actual != value) return false;
  }
  return true;
}

}  // namespace

std::vector<DerivedShape> derive_shapes(const ModelConfig& c, const ops::DescribedOp& op, const Workload& w,
                                        std::optional<std::string>& skipped, std::vector<std::string>& left_out) {
  skipped.reset();
  const std::int64_t P = w.tp;
  const std::int64_t H = c.num_attention_heads, KV = c.num_key_value_heads;
  if (H % P != 0) {
    skipped = fmt::format("tp={} does not divide num_attention_heads={}", P, H);
    return {};
  }
  if (c.intermediate_size % P != 0) {
    skipped = fmt::format("tp={} does not divide intermediate_size={}", P, c.intermediate_size);
    return {};
  }
  if (c.family == "dense" && KV % P != 0 && P % KV != 0) {
    skipped = fmt::format("tp={} and num_key_value_heads={}: neither divides the other", P, KV);
    return {};
  }
  const ops::OpDescription& d = op.description();
  const std::map<std::string, double> vars = model_variables(c, w);
  std::vector<DerivedShape> out;
  bool any = false;
  for (const ops::ModelShapeRule& rule : d.models) {
    if (!applies(rule, c, w)) continue;
    any = true;
    try {
      json args = json::object();
      for (const auto& [name, formula] : rule.args) {
        if (d.find_arg(name)->integer) {
          args[name] = formula.count(vars, 0, ops::kMaxDim);
        } else {
          args[name] = formula.value(vars);
        }
      }
      op.parse_shape(DType::fp32, std::string(ops::kRowMajor), args, d.file, rule.line, "models");
      out.push_back({std::move(args), rule.tensor});
    } catch (const std::exception& e) {  // a formula that is not whole, or a shape out of range
      left_out.push_back(fmt::format("{}: {}", rule.tensor, e.what()));
    }
  }
  if (!any) {
    skipped = fmt::format("no models entry of {} applies to {} (family {}, norm {}, mlp {}, stage {})", d.file,
                          c.name, c.family, c.norm, c.mlp, to_string(w.stage));
  }
  return out;
}

}  // namespace caliber::ledger
