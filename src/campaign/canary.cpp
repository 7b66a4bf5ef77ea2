#include "campaign/canary.h"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "results/benchmark_results.h"
#include "caliber/run_identity.h"
#include "campaign/result_lines.h"
#include "campaign/retry_policy.h"
#include "core/subprocess.h"

namespace caliber::campaign {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Why the canary's run in `dir` does not pass, or "" when it does: its caliber run must have
// exited 0, been measured by the manifest's binary, and left an ok row (integrity included) for
// the canary's cell.
std::string canary_failure(const Manifest& m, const fs::path& dir, const SubprocessResult& r, const std::string& log) {
  const json& c = m.frozen.at("canary");
  if (r.exit_code != 0) {
    return fmt::format("its caliber run {} (see {})", r.timed_out ? "timed out" : fmt::format("exited {}", r.exit_code),
                       log);
  }
  std::string why_missing;
  const auto identity = find_run_identity(dir.string(), &why_missing);
  const std::string sha = m.frozen.at("harness").at("executable_sha256").get<std::string>();
  if (!identity || identity->harness.executable_sha256 != sha) {
    return "it was not measured by the manifest's caliber binary";
  }
  const std::string provider = c.at("provider").get<std::string>();
  const std::string shape = c.at("shape_id").get<std::string>();
  std::string why = "no row for it";
  for (const CellLine& l : read_cell_lines((dir / kBenchmarkResultsFileName).string())) {
    if (l.shape_id != shape || l.provider != provider) continue;
    why = l.status == BenchmarkStatus::ok && l.integrity != IntegrityVerdict::failed
              ? ""
              : fmt::format("{}: {}", to_string(l.status), l.status_reason.value_or(""));
  }
  return why;
}

}  // namespace

bool run_canary(const Manifest& m, const std::string& executable, std::ostream& err,
                const std::string& device_server) {
  const json& c = m.frozen.at("canary");
  const fs::path dir = fs::absolute(m.dir) / c.at("dir").get<std::string>();
  fs::remove_all(dir);  // the canary's own run; never part of the campaign's results
  fs::create_directories(dir);
  SubprocessOptions o;
  o.argv = {executable, "run"};
  for (const json& a : c.at("run_arguments")) o.argv.push_back(a.get<std::string>());
  if (!device_server.empty()) o.argv.insert(o.argv.end(), {"--device-server", device_server});
  o.stdout_path = (dir / "run.log").string();
  const RetryPolicy policy = manifest_policy(m);
  o.timeout_s = std::min(policy.shard_timeout_s, policy.cell_timeout_s + 120);
  o.kill_after_s = policy.kill_after_s;
  o.die_with_parent = true;
  ChildProcess child(o);
  const SubprocessResult r = child.wait();
  const std::string why = canary_failure(m, dir, r, o.stdout_path);
  const std::string cell = fmt::format("{} / {} / {}", c.at("op").get<std::string>(),
                                       c.at("shape_id").get<std::string>(), c.at("provider").get<std::string>());
  if (!why.empty()) {
    err << fmt::format("caliber batch: canary {} failed: {}; nothing else runs\n", cell, why);
    return false;
  }
  err << fmt::format("caliber batch: canary {} ok\n", cell);
  return true;
}

}  // namespace caliber::campaign
