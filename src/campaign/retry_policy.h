// Which cells of a campaign run again (docs/batch.md, "Retries"). Pure logic, tested on literal
// data (tests/campaign/test_retry_policy.cpp).
//
// - Only `failed` cells are retried (an error, a crash, a hang, a shard that ended under the
//   cell). ok, skipped, unsupported and not_configured cells are final; so are incorrect,
//   faster_than_physical and oom: re-running a wrong or impossible result until it reads better
//   would promote it.
// - A cell runs at most 1 + retries times per session.
// - Deterministic-failure cutoff: when a failure's signature equals the signature of an earlier
//   failed attempt of the same cell (in this session), the failure is deterministic and the cell
//   is not retried again. "crash, crash" stops after two attempts whatever --retries says;
//   "crash, hang, crash" stops at the second crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "results/benchmark_results.h"

namespace caliber::campaign {

bool is_retryable(BenchmarkStatus status);

// What makes two failures "the same": the status and the reason with every number masked
// ("signal 11" and "signal 6" still differ by their names; addresses, sizes, times do not count):
// hexadecimal literals become "0x#", runs of decimal digits "#".
std::string failure_signature(BenchmarkStatus status, std::string_view reason);

struct RetryDecision {
  bool retry = false;
  std::string why;  // when not retried: "deterministic: the same failure twice", "retries exhausted (...)"
};

// `failures`: the signatures of this session's failed attempts of one cell, oldest first (the
// last is the attempt just finished). retries: --retries.
RetryDecision decide_retry(const std::vector<std::string>& failures, int retries);

}  // namespace caliber::campaign
