#include "preflight/preflight.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/created_directories.h"
#include "core/forked_call.h"
#include "core/input_file.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

std::vector<PreflightRecord> run_preflight(const std::vector<PreflightCheck>& checks, std::ostream& log) {
  std::vector<PreflightRecord> records;
  std::vector<PreflightError::Failure> failures;
  for (const PreflightCheck& check : checks) {
    if (!check.requires_passed.empty()) {
      // Only a prerequisite that is part of this preflight (and ran before) can hold a check back.
      bool present = false, ok = true;
      for (const auto& r : records) {
        if (r.name != check.requires_passed) continue;
        present = true;
        ok = ok && r.outcome.status != PreflightOutcome::Status::failed &&
             r.outcome.status != PreflightOutcome::Status::not_applicable;
      }
      if (present && !ok) {
        records.push_back({check.name, PreflightOutcome::not_applicable(
                                           fmt::format("not run: {} did not pass", check.requires_passed))});
        continue;
      }
    }
    PreflightOutcome outcome;
    try {
      outcome = check.run();
    } catch (const std::exception& e) {
      outcome = PreflightOutcome::fail(e.what());
    }
    if (outcome.status == PreflightOutcome::Status::failed) failures.push_back({check.name, outcome.detail});
    if (outcome.status == PreflightOutcome::Status::warning) {
      log << fmt::format("warning [preflight] check={}: {}\n", check.name, outcome.detail);
    }
    records.push_back({check.name, std::move(outcome)});
  }
  if (!failures.empty()) throw PreflightError(std::move(failures));
  return records;
}

PreflightCheck check_device_visible(BackendKind backend, int index,
                                    std::function<std::vector<BackendAvailability>()> backends) {
  return {"device_visible", [=] {
            for (const BackendAvailability& b : backends()) {
              if (b.kind != backend) continue;
              if (!b.compiled) return PreflightOutcome::fail(fmt::format("backend {} is not in this build: {}", to_string(backend), b.reason));
              if (b.device_count == 0) return PreflightOutcome::fail(fmt::format("backend {} sees no device: {}", to_string(backend), b.reason));
              if (index < 0 || index >= b.device_count) {
                return PreflightOutcome::fail(fmt::format("device {} does not exist (backend {} has devices 0..{})", index,
                                                          to_string(backend), b.device_count - 1));
              }
              return PreflightOutcome::pass(fmt::format("{} device {} of {}", to_string(backend), index, b.device_count));
            }
            return PreflightOutcome::fail(fmt::format("backend {} is unknown to this build", to_string(backend)));
          },
          ""};
}

PreflightCheck check_device_exclusive(std::function<DeviceInfo()> device, DeviceProbe& probe, bool allow_shared) {
  return {"device_exclusive",
          [device, &probe, allow_shared] {
            const DeviceInfo d = device();
            const DeviceProcesses p = probe.other_compute_processes(d);
            if (p.source == "not applicable") return PreflightOutcome::not_applicable(p.reason);
            if (!p.available) {
              return PreflightOutcome::warn(fmt::format(
                  "could not list the processes on {} {}: {}; another process may share the device unseen",
                  d.name, d.uuid, p.reason));
            }
            if (p.processes.empty()) return PreflightOutcome::pass(fmt::format("no other compute process ({})", p.source));
            std::string list;
            for (const DeviceProcess& proc : p.processes) {
              list += fmt::format("{}pid {}{}", list.empty() ? "" : ", ", proc.pid, proc.name.empty() ? "" : " (" + proc.name + ")");
            }
            const std::string what = fmt::format("{} other compute process(es) on device {} ({}): {}", p.processes.size(),
                                                 d.index, p.source, list);
            if (allow_shared) return PreflightOutcome::warn(what + "; measuring anyway (--allow-shared-device)");
            return PreflightOutcome::fail(what + "; they compete for the device while it is timed (--allow-shared-device "
                                                 "to measure anyway)");
          },
          "device_visible"};
}

PreflightCheck check_library_loadable(const std::string& name, const std::vector<std::string>& candidates,
                                      const std::string& why, SharedLibraries& libs) {
  return {name, [name, candidates, why, &libs] {
            std::vector<std::string> errors;
            for (const std::string& lib : candidates) {
              std::string err;
              if (void* h = libs.open(lib, &err)) {
                libs.close(h);
                return PreflightOutcome::pass(lib);
              }
              errors.push_back(err);
            }
            return PreflightOutcome::fail(fmt::format("{} cannot be loaded ({}), and {}", join(candidates, " or "),
                                                      join(errors, "; "), why));
          },
          ""};
}

const std::vector<std::string>& cupti_library_candidates() {
  static const std::vector<std::string> names = {"libcupti.so.13", "libcupti.so"};
  return names;
}

std::vector<PreflightCheck> checks_for_contract_libraries(const std::vector<Contract>& contracts, SharedLibraries& libs) {
  bool cupti = false, nvml = false;
  for (const Contract& c : contracts) {
    cupti = cupti || c.instrument == Instrument::cupti;
    nvml = nvml || (c.backend == BackendKind::cuda && c.throttle_policy != ThrottlePolicy::flag);
  }
  std::vector<PreflightCheck> out;
  if (cupti) {
    out.push_back(check_library_loadable("cupti_loadable", cupti_library_candidates(),
                                         "the contract's instrument is cupti", libs));
  }
  if (nvml) {
    out.push_back(check_library_loadable("nvml_loadable", {"libnvidia-ml.so.1"},
                                         "the contract's throttle policy (discard or fail) needs NVML to see throttling",
                                         libs));
  }
  return out;
}

namespace {

// Loads the library, looks its entry up and (when asked) checks its ABI: "P<detail>" when it
// passes, "F<detail>" when it fails. Runs in a child process (call_in_child).
std::string load_and_check(const PluginSpec& plugin, SharedLibraries& libs) {
  std::string err;
  void* h = libs.open(plugin.path, &err);
  if (!h) return "Fdoes not load: " + err;
  void* entry = libs.symbol(h, plugin.symbol, &err);
  if (!entry) {
    libs.close(h);
    return fmt::format("Fdoes not export {}: {}", plugin.symbol, err);
  }
  if (!plugin.abi_check) {
    libs.close(h);
    return fmt::format("Ploads, exports {}; ABI version not checked", plugin.symbol);
  }
  const std::string abi = plugin.abi_check(libs, h, entry);
  libs.close(h);
  if (!abi.empty()) return "F" + abi;
  return fmt::format("Ploads, exports {}, ABI matches", plugin.symbol);
}

}  // namespace

PreflightCheck check_plugin_loads(const PluginSpec& plugin, SharedLibraries& libs) {
  return {"plugin_loads", [plugin, &libs] {
            const std::string who =
                fmt::format("{}provider {} ({}:{})", plugin.origin, plugin.provider, plugin.path, plugin.symbol);
            // Never blocks: a FIFO, a directory or a device is refused before the loader opens it.
            if (const auto problem = input_file_problem(plugin.path, kMaxBinaryInputBytes)) {
              return PreflightOutcome::fail(fmt::format("{}: {} {}", who, plugin.path, *problem));
            }
            // The library's constructors, its entry and its destroy() run in a child: a plugin that
            // exits, crashes, hangs or throws fails this check instead of ending caliber.
            const ForkedCall c = call_in_child([&] { return load_and_check(plugin, libs); }, plugin.load_timeout_s);
            if (!c.answered) {
              return PreflightOutcome::fail(fmt::format(
                  "{}: loading it and calling its entry (in a child process), the child {}", who, c.failure));
            }
            const std::string detail = fmt::format("{}: {}", who, c.value.empty() ? "" : c.value.substr(1));
            return c.value.starts_with("P") ? PreflightOutcome::pass(detail) : PreflightOutcome::fail(detail);
          },
          ""};
}

PreflightCheck check_python_provider_file(const std::string& provider, const std::string& path,
                                          const std::string& name, const std::string& origin) {
  return {"plugin_loads", [=] {
            const std::string who = fmt::format("{}provider {} (python:{}:{})", origin, provider, path, name);
            std::error_code ec;
            if (!fs::is_regular_file(path, ec)) {
              return PreflightOutcome::fail(fmt::format("{}: {} is not a file", who, path));
            }
            if (!std::ifstream(path)) return PreflightOutcome::fail(fmt::format("{}: {} cannot be read", who, path));
            return PreflightOutcome::pass(
                fmt::format("{}: the file exists; the Python worker imports it and looks {} up", who, name));
          },
          ""};
}

PreflightCheck check_input_file(const InputFileSpec& input) {
  return {"input_valid", [input] {
            // Never blocks (a FIFO is refused, not opened for a writer); the size is the reader's
            // to limit, with its own message.
            if (const auto problem = input_file_problem(input.path, kMaxBinaryInputBytes)) {
              return PreflightOutcome::fail(fmt::format("{} {} {}", input.kind, input.path, *problem));
            }
            if (input.validate) {
              try {
                input.validate(input.path);
              } catch (const std::exception& e) {
                return PreflightOutcome::fail(fmt::format("{} {} is invalid: {}", input.kind, input.path, e.what()));
              }
            }
            return PreflightOutcome::pass(fmt::format("{} {}", input.kind, input.path));
          },
          ""};
}

PreflightCheck check_output_writable(const std::string& directory, bool must_be_empty) {
  return {"output_writable", [directory, must_be_empty] {
            std::error_code ec;
            if (fs::exists(directory, ec) && !fs::is_directory(directory, ec)) {
              return PreflightOutcome::fail(fmt::format("{} exists and is not a directory", directory));
            }
            if (must_be_empty && fs::is_directory(directory, ec) && !fs::is_empty(directory, ec)) {
              return PreflightOutcome::fail(fmt::format("{} exists and is not empty (a run directory holds one run; "
                                                        "give a new directory)", directory));
            }
            try {
              create_output_directories(directory);  // removed again if the command is refused
            } catch (const fs::filesystem_error& e) {
              return PreflightOutcome::fail(fmt::format("cannot create {}: {}", directory, e.code().message()));
            }
            // access(W_OK) says yes to root on read-only mounts; creating a file is the real test.
            const fs::path probe = fs::path(directory) / fmt::format(".caliber-write-probe-{}", getpid());
            const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0) return PreflightOutcome::fail(fmt::format("cannot create a file in {}: {}", directory, std::strerror(errno)));
            ::close(fd);
            fs::remove(probe, ec);
            return PreflightOutcome::pass(directory);
          },
          ""};
}

std::vector<PreflightCheck> measurement_preflight_checks(BackendKind backend, int device_index,
                                                         const std::vector<Contract>& contracts,
                                                         bool allow_shared_device, DeviceProbe& probe,
                                                         SharedLibraries& libs) {
  std::vector<PreflightCheck> checks;
  // The host is always there, its device index is a usage question, and it is shared with every
  // process by nature: the device checks are for real devices.
  if (backend != BackendKind::host) {
    checks.push_back(check_device_visible(backend, device_index));
    checks.push_back(check_device_exclusive(
        [backend, device_index] { return list_devices(backend).at(static_cast<std::size_t>(device_index)); }, probe,
        allow_shared_device));
  }
  for (PreflightCheck& c : checks_for_contract_libraries(contracts, libs)) checks.push_back(std::move(c));
  return checks;
}

}  // namespace caliber
