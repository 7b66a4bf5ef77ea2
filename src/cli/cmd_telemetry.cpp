// caliber telemetry: device telemetry as CSV, one reading per line, for as long as asked or until
// the reader goes away (caliber telemetry | head exits quietly with status 0).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "caliber/backend.h"
#include "caliber/clock.h"
#include "caliber/errors.h"
#include "caliber/telemetry.h"
#include "cli/command.h"
#include "telemetry/telemetry_sampler.h"

namespace caliber::cli {
namespace {

struct TelemetryOptions {
  int device = 0;
  double interval_ms = 100.0;
  std::int64_t count = 0;  // 0: until interrupted or the reader goes away
};

constexpr const char* kHeader =
    "timestamp_ms,index,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,util_pct,throttle_reasons\n";

enum class WriteResult { ok, reader_gone };

// Writes all of `text` to standard output. The reader going away (EPIPE; SIGPIPE is ignored in
// main) is a normal end; any other failure throws.
WriteResult write_stdout(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) return WriteResult::reader_gone;
      throw Error(fmt::format("writing to standard output failed: {}", std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
  return WriteResult::ok;
}

std::string cell(int v) { return v < 0 ? std::string() : std::to_string(v); }

std::string csv_row(const TelemetrySample& s, std::int64_t index) {
  return fmt::format("{:.3f},{},{},{},{},{},{},{}\n", s.timestamp_ms, index, cell(s.sm_clock_mhz),
                     cell(s.mem_clock_mhz), cell(s.temp_c),
                     s.power_w < 0 ? std::string() : fmt::format("{:.3f}", s.power_w), cell(s.util_pct),
                     describe_throttle_reasons(s.throttle_reasons));
}

// The GPU for --device N: the CUDA device N (matched to NVML by UUID) when the cuda backend sees
// devices, else NVML's device N.
std::unique_ptr<TelemetryReader> open_reader(int device, std::string* why) {
  for (const auto& b : available_backends()) {
    if (b.kind != BackendKind::cuda || b.device_count == 0) continue;
    if (device >= b.device_count) {
      throw UsageError(fmt::format("--device {}: backend cuda has devices 0..{}", device, b.device_count - 1));
    }
    const auto devices = list_devices(BackendKind::cuda);
    return open_nvml_telemetry(devices.at(static_cast<std::size_t>(device)).uuid, device, why);
  }
  return open_nvml_telemetry("", device, why);
}

int run_telemetry(const TelemetryOptions& o) {
  if (o.device < 0) throw UsageError(fmt::format("--device must be >= 0 (got {})", o.device));
  if (!(o.interval_ms > 0) || o.interval_ms > 3'600'000) {
    throw UsageError(fmt::format("--interval-ms must be in (0, 3600000] (one hour; got {})", o.interval_ms));
  }
  if (o.count < 0) throw UsageError(fmt::format("--count must be >= 0 (got {})", o.count));
  std::string why;
  const std::unique_ptr<TelemetryReader> reader = open_reader(o.device, &why);
  if (!reader) {
    std::cerr << "caliber: telemetry: unavailable (" << why << ")\n";
    return kExitPreflight;
  }
  if (write_stdout(kHeader) == WriteResult::reader_gone) return kExitOk;
  Clock& clock = steady_clock();
  RealTimePacer pacer;
  double origin_us = 0;  // when the first reading completed: its timestamp is 0
  for (std::int64_t i = 0; o.count == 0 || i < o.count; ++i) {
    if (i > 0) pacer.wait(o.interval_ms);
    TelemetrySample s = reader->read();
    const double now_us = clock.now_us();
    if (i == 0) origin_us = now_us;
    s.timestamp_ms = (now_us - origin_us) / 1000.0;
    if (write_stdout(csv_row(s, i)) == WriteResult::reader_gone) return kExitOk;
  }
  return kExitOk;
}

const RegisterCommand registration{60, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<TelemetryOptions>();
  auto* cmd = root.add_subcommand(
      "telemetry",
      "Print device telemetry (NVML) as CSV: timestamp_ms,index,sm_clock_mhz,mem_clock_mhz,temp_c,"
      "power_w,util_pct,throttle_reasons (docs/telemetry.md)");
  cmd->add_option("--device", o->device,
                  "GPU index (CUDA numbering when the cuda backend sees devices, else NVML's)")
      ->capture_default_str();
  cmd->add_option("--interval-ms", o->interval_ms, "Milliseconds between readings")->capture_default_str();
  cmd->add_option("--count", o->count, "Readings to print; 0 = until interrupted or the reader goes away")
      ->capture_default_str();
  cmd->callback([o, &exit_code] { exit_code = run_telemetry(*o); });
}};

}  // namespace
}  // namespace caliber::cli
