// The A/B report: a text table per op (what people read), a TSV of every shape (what scripts
// read) and a JSON document (everything, including the per-round values).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ab/ab_aggregate.h"

namespace caliber {

// `noise_floor`: the two sides are identical, so every delta is labelled as the noise floor.
void write_ab_op_text(std::ostream& out, const OpAb& op, bool noise_floor);

const char* ab_report_tsv_header();
void write_ab_op_tsv_rows(std::ostream& out, const OpAb& op);

nlohmann::json to_json(const OpAb& op);

// "+4.12%" / "-0.50%".
std::string format_pct(double pct);

}  // namespace caliber
