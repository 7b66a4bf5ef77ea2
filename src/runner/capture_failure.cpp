#include "runner/capture_failure.h"

#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/input_file.h"
#include "core/one_line.h"

namespace caliber::runner {

CaptureFailureClass classify_capture_failure(const CaptureFailureFacts& facts) {
  if (facts.fault == DeviceFault::kernel_fault) return CaptureFailureClass::fatal_device_fault;
  if (!facts.device_usable_after) return CaptureFailureClass::poisoned_context;
  if (facts.during_capture || facts.fault == DeviceFault::capture_rejected) return CaptureFailureClass::recoverable;
  return CaptureFailureClass::fatal_device_fault;
}

bool capture_failure_keeps_eager_number(CaptureFailureClass c) {
  return c == CaptureFailureClass::recoverable || c == CaptureFailureClass::capture_denied;
}

std::optional<std::string> capture_denial_from(const BenchmarkResultRow& row) {
  if (!row.capture_failure || row.capture_failure->kind != CaptureFailureClass::poisoned_context) return std::nullopt;
  return fmt::format("capture denied: graph capture left the device unusable for this provider at shape {} ({})",
                     row.shape_id, row.capture_failure->detail);
}

std::map<std::string, std::string> read_capture_denials(const std::string& file) {
  std::istringstream in(read_text_file(file));
  std::map<std::string, std::string> out;
  std::string line;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos || tab == 0 || tab + 1 == line.size()) {
      throw InputError(file, number, "denial", "expected <provider><TAB><why capture is denied>");
    }
    out.emplace(line.substr(0, tab), line.substr(tab + 1));
  }
  return out;
}

void merge_capture_denials(const std::string& file, const std::map<std::string, std::string>& denials) {
  std::error_code ec;
  std::map<std::string, std::string> all =
      std::filesystem::exists(file, ec) ? read_capture_denials(file) : std::map<std::string, std::string>{};
  bool added = false;
  for (const auto& [provider, why] : denials) added = all.emplace(provider, why).second || added;
  if (!added && std::filesystem::exists(file, ec)) return;
  write_file_atomically(file, [&](std::ostream& out) {
    out << "# providers denied graph capture (caliber run --capture-denied): provider<TAB>why\n";
    for (const auto& [provider, why] : all) out << provider << '\t' << one_line(why) << '\n';
  });
}

}  // namespace caliber::runner
