// Every op this process knows: the four shipped ops (docs/ops.md) and the described ops whose
// descriptions were registered (docs/user-ops.md) — by a baseline matrix's op_description, or a
// command's --op-description. Ledger rows, matrices and results name an op by its name; this is
// where the name becomes an op.
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

// The op of a shape: its described op, or the shipped op of its type.
const Op& op_of(const OpShape& shape);

}  // namespace caliber::ops
