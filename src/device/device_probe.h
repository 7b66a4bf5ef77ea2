// What the run identity and the preflight ask of the machine about a device: its clocks now and
// the other compute processes on it. Behind an interface so tests inject any answer.
#pragma once

#include <string>
#include <vector>

#include "caliber/device.h"
#include "caliber/run_identity.h"

namespace caliber {

class DeviceProbe {
 public:
  virtual ~DeviceProbe() = default;
  virtual ClocksAtStart clocks_at_start(const DeviceInfo& device) = 0;
  // Compute processes on the device other than this one. On cuda: NVML when it loads, else
  // `nvidia-smi --query-compute-apps` (the source says which and why); on the host: not applicable.
  virtual DeviceProcesses other_compute_processes(const DeviceInfo& device) = 0;
};

// The real machine: NVML (dlopened), nvidia-smi, sysfs.
DeviceProbe& system_device_probe();

// Parses `nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory
// --format=csv,noheader,nounits` output, keeping the rows of `uuid` and dropping `own_pid`.
// used_memory is in MiB. Malformed lines are skipped and counted in *skipped_lines.
std::vector<DeviceProcess> parse_nvidia_smi_compute_apps(const std::string& csv, const std::string& uuid,
                                                         long own_pid, int* skipped_lines);

}  // namespace caliber
