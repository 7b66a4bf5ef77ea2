#include "device/device_probe.h"

#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "core/subprocess.h"
#include "device/nvml_library.h"

namespace caliber {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// nvidia-smi is asked for at most this long: it waits on the driver and can hang with it, and a
// preflight must answer rather than wait (docs/preflight.md).
constexpr double kNvidiaSmiTimeoutS = 15;

class SystemDeviceProbe final : public DeviceProbe {
 public:
  ClocksAtStart clocks_at_start(const DeviceInfo& device) override {
    ClocksAtStart c;
    if (device.backend == BackendKind::host) {
      std::ifstream in("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
      long khz = 0;
      if (in >> khz && khz > 0) {
        c.available = true;
        c.source = "sysfs cpufreq";
        c.sm_clock_mhz = static_cast<int>(khz / 1000);
      } else {
        c.reason = "no cpufreq for cpu0 in /sys";
      }
      return c;
    }
    std::string why;
    NvmlLibrary* nvml = this->nvml(&why);
    void* dev = nvml ? nvml->device_by_uuid(device.uuid, &why) : nullptr;
    if (dev && nvml->current_clocks(dev, &c.sm_clock_mhz, &c.mem_clock_mhz, &why)) {
      c.available = true;
      c.source = "nvml";
    } else {
      c.reason = why;
    }
    return c;
  }

  DeviceProcesses other_compute_processes(const DeviceInfo& device) override {
    DeviceProcesses p;
    if (device.backend == BackendKind::host) {
      p.source = "not applicable";
      p.reason = "the host backend shares the CPU with every process on the machine";
      return p;
    }
    std::string nvml_why;
    NvmlLibrary* nvml = this->nvml(&nvml_why);
    void* dev = nvml ? nvml->device_by_uuid(device.uuid, &nvml_why) : nullptr;
    std::vector<DeviceProcess> all;
    if (dev && nvml->compute_processes(dev, &all, &nvml_why)) {
      p.available = true;
      p.source = "nvml";
      for (auto& proc : all) {
        if (proc.pid != static_cast<long>(getpid())) p.processes.push_back(std::move(proc));
      }
      return p;
    }
    // Degrade to nvidia-smi, and say so.
    SubprocessOptions o;
    o.argv = {"nvidia-smi", "--query-compute-apps=gpu_uuid,pid,process_name,used_memory",
              "--format=csv,noheader,nounits"};
    o.capture_stdout = true;
    o.stderr_path = "/dev/null";
    o.timeout_s = kNvidiaSmiTimeoutS;
    o.kill_after_s = 2;
    const SubprocessResult r = run_subprocess(o);
    if (r.exit_code != 0) {
      p.reason = fmt::format("NVML: {}; nvidia-smi: {}", nvml_why,
                             r.timed_out ? fmt::format("timed out after {} s", kNvidiaSmiTimeoutS)
                                         : fmt::format("exit {}", r.exit_code));
      return p;
    }
    int skipped = 0;
    p.processes = parse_nvidia_smi_compute_apps(r.captured_stdout, device.uuid, static_cast<long>(getpid()), &skipped);
    p.available = true;
    p.source = fmt::format("nvidia-smi (NVML: {})", nvml_why);
    if (skipped > 0) p.reason = fmt::format("{} unparsable nvidia-smi line(s) ignored", skipped);
    return p;
  }

 private:
  NvmlLibrary* nvml(std::string* why) {
    if (!tried_) {
      tried_ = true;
      nvml_ = NvmlLibrary::open(system_shared_libraries(), &nvml_reason_);
    }
    if (!nvml_ && why) *why = nvml_reason_;
    return nvml_.get();
  }
  bool tried_ = false;
  std::unique_ptr<NvmlLibrary> nvml_;
  std::string nvml_reason_;
};

}  // namespace

DeviceProbe& system_device_probe() {
  static SystemDeviceProbe probe;
  return probe;
}

std::vector<DeviceProcess> parse_nvidia_smi_compute_apps(const std::string& csv, const std::string& uuid,
                                                         long own_pid, int* skipped_lines) {
  std::vector<DeviceProcess> out;
  int skipped = 0;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty()) continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, ',')) cols.push_back(trim(col));
    if (cols.size() != 4) {
      ++skipped;
      continue;
    }
    DeviceProcess p;
    try {
      std::size_t used = 0;
      p.pid = std::stoll(cols[1], &used);
      if (used != cols[1].size()) throw std::invalid_argument("pid");
    } catch (const std::exception&) {
      ++skipped;
      continue;
    }
    if (cols[0] != uuid || p.pid == own_pid) continue;
    p.name = cols[2];
    try {
      p.used_memory_bytes = std::stoull(cols[3]) << 20;  // MiB with nounits
    } catch (const std::exception&) {
      p.used_memory_bytes = 0;  // "[N/A]" on some systems
    }
    out.push_back(std::move(p));
  }
  if (skipped_lines) *skipped_lines = skipped;
  return out;
}

}  // namespace caliber
