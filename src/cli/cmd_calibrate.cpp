// caliber calibrate: measures and stores the device's memory-bandwidth and matmul ceilings, once
// per device identity (--force re-measures).
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "calibrate/calibration.h"
#include "caliber/backend.h"
#include "integrity/device_ceilings.h"
#include "caliber/errors.h"
#include "cli/cli_common.h"
#include "cli/command.h"
#include "core/sampling_limits.h"
#include "report/report_text.h"
#include "core/unit_text.h"
#include "io/device_ceilings_file.h"

namespace caliber::cli {
namespace {

struct CalibrateOptions {
  std::string backend = "auto";
  int device = 0;
  std::optional<std::string> out;
  bool force = false;
  std::optional<std::string> copy_size;
  std::int64_t matmul_size = 0;
  std::optional<std::string> matmul_dtypes;
  double max_time_ms = 2000;
};

void print_ceilings(const DeviceCeilings& d) {
  auto line = [](const std::string& what, const Ceiling& c) {
    if (!c.available) return fmt::format("  {}: not available ({})\n", what, c.reason);
    return fmt::format("  {}: {}  [{}]\n", what, format_rate(c.rate_per_s, c.unit), c.method);
  };
  std::cout << fmt::format("{} (measured {})\n", d.device_key, d.measured_at);
  std::cout << line("memory bandwidth", d.memory_bandwidth);
  for (const auto& [dtype, c] : d.matmul) std::cout << line("matmul " + dtype, c);
}

int run_calibrate(const CalibrateOptions& o) {
  const BackendKind kind = parse_backend_option(o.backend);
  if (o.device < 0) throw UsageError(fmt::format("--device must be >= 0 (got {})", o.device));
  // 0: the backend's default. 32768^2 fp32 is 4 GiB per matrix.
  if (o.matmul_size < 0 || o.matmul_size > 32768) {
    throw UsageError(fmt::format("--matmul-size must be in [1, 32768] (got {})", o.matmul_size));
  }
  require_time_option(o.max_time_ms, "--max-time-ms", /*positive=*/true);
  calibrate::CalibrationOptions co;
  if (o.copy_size) co.copy_bytes = parse_size_bytes(*o.copy_size, "--copy-size");
  co.matmul_size = o.matmul_size;
  if (o.matmul_dtypes) co.matmul_dtypes = split_list(*o.matmul_dtypes, "--matmul-dtype");
  co.max_time_ms = o.max_time_ms;
  const std::string file = o.out.value_or(default_ceilings_path());
  std::vector<DeviceCeilings> existing;
  if (std::filesystem::exists(file)) existing = read_device_ceilings(file);  // a malformed file is refused

  auto backend = open_backend(kind, o.device);
  const std::string key = device_key(backend->device());
  if (const DeviceCeilings* known = find_device_ceilings(existing, key); known && !o.force) {
    std::cout << fmt::format("already calibrated in {} (--force re-measures):\n", file);
    print_ceilings(*known);
    return kExitOk;
  }
  const DeviceCeilings measured = calibrate::calibrate_device(*backend, co, std::cerr);
  store_device_ceilings(file, measured);
  std::cout << fmt::format("stored in {}:\n", file);
  print_ceilings(measured);
  return kExitOk;
}

const RegisterCommand registration{35, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* cmd = root.add_subcommand("calibrate",
                                  "Measure and store the device's achievable memory bandwidth and matmul flop rate");
  cmd->add_option("--backend", o->backend, "host | cuda | auto")->capture_default_str();
  cmd->add_option("--device", o->device, "Device index")->capture_default_str();
  cmd->add_option("--out", o->out,
                  "Ceilings file, keyed by device identity (default: $CALIBER_CEILINGS, else "
                  "$XDG_CACHE_HOME/caliber/device_ceilings.json, else ~/.cache/caliber/device_ceilings.json)");
  cmd->add_flag("--force", o->force, "Re-measure a device that is already in the file");
  cmd->add_option("--copy-size", o->copy_size,
                  "Bytes copied per call for the bandwidth ceiling (default: cuda 4GiB, host max(256MiB, 8 x LLC); "
                  "at least 4 x the last-level cache)");
  cmd->add_option("--matmul-size", o->matmul_size, "m = n = k of the matmul (default: cuda 8192, host 1024)");
  cmd->add_option("--matmul-dtype", o->matmul_dtypes, "Comma list of matmul dtypes (default: cuda bf16,fp32; host fp32)");
  cmd->add_option("--max-time-ms", o->max_time_ms, "Adaptive rule's cap per measurement, ms")->capture_default_str();
  cmd->callback([o, &exit_code] { exit_code = run_calibrate(*o); });
}};

}  // namespace
}  // namespace caliber::cli
