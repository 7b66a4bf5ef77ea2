#include "runner/result_rows.h"

#include <ctime>

#include <fmt/format.h>

#include "caliber/config.h"

namespace caliber::runner {

std::string harness_version() {
  return fmt::format("{} ({}, {})", CALIBER_VERSION, CALIBER_GIT_REVISION, CALIBER_BUILD_TYPE);
}

std::string utc_now_iso8601() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

BenchmarkResultRow base_row(const RunIdentity& id, const ShapeRow& shape, const std::string& provider) {
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
  const ops::OpType op = ops::parse_op_type(shape.op_type);
  const ops::OpShape s = ops::parse_op_shape(op, shape.dtype, shape.layout, shape.args, "", shape.line, "args");
  const ops::Op& o = ops::op_for(op);
  r.bytes = o.bytes(s);
  r.flops = o.flops(s);
  r.benchmark_status = BenchmarkStatus::failed;
  r.finished_at = utc_now_iso8601();
  return r;
}

}  // namespace caliber::runner
