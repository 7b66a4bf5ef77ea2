// Model configurations (data/model_shapes.json) and the op shapes they imply for given token
// counts and tensor-parallel degrees, from the op description's `models` entries. docs/ledger.md
// documents the shipped ops' formulas.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ledger/shape_ledger.h"
#include "ops/op_shape.h"

namespace caliber::ops {
class DescribedOp;
}

namespace caliber::ledger {

struct ModelConfig {
  std::string name;
  std::string config;  // where the numbers come from
  std::string family;  // dense | mla_moe
  std::string norm;    // rmsnorm | layernorm
  double norm_eps = 0;
  std::string mlp;     // gated (SwiGLU: gate and up fused) | plain
  std::int64_t hidden_size = 0, intermediate_size = 0, num_attention_heads = 0, num_key_value_heads = 0,
               head_dim = 0, num_hidden_layers = 0, vocab_size = 0;
  // mla_moe only
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0,
               moe_intermediate_size = 0, n_routed_experts = 0, num_experts_per_tok = 0, n_shared_experts = 0,
               first_k_dense_replace = 0;
  std::string notes;
};

// Strict reader: unknown fields, missing ones, non-positive sizes are InputErrors.
std::vector<ModelConfig> read_model_shapes(const std::string& file);

// One shape of one op in one model, with what produced it.
struct DerivedShape {
  nlohmann::json args;
  std::string tensor;  // e.g. "gate_up_proj", "input_layernorm", "attention scores"
};

struct Workload {
  Stage stage = Stage::prefill;  // prefill or decode
  std::int64_t tokens = 0;       // tokens in the batch (prefill: one sequence of this length)
  std::int64_t tp = 1;           // tensor-parallel degree
  std::int64_t decode_context = 4096;  // decode: tokens already in the KV cache
};

// The shapes of `op` in one forward pass of `model` under `w`: one per entry of its description's
// `models` whose `when` matches, its args the entry's formulas (docs/user-ops.md; the shipped ops'
// in ops/*.op.yaml). When tp does not divide a dimension that tensor parallelism splits, or no
// entry applies, nothing is derived and `skipped` says why; an entry whose formulas do not make a
// shape of the op (an integer that is not whole, an extent out of range) is left out and
// `left_out` gets a line saying which and why.
std::vector<DerivedShape> derive_shapes(const ModelConfig& model, const ops::DescribedOp& op, const Workload& w,
                                        std::optional<std::string>& skipped, std::vector<std::string>& left_out);

}  // namespace caliber::ledger
