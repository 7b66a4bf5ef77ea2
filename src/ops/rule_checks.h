// The checks of a described op's outputs beyond the tolerance (ops/correctness.h, CheckRule):
// units in the last place, and indices judged by the values they select. Their numbers fill a
// CorrectnessCheck so that results rows carry them as they carry the tolerance's (docs/user-ops.md,
// "Checks"): passed() and the rows' fields keep their meaning.
#pragma once

#include <string>
#include <vector>

#include "ops/correctness.h"

namespace caliber::ops {

// A tolerance check with zero tolerance: every element equal (NaN where the reference is NaN).
inline Tolerance exact_tolerance() { return Tolerance{}; }

// Every checked element within `ulps` units in the last place of the output's element type at the
// reference's value (below the smallest normal: its subnormal step). The row's rel_fro_error and
// max_scaled_error both hold the largest error in ulps divided by `ulps`, against a tolerance of 1.
CorrectnessCheck check_ulp(const Reference& reference, const HostTensor& output, double ulps);

// `output` holds k indices per row of `into` (k = its elements / into's rows; element q belongs to
// row q / k), each into that row's last extent. Each must be in range, distinct from the others
// of its row, and select the value the reference's index selects (exactly; NaN matches NaN), or
// with `unordered` the row's selected values must equal the reference's as a multiset. The row's
// rel_fro_error is the fraction of wrong indices (tolerance 0), its max_scaled_error their number.
// The reference's own indices must be valid (invalid_reference_indices).
CorrectnessCheck check_indices(const Reference& reference, const HostTensor& output, const HostTensor& into,
                               bool unordered);

// Why a reference's output of indices into `into` is not one (an index out of range or not whole),
// or "".
std::string invalid_reference_indices(const std::vector<double>& values, const std::string& output,
                                     const HostTensor& into);

// Why a check under `rule` failed, in one line; "" when it passed.
std::string rule_failure_reason(const CorrectnessCheck& c, const CheckRule& rule);

}  // namespace caliber::ops
