// A shape-ledger row written by hand for a test: source `manual`, stage `mixed`, no model.
#pragma once

#include <nlohmann/json.hpp>

#include "ledger/importers.h"

namespace caliber::testing_support {

inline ShapeRow manual_row(ops::OpType op, DType dtype, const nlohmann::json& args) {
  ledger::RowTemplate t;
  t.op = op;
  return ledger::make_row(t, dtype, args, Stage::mixed, std::nullopt, {SourceKind::manual, "test", ""}, "");
}

}  // namespace caliber::testing_support
