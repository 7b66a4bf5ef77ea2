// Building results rows: the fields every row of a cell has, whoever writes it (the worker that
// measured it, or the parent when the worker died).
#pragma once

#include <string>

#include "caliber/benchmark_results.h"
#include "caliber/device.h"
#include "caliber/shape_ledger.h"
#include "ops/op.h"

namespace caliber::runner {

struct RunIdentity {
  std::string run_id;
  std::string candidate_commit;
  std::string harness_version;  // "0.1.0 (<git revision>, <build type>)"
  DeviceInfo device;
};

// caliber's version string as results rows carry it.
std::string harness_version();

// A row with identity, shape, provider, byte/flop counts filled in; status failed with an empty
// reason until the caller decides.
BenchmarkResultRow base_row(const RunIdentity& id, const ShapeRow& shape, const std::string& provider);

// "2026-11-29T12:00:00Z" for now.
std::string utc_now_iso8601();

}  // namespace caliber::runner
