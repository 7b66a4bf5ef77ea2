// Every op this process knows: the four shipped ops (their descriptions built in: ops/*.op.yaml,
// docs/ops.md) and the ops of your own whose descriptions were registered (docs/user-ops.md) — by
// a baseline matrix's op_description, or a command's --op-description. Ledger rows, matrices and
// results name an op by its name; this is where the name becomes an op.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops/described_op.h"

namespace caliber::ops {

// Reads the description (InputError naming file, line and field) and makes its op known to this
// process; returns it. Registering the same description again returns the op already known; a
// different description under a name already known is an InputError naming `file`.
const DescribedOp& register_op_description(const std::string& file);
const DescribedOp& register_op_description(OpDescription description);

// The described op of that name, or null.
const DescribedOp* find_described_op(std::string_view name);

// Whether `name` is a shipped op or a registered described one.
bool is_known_op(std::string_view name);

// Throws UsageError when `name` is neither, listing the shipped ops and the registered ones and
// saying how a described op becomes known.
void check_known_op(std::string_view name);

// A ledger row's op_type, dtype, layout and args as a shape of whichever op it names (InputError
// naming file, line and field for bad args; UsageError from check_known_op for an unknown op).
OpShape parse_shape(const std::string& op_type, DType dtype, const std::string& layout, const nlohmann::json& args,
                    const std::string& file, long line, const std::string& field);

// A ledger importer's --shape text ("m=4096,n=8192") as the args of the op named `op_name`,
// checked like a ledger row's (UsageError naming `option`).
nlohmann::json parse_shape_text(const std::string& op_name, const std::string& text, const std::string& option);

// The op of a shape (OpShape::op_description).
const Op& op_of(const OpShape& shape);

// The op named `name` (check_known_op's UsageError when there is none).
const DescribedOp& known_op(std::string_view name);

// A shape of a shipped op from its dimensions (those the op has; eps for the norms), parsed like
// a ledger row's (InputError on a value out of range): for code and tests that make shapes.
OpShape shipped_shape(OpType type, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k = 0, double eps = 1e-6);

}  // namespace caliber::ops
