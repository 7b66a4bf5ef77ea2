#include "caliber/result_table.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "report/text_table.h"
#include "core/unit_text.h"

namespace caliber {

namespace {

std::string size_of(const Result& r) {
  const ParamValue* size = r.params.find("size_bytes");
  if (size && size->is_integer() && size->integer() >= 0) {
    return format_bytes(static_cast<std::uint64_t>(size->integer()));
  }
  return "-";
}

std::string schedule_of(const Contract& c) {
  if (c.quantity == Quantity::host_dispatch) return "host_dispatch";
  if (c.schedule == Schedule::graph) return fmt::format("graph/{}", c.graph_calls);
  if (c.schedule == Schedule::pipelined) return fmt::format("pipelined/{}", c.iterations.count);
  return std::string(to_string(c.schedule));
}

// Brief lines on how the number was taken: instrument choice, what the call ran, telemetry.
std::vector<std::string> detail_lines(const Result& r) {
  std::vector<std::string> out;
  const std::string used(to_string(r.contract.instrument));
  if (!r.instrument.requested.empty() && r.instrument.requested != used) {
    out.push_back(fmt::format("instrument {} -> {}: {}", r.instrument.requested, used, r.instrument.reason));
  }
  if (r.instrument.kernel_tracing && r.contract.instrument != Instrument::cupti) {
    out.push_back("CUPTI activity tracing was on while measuring (it slows kernels with many blocks)");
  }
  if (!r.kernels.empty()) {
    constexpr std::size_t kShown = 3;
    const double calls = std::max<double>(1.0, static_cast<double>(r.timed_calls));
    std::string kernels;
    for (std::size_t i = 0; i < r.kernels.size() && i < kShown; ++i) {
      const KernelStat& k = r.kernels[i];
      kernels += fmt::format("{}{} x{:.3g}/call, mean {} us", i ? "; " : "", k.name,
                             static_cast<double>(k.launches) / calls, format_us(k.mean_us));
    }
    if (r.kernels.size() > kShown) kernels += fmt::format("; +{} more", r.kernels.size() - kShown);
    out.push_back("kernels: " + kernels);
  }
  if (!r.flags.empty()) {
    std::string flags;
    for (const std::string& f : r.flags) flags += (flags.empty() ? "" : " ") + f;
    out.push_back("flags: " + flags);
  }
  // Device telemetry is evidence for device work; the host backend has none to show.
  if (r.telemetry.available ||
      (r.contract.backend != BackendKind::host && r.contract.quantity == Quantity::device_time)) {
    out.push_back(describe_telemetry(r.telemetry));
  }
  return out;
}

}  // namespace

void write_results_table(std::ostream& out, const std::vector<Result>& results) {
  const std::vector<std::string> header = {"name",   "size",   "backend", "instrument", "schedule",
                                           "cache",  "stat",   "value_us", "p10_us",   "p90_us",
                                           "n",      "stable", "integrity"};
  std::vector<std::vector<std::string>> rows = {header};
  for (const Result& r : results) {
    const Contract& c = r.contract;
    rows.push_back({r.name, size_of(r), std::string(to_string(c.backend)),
                    std::string(to_string(c.instrument)), schedule_of(c),
                    std::string(to_string(c.cache)), c.statistic.name(), format_us(r.value_us),
                    format_us(r.summary.p10_us), format_us(r.summary.p90_us),
                    std::to_string(r.summary.n), r.stable ? "yes" : "NO",
                    r.integrity.verdict() == IntegrityVerdict::failed ? "FAILED"
                                                                       : std::string(to_string(r.integrity.verdict()))});
  }
  // Numbers right-aligned (columns 7..10), text left-aligned.
  write_text_table(out, rows, [](std::size_t i) { return i >= 7 && i <= 10; });
  for (const Result& r : results) {
    const Contract& c = r.contract;
    const std::string tag = fmt::format("{} [{}/{}/{}/{}]", r.name, to_string(c.instrument),
                                        schedule_of(c), to_string(c.cache), c.statistic.name());
    for (const auto& n : r.notes) out << "  note " << tag << ": " << n << '\n';
    for (const auto& line : detail_lines(r)) out << "  note " << tag << ": " << line << '\n';
    for (const auto& w : r.warnings) out << "  ! " << tag << ": " << w << '\n';
  }
}

}  // namespace caliber
