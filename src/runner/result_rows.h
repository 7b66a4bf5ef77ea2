// Building results rows: the fields every row of a cell has, whoever writes it (the worker that
// measured it, or the parent when the worker died).
#pragma once

#include <string>

#include "results/benchmark_results.h"
#include "caliber/device.h"
#include "ledger/shape_ledger.h"
#include "ops/op.h"

namespace caliber::runner {

// What every results row records about the run it belongs to. (The run's whole identity, the one
// that decides what its numbers mean, is run_identity.json: include/caliber/run_identity.h.)
struct RowProvenance {
  std::string run_id;
  std::string candidate_commit;
  std::string harness_version;  // "0.1.0 (<git revision>, <build type>)"
  DeviceInfo device;
};

// caliber's version string as results rows carry it.
std::string harness_version();

// A row with identity, shape, provider, byte/flop counts filled in; status failed with an empty
// reason until the caller decides.
BenchmarkResultRow base_row(const RowProvenance& id, const ShapeRow& shape, const std::string& provider);
// The same, for a shape already parsed (`parsed`: the shape's op_type, dtype, layout and args).
BenchmarkResultRow base_row(const RowProvenance& id, const ShapeRow& shape, const ops::OpShape& parsed,
                            const std::string& provider);

}  // namespace caliber::runner
