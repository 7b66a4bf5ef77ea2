// The judge of a cell's outputs (docs/integrity.md): after a verified call, each output's checked
// rows against an input set's fp64 reference, one correctness check per output.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "results/benchmark_results.h"
#include "ops/correctness.h"
#include "runner/shape_inputs.h"

namespace caliber::runner {

// What one judged call found.
struct Judgement {
  CorrectnessCheck check;  // the first failing output's check, else the worst one's (largest max_scaled_error)
  std::string failure;     // why the first failing output failed ("output y: ..." for an op of several); "" when all passed
  bool passed() const { return failure.empty(); }
};

// Combines the checks of an op's outputs (in its output order, with their names and, where
// given, why each failed; else ops::failure_reason's words).
Judgement combine_checks(const std::vector<CorrectnessCheck>& checks, const std::vector<std::string>& names,
                         const std::vector<std::string>& reasons = {});

// The check a row keeps over its judged calls: the first one's, or the first failing one's.
void keep_in_row(std::optional<CorrectnessCheck>& row_check, const Judgement& judgement);

class ReferenceJudge {
 public:
  ReferenceJudge(Backend& backend, const ShapeInputs& inputs);

  // Compares `outputs` (device buffers, in the op's output order) with `set`'s reference, which
  // must have been computed (ShapeInputs::ensure_reference).
  Judgement judge(const InputSet& set, const std::vector<void*>& outputs);

 private:
  CorrectnessCheck check_output(const InputSet& set, std::size_t k, const void* output);
  // A described op's output k's check rule.
  const ops::CheckRule& rule(std::size_t k) const;

  Backend& backend_;
  const ShapeInputs& inputs_;
  const ops::Tolerance tol_;
  std::vector<std::optional<ops::HostTensor>> host_outs_;  // the checked rows copied back: a host reference only
};

}  // namespace caliber::runner
