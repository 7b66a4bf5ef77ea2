#include "ledger/model_shapes.h"

#include <set>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/json_fields.h"

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

json gemm(std::int64_t m, std::int64_t k, std::int64_t n) { return json{{"k", k}, {"m", m}, {"n", n}}; }
json rows(std::int64_t m, std::int64_t n) { return json{{"m", m}, {"n", n}}; }
json norm(std::int64_t m, std::int64_t n, double eps) { return json{{"eps", eps}, {"m", m}, {"n", n}}; }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

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

std::vector<DerivedShape> derive_shapes(const ModelConfig& c, ops::OpType op, const Workload& w,
                                        std::optional<std::string>& skipped) {
  skipped.reset();
  const std::int64_t T = w.tokens, P = w.tp;
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
  const std::int64_t heads = H / P;
  const std::int64_t kv_heads = KV >= P ? KV / P : 1;  // KV heads are replicated when tp > KV
  std::vector<DerivedShape> out;
  switch (op) {
    case ops::OpType::rmsnorm:
    case ops::OpType::layernorm:
      if (c.norm != ops::to_string(op)) {
        skipped = fmt::format("{} normalizes with {}", c.name, c.norm);
        return {};
      }
      out.push_back({norm(T, c.hidden_size, c.norm_eps), "input_layernorm, post_attention_layernorm, final norm"});
      if (c.family == "mla_moe") {
        out.push_back({norm(T, c.q_lora_rank, c.norm_eps), "q_a_layernorm"});
        out.push_back({norm(T, c.kv_lora_rank, c.norm_eps), "kv_a_layernorm"});
      }
      break;
    case ops::OpType::softmax:
      if (w.stage == Stage::decode) {
        out.push_back({rows(T, c.vocab_size), "logits (sampling over the gathered vocabulary)"});
        out.push_back({rows(heads * T, w.decode_context), "attention scores (unfused, one query per sequence)"});
      } else {
        out.push_back({rows(heads * T, T), "attention scores (unfused, one sequence, no mask)"});
      }
      break;
    case ops::OpType::gemm:
      if (c.family == "dense") {
        out.push_back({gemm(T, c.hidden_size, (heads + 2 * kv_heads) * c.head_dim), "qkv_proj"});
        out.push_back({gemm(T, heads * c.head_dim, c.hidden_size), "o_proj"});
        if (c.mlp == "gated") {
          out.push_back({gemm(T, c.hidden_size, 2 * c.intermediate_size / P), "gate_up_proj"});
        } else {
          out.push_back({gemm(T, c.hidden_size, c.intermediate_size / P), "up_proj"});
        }
        out.push_back({gemm(T, c.intermediate_size / P, c.hidden_size), "down_proj"});
      } else {
        if ((c.moe_intermediate_size * c.n_shared_experts) % P != 0) {
          skipped = fmt::format("tp={} does not divide the shared experts' width", P);
          return {};
        }
        const std::int64_t shared = c.moe_intermediate_size * c.n_shared_experts / P;
        const std::int64_t per_expert = ceil_div(T * c.num_experts_per_tok, c.n_routed_experts);
        out.push_back({gemm(T, c.hidden_size, c.q_lora_rank), "q_a_proj"});
        out.push_back({gemm(T, c.q_lora_rank, heads * (c.qk_nope_head_dim + c.qk_rope_head_dim)), "q_b_proj"});
        out.push_back({gemm(T, c.hidden_size, c.kv_lora_rank + c.qk_rope_head_dim), "kv_a_proj_with_mqa"});
        out.push_back({gemm(T, c.kv_lora_rank, heads * (c.qk_nope_head_dim + c.v_head_dim)), "kv_b_proj"});
        out.push_back({gemm(T, heads * c.v_head_dim, c.hidden_size), "o_proj"});
        out.push_back({gemm(T, c.hidden_size, 2 * c.intermediate_size / P), "dense gate_up_proj (first layers)"});
        out.push_back({gemm(T, c.intermediate_size / P, c.hidden_size), "dense down_proj (first layers)"});
        out.push_back({gemm(T, c.hidden_size, 2 * shared), "shared expert gate_up_proj"});
        out.push_back({gemm(T, shared, c.hidden_size), "shared expert down_proj"});
        out.push_back({gemm(per_expert, c.hidden_size, 2 * c.moe_intermediate_size),
                       "routed expert gate_up_proj (tokens x top-k spread evenly over the experts)"});
        out.push_back({gemm(per_expert, c.moe_intermediate_size, c.hidden_size), "routed expert down_proj"});
      }
      if (w.stage == Stage::decode) {
        out.push_back({gemm(T, c.hidden_size, ceil_div(c.vocab_size, P)), "lm_head (vocabulary split over tp)"});
      }
      break;
  }
  return out;
}

}  // namespace caliber::ledger
