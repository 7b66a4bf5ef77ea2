#include "compare/compare_row.h"

#include <stdexcept>

#include <fmt/format.h>

#include "caliber/result_json.h"
#include "core/contract_fields.h"
#include "core/result_flags.h"

namespace caliber::compare {

namespace {

std::size_t field_index(std::string_view field) {
  const ContractField* f = find_contract_field(field);
  if (!f) throw std::logic_error(fmt::format("'{}' is not a contract field", field));
  return static_cast<std::size_t>(f - contract_field_table().data());
}

}  // namespace

ContractFields::ContractFields() : text_(contract_field_table().size()) {}

std::string& ContractFields::operator[](std::string_view field) { return text_[field_index(field)]; }
const std::string& ContractFields::operator[](std::string_view field) const {
  return text_[field_index(field)];
}

ContractFields contract_fields(const Contract& c) {
  ContractFields f;
  for (const auto& [name, text] : contract_field_texts(c)) f[name] = text;
  return f;
}

std::vector<ContractDifference> contract_differences(const ContractFields& b, const ContractFields& c) {
  std::vector<ContractDifference> out;
  for (const ContractField& field : contract_field_table()) {
    if (b[field.name] != c[field.name] && !differ_only_in_budget(field.name, b[field.name], c[field.name])) {
      out.push_back({std::string(field.name), b[field.name], c[field.name]});
    }
  }
  return out;
}

std::string describe_differences(const std::vector<ContractDifference>& diffs) {
  std::string out;
  auto shown = [](const std::string& v) { return v.empty() ? std::string("(unrecorded)") : v; };
  for (const auto& d : diffs) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}→{}", d.field, shown(d.baseline), shown(d.current));
  }
  return out;
}

std::string_view to_string(RowStatus s) {
  switch (s) {
    case RowStatus::ok: return "ok";
    case RowStatus::failed: return "failed";
    case RowStatus::skipped: return "skipped";
    case RowStatus::oom: return "oom";
    case RowStatus::unsupported: return "unsupported";
    case RowStatus::incorrect: return "incorrect";
    case RowStatus::faster_than_physical: return "faster_than_physical";
    case RowStatus::not_configured: return "not_configured";
  }
  return "?";
}

namespace {

// Params as "k=v k2=v2" (keys sorted: nlohmann::json objects are ordered maps).
std::string params_text(const nlohmann::json& params) {
  std::string out;
  for (auto it = params.begin(); it != params.end(); ++it) {
    if (!out.empty()) out += ' ';
    out += it.key() + "=" + (it->is_string() ? it->get<std::string>() : it->dump());
  }
  return out;
}

std::string variant_text(const ContractFields& c) {
  auto shown = [](const std::string& v) { return v.empty() ? std::string("?") : v; };
  std::string v = fmt::format("{}/{}/{}", shown(c["instrument"]), shown(c["schedule"]), shown(c["cache"]));
  if (c["quantity"] == "host_dispatch") v = "host_dispatch " + v;
  return v;
}

}  // namespace

std::string CompareRow::base_key() const { return name + " " + params.dump(); }

std::string CompareRow::key() const {
  return fmt::format("{} [{}|{}|{}|{}]", base_key(), contract["quantity"], contract["instrument"],
                     contract["schedule"], contract["cache"]);
}

std::string CompareRow::label() const {
  const std::string p = params_text(params);
  return fmt::format("{}{}{} [{}]", name, p.empty() ? "" : " ", p, variant_text(contract));
}

void set_integrity(CompareRow& row, const Integrity& integrity) {
  if (integrity.checks.empty()) return;  // not recorded
  row.integrity = std::string(to_string(integrity.verdict()));
  row.integrity_detail = integrity.first_failure();
  if (row.integrity_detail.empty()) {
    for (const IntegrityCheck& c : integrity.checks) {
      if (c.outcome == CheckOutcome::not_run && c.name == integrity_check::output_after_timing) row.integrity_detail = c.detail;
    }
  }
}

CompareRow row_from_result(const Result& r, std::string origin) {
  CompareRow row;
  row.name = r.name;
  row.params = to_json(r.params);
  row.arch = r.device.arch;
  row.device_name = r.device.name;
  row.contract = contract_fields(r.contract);
  row.value_us = r.value_us;
  row.samples_us = r.samples_us;
  row.n = r.summary.n;
  row.unstable = instability_reason(r);
  row.origin = std::move(origin);
  set_integrity(row, r.integrity);
  return row;
}

}  // namespace caliber::compare
