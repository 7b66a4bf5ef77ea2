#include "runner/result_rows.h"

#include <fmt/format.h>

#include "caliber/config.h"
#include "core/utc_time.h"
#include "ops/op_catalog.h"

namespace caliber::runner {

std::string harness_version() {
  return fmt::format("{} ({}, {})", CALIBER_VERSION, CALIBER_GIT_REVISION, CALIBER_BUILD_TYPE);
}

BenchmarkResultRow base_row(const RowProvenance& id, const ShapeRow& shape, const std::string& provider) {
  return base_row(id, shape,
                  ops::parse_shape(shape.op_type, shape.dtype, shape.layout, shape.args, "", shape.line, "args"),
                  provider);
}

BenchmarkResultRow base_row(const RowProvenance& id, const ShapeRow& shape, const ops::OpShape& parsed,
                            const std::string& provider) {
  BenchmarkResultRow r;
  r.run_id = id.run_id;
  r.shape_id = shape.shape_id;
  r.op_type = shape.op_type;
  r.kernel_name = shape.kernel_name;
  r.dtype = std::string(to_string(shape.dtype));
  r.args = shape.args;
  r.provider = provider;
  r.candidate_commit = id.candidate_commit;
  r.harness_version = id.harness_version;
  r.backend = std::string(to_string(id.device.backend));
  r.device_index = id.device.index;
  r.gpu = id.device.name;
  r.arch = id.device.arch;
  r.driver_version = id.device.driver_version;
  r.runtime_version = id.device.runtime_version;
  const ops::Op& o = ops::op_of(parsed);
  r.bytes = o.bytes(parsed);
  r.flops = o.flops(parsed);
  r.benchmark_status = BenchmarkStatus::failed;
  r.finished_at = utc_timestamp_now();
  return r;
}

}  // namespace caliber::runner
