#include "runner/reference_judge.h"

#include <fmt/format.h>

#include "ops/described_op.h"
#include "ops/rule_checks.h"

namespace caliber::runner {
namespace {

// Copies the output rows a check compares into `out` (the rest stays unread): the whole tensor
// when the rows are most of it, else only those rows (Backend::copy_rows_to_host).
void copy_checked_rows(Backend& backend, const void* device_out, ops::HostTensor& out,
                       const std::vector<std::int64_t>& rows) {
  const std::size_t row_bytes = static_cast<std::size_t>(out.cols()) * element_size_bytes(out.element());
  if (rows.size() * 4 >= static_cast<std::size_t>(out.rows())) {
    backend.copy_to_host(out.data(), device_out, out.bytes());
    return;
  }
  backend.copy_rows_to_host(out.data(), device_out, row_bytes, rows);
}

}  // namespace

Judgement combine_checks(const std::vector<CorrectnessCheck>& checks, const std::vector<std::string>& names,
                         const std::vector<std::string>& reasons) {
  Judgement j;
  for (std::size_t k = 0; k < checks.size(); ++k) {
    const CorrectnessCheck& one = checks[k];
    const bool one_ok = ops::passed(one);
    if (k == 0 || (!one_ok && j.failure.empty()) ||
        (j.failure.empty() && one.max_scaled_error > j.check.max_scaled_error)) {
      j.check = one;
    }
    if (!one_ok && j.failure.empty()) {
      const std::string why = k < reasons.size() && !reasons[k].empty() ? reasons[k] : ops::failure_reason(one);
      j.failure = checks.size() > 1 ? fmt::format("output {}: {}", names.at(k), why) : why;
    }
  }
  return j;
}

void keep_in_row(std::optional<CorrectnessCheck>& row_check, const Judgement& judgement) {
  if (!row_check || (!judgement.passed() && ops::passed(*row_check))) row_check = judgement.check;
}

ReferenceJudge::ReferenceJudge(Backend& backend, const ShapeInputs& inputs)
    : backend_(backend),
      inputs_(inputs),
      tol_(inputs.shape().op_description().description().tolerance(element_of(inputs.shape().dtype))),
      host_outs_(inputs.output_specs().size()) {}

Judgement ReferenceJudge::judge(const InputSet& set, const std::vector<void*>& outputs) {
  std::vector<CorrectnessCheck> checks;
  std::vector<std::string> names, reasons;
  for (std::size_t k = 0; k < inputs_.output_specs().size(); ++k) {
    checks.push_back(check_output(set, k, outputs.at(k)));
    names.push_back(inputs_.output_specs()[k].name);
    reasons.push_back(inputs_.provider_reference() ? ops::rule_failure_reason(checks.back(), rule(k)) : "");
  }
  return combine_checks(checks, names, reasons);
}

CorrectnessCheck ReferenceJudge::check_output(const InputSet& set, std::size_t k, const void* output) {
  const ops::OpShape& s = inputs_.shape();
  if (set.device_reference) {
    const ops::DeviceReference& ref = *set.device_reference;
    const ops::RowComparison sums = inputs_.device_reference_math()->compare_rows(
        ref, output, s.dtype, tol_.rtol,
        ops::absolute_bound(tol_, ref.sum_of_squares, ref.row_count * static_cast<std::size_t>(ref.n)));
    return ops::check_from_sums(sums, ref.sum_of_squares, static_cast<std::int64_t>(ref.row_count), s.m, tol_);
  }
  const ops::TensorSpec& spec = inputs_.output_specs()[k];
  std::optional<ops::HostTensor>& host_out = host_outs_[k];
  if (!host_out) host_out.emplace(spec.name, spec.element, spec.rows, spec.cols);
  const ops::Reference& ref = inputs_.provider_reference() ? set.output_references.at(k) : *set.reference;
  copy_checked_rows(backend_, output, *host_out, ref.rows());
  if (!inputs_.provider_reference()) return ops::check_output(ref, *host_out, tol_);
  const ops::CheckRule& r = rule(k);
  switch (r.kind) {
    case ops::CheckRule::Kind::exact: return ops::check_output(ref, *host_out, ops::exact_tolerance());
    case ops::CheckRule::Kind::ulp: return ops::check_ulp(ref, *host_out, r.ulps);
    case ops::CheckRule::Kind::indices:
      // The inputs the reference read (a described op's reference runs on the set's host copy).
      return ops::check_indices(ref, *host_out, set.host.at(r.indices_into), r.unordered);
    case ops::CheckRule::Kind::tolerance: break;
  }
  return ops::check_output(ref, *host_out, inputs_.shape().op_description().description().tolerance(spec.element));
}

const ops::CheckRule& ReferenceJudge::rule(std::size_t k) const {
  return inputs_.shape().op_description().description().outputs.at(k).check;
}

}  // namespace caliber::runner
