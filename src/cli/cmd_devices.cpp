// caliber devices: backends, devices and their identity.
#include <iostream>

#include <fmt/format.h>

#include "caliber/backend.h"
#include "caliber/result_json.h"
#include "cli/command.h"
#include "core/unit_text.h"

namespace caliber::cli {
namespace {

void print_devices(bool as_json) {
  nlohmann::json doc = nlohmann::json::array();
  for (const auto& b : available_backends()) {
    nlohmann::json entry = {{"backend", to_string(b.kind)},
                            {"compiled", b.compiled},
                            {"device_count", b.device_count},
                            {"available", b.compiled && b.device_count > 0},
                            {"reason", b.reason},
                            {"devices", nlohmann::json::array()}};
    if (!as_json) {
      std::cout << fmt::format("backend {}: {}\n", to_string(b.kind),
                               b.device_count > 0 ? fmt::format("{} device(s)", b.device_count)
                                                  : "not available: " + b.reason);
    }
    if (b.device_count == 0) {
      doc.push_back(entry);
      continue;
    }
    for (const DeviceInfo& d : list_devices(b.kind)) {
      entry["devices"].push_back(to_json(d));
      if (as_json) continue;
      std::cout << fmt::format("  [{}] {}  arch {}{}\n", d.index, d.name, d.arch,
                               d.uuid.empty() ? "" : "  uuid " + d.uuid);
      std::cout << fmt::format("      {}: {}   memory {}\n",
                               b.kind == BackendKind::cuda ? "multiprocessors" : "logical CPUs",
                               d.multiprocessors, format_bytes(d.memory_bytes));
      std::cout << fmt::format("      last-level cache {} ({})\n", format_bytes(d.llc_bytes),
                               d.llc_source);
      std::cout << fmt::format("      max clocks: {} MHz{}\n",
                               d.sm_clock_max_mhz ? std::to_string(d.sm_clock_max_mhz) : "unknown",
                               d.mem_clock_max_mhz ? fmt::format(", memory {} MHz", d.mem_clock_max_mhz) : "");
      std::cout << fmt::format("      {} {}, {} {}\n",
                               b.kind == BackendKind::cuda ? "driver" : "kernel", d.driver_version,
                               b.kind == BackendKind::cuda ? "runtime" : "libc", d.runtime_version);
    }
    doc.push_back(entry);
  }
  if (as_json) {
    const nlohmann::json out = {{"default_backend", to_string(default_backend_kind())}, {"backends", doc}};
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << fmt::format("default backend: {}\n", to_string(default_backend_kind()));
  }
}

const RegisterCommand registration{10, [](CLI::App& root, int& exit_code) {
  auto* cmd = root.add_subcommand("devices", "List backends and devices with their identity");
  auto as_json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *as_json, "Print JSON instead of text");
  cmd->callback([as_json, &exit_code] {
    print_devices(*as_json);
    exit_code = kExitOk;
  });
}};

}  // namespace
}  // namespace caliber::cli
