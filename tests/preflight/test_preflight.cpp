// Every named preflight check fails with its name (failures injected through interfaces), the
// failure line is exact, and a command exits 3 before anything is measured.
#include "preflight/preflight.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "caliber/errors.h"
#include "support/run_cli.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

// A dynamic loader with a fixed catalogue: library name -> exported symbols.
class FakeLibraries final : public SharedLibraries {
 public:
  std::map<std::string, std::set<std::string>> catalogue;
  int open_handles = 0;
  void* open(const std::string& name, std::string* error) override {
    const auto it = catalogue.find(name);
    if (it == catalogue.end()) {
      *error = name + ": cannot open shared object file: No such file or directory";
      return nullptr;
    }
    ++open_handles;
    return const_cast<std::string*>(&it->first);
  }
  void* symbol(void* handle, const std::string& name, std::string* error) override {
    const auto& lib = *static_cast<std::string*>(handle);
    if (catalogue.at(lib).count(name)) return handle;
    *error = lib + ": undefined symbol: " + name;
    return nullptr;
  }
  void close(void*) override { --open_handles; }
};

class FakeProbe final : public DeviceProbe {
 public:
  DeviceProcesses processes;
  ClocksAtStart clocks_at_start(const DeviceInfo&) override { return {}; }
  DeviceProcesses other_compute_processes(const DeviceInfo&) override { return processes; }
};

DeviceInfo gpu0() {
  DeviceInfo d;
  d.backend = BackendKind::cuda;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-0";
  return d;
}

// The one failure line of running `check` alone.
std::string failure_of(const PreflightCheck& check) {
  std::ostringstream log;
  try {
    run_preflight({check}, log);
  } catch (const PreflightError& e) {
    EXPECT_EQ(e.failures().size(), 1u);
    return e.what();
  }
  return "passed";
}

TEST(Preflight, DeviceVisibleNamesWhatIsMissing) {
  auto none = [] { return std::vector<BackendAvailability>{{BackendKind::cuda, true, 0, "no CUDA device visible"}}; };
  EXPECT_EQ(failure_of(check_device_visible(BackendKind::cuda, 0, none)),
            "PREFLIGHT_FAILED check=device_visible: backend cuda sees no device: no CUDA device visible");
  auto two = [] { return std::vector<BackendAvailability>{{BackendKind::cuda, true, 2, ""}}; };
  EXPECT_EQ(failure_of(check_device_visible(BackendKind::cuda, 5, two)),
            "PREFLIGHT_FAILED check=device_visible: device 5 does not exist (backend cuda has devices 0..1)");
  auto unbuilt = [] { return std::vector<BackendAvailability>{{BackendKind::cuda, false, 0, "not built"}}; };
  EXPECT_EQ(failure_of(check_device_visible(BackendKind::cuda, 0, unbuilt)),
            "PREFLIGHT_FAILED check=device_visible: backend cuda is not in this build: not built");
  EXPECT_EQ(failure_of(check_device_visible(BackendKind::cuda, 1, two)), "passed");
}

TEST(Preflight, DeviceExclusiveFailsOnAnotherProcessAndDegradesClearly) {
  FakeProbe probe;
  probe.processes = {true, "nvml", "", {{4242, "python3", 0}, {77, "", 0}}};
  EXPECT_EQ(failure_of(check_device_exclusive(gpu0, probe, false)),
            "PREFLIGHT_FAILED check=device_exclusive: 2 other compute process(es) on device 0 (nvml): pid 4242 "
            "(python3), pid 77; they compete for the device while it is timed (--allow-shared-device to measure "
            "anyway)");
  // Allowed: a warning, printed, no failure.
  std::ostringstream log;
  run_preflight({check_device_exclusive(gpu0, probe, true)}, log);
  EXPECT_EQ(log.str().rfind("warning [preflight] check=device_exclusive: 2 other compute process(es)", 0), 0u) << log.str();
  // Neither NVML nor nvidia-smi: said so, as a warning.
  probe.processes = {false, "", "NVML: libnvidia-ml.so.1 cannot be loaded; nvidia-smi: exit 127", {}};
  log.str("");
  run_preflight({check_device_exclusive(gpu0, probe, false)}, log);
  EXPECT_EQ(log.str(),
            "warning [preflight] check=device_exclusive: could not list the processes on NVIDIA H200 GPU-0: NVML: "
            "libnvidia-ml.so.1 cannot be loaded; nvidia-smi: exit 127; another process may share the device unseen\n");
  probe.processes = {true, "nvidia-smi (NVML: missing)", "", {}};
  EXPECT_EQ(failure_of(check_device_exclusive(gpu0, probe, false)), "passed");
}

TEST(Preflight, AFailedPrerequisiteSkipsItsDependents) {
  FakeProbe probe;
  bool device_asked = false;
  auto none = [] { return std::vector<BackendAvailability>{{BackendKind::cuda, true, 0, "none"}}; };
  try {
    std::ostringstream log;
    run_preflight({check_device_visible(BackendKind::cuda, 0, none),
                   check_device_exclusive([&] { device_asked = true; return gpu0(); }, probe, false)},
                  log);
    FAIL();
  } catch (const PreflightError& e) {
    ASSERT_EQ(e.failures().size(), 1u);
    EXPECT_EQ(e.failures()[0].check, "device_visible");
  }
  EXPECT_FALSE(device_asked);
}

TEST(Preflight, ContractLibrariesAreCheckedOnlyWhenTheContractNeedsThem) {
  FakeLibraries libs;
  Contract plain = default_contract(BackendKind::cuda);
  EXPECT_TRUE(checks_for_contract_libraries({plain}, libs).empty());
  Contract cupti = plain;
  cupti.instrument = Instrument::cupti;
  Contract strict = plain;
  strict.throttle_policy = ThrottlePolicy::fail;
  const auto checks = checks_for_contract_libraries({cupti, strict}, libs);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(failure_of(checks[0]),
            "PREFLIGHT_FAILED check=cupti_loadable: libcupti.so.13 or libcupti.so cannot be loaded (libcupti.so.13: "
            "cannot open shared object file: No such file or directory; libcupti.so: cannot open shared object file: "
            "No such file or directory), and the contract's instrument is cupti");
  EXPECT_EQ(failure_of(checks[1]).rfind("PREFLIGHT_FAILED check=nvml_loadable: libnvidia-ml.so.1 cannot be loaded", 0), 0u);
  libs.catalogue["libcupti.so"] = {};
  libs.catalogue["libnvidia-ml.so.1"] = {};
  EXPECT_EQ(failure_of(checks[0]), "passed");
  EXPECT_EQ(failure_of(checks[1]), "passed");
  EXPECT_EQ(libs.open_handles, 0);
  // A host contract's throttle policy needs no NVML.
  Contract host = default_contract(BackendKind::host);
  host.throttle_policy = ThrottlePolicy::fail;
  EXPECT_TRUE(checks_for_contract_libraries({host}, libs).empty());
}

TEST(Preflight, PluginLoadsExportsItsSymbolAndMatchesTheAbi) {
  const std::string lib = testing_support::temp_path("libplugin.so");
  std::ofstream(lib) << "not really a library";  // exists; the fake loader decides what it contains
  FakeLibraries libs;
  PluginSpec p{"candidate", lib, "caliber_provider_v1", {}, ""};
  EXPECT_EQ(failure_of(check_plugin_loads({"candidate", lib + ".missing", "s", {}, ""}, libs)),
            "PREFLIGHT_FAILED check=plugin_loads: provider candidate (" + lib + ".missing:s): " + lib +
                ".missing does not exist");
  EXPECT_EQ(failure_of(check_plugin_loads(p, libs)),
            "PREFLIGHT_FAILED check=plugin_loads: provider candidate (" + lib + ":caliber_provider_v1): does not "
            "load: " + lib + ": cannot open shared object file: No such file or directory");
  libs.catalogue[lib] = {"something_else"};
  EXPECT_EQ(failure_of(check_plugin_loads(p, libs)),
            "PREFLIGHT_FAILED check=plugin_loads: provider candidate (" + lib + ":caliber_provider_v1): does not "
            "export caliber_provider_v1: " + lib + ": undefined symbol: caliber_provider_v1");
  libs.catalogue[lib] = {"caliber_provider_v1"};
  std::ostringstream log;
  const auto records = run_preflight({check_plugin_loads(p, libs)}, log);
  EXPECT_EQ(records.at(0).outcome.detail.substr(records.at(0).outcome.detail.find(": loads")),
            ": loads, exports caliber_provider_v1; ABI version not checked");
  p.abi_check = [](SharedLibraries&, void*, void*) {
    return std::string("was built for plugin ABI version 2; this caliber speaks version 1");
  };
  EXPECT_EQ(failure_of(check_plugin_loads(p, libs)),
            "PREFLIGHT_FAILED check=plugin_loads: provider candidate (" + lib + ":caliber_provider_v1): was "
            "built for plugin ABI version 2; this caliber speaks version 1");
  // Where the plugin was named comes first (caliber run: the matrix's file, line and field).
  p.origin = "m.yaml:9: field 'providers.candidate.entrypoint': ";
  EXPECT_EQ(failure_of(check_plugin_loads(p, libs)),
            "PREFLIGHT_FAILED check=plugin_loads: m.yaml:9: field 'providers.candidate.entrypoint': provider "
            "candidate (" + lib + ":caliber_provider_v1): was built for plugin ABI version 2; this caliber speaks "
            "version 1");
  EXPECT_EQ(libs.open_handles, 0);
}

TEST(Preflight, InputFilesExistAndValidate) {
  const std::string ledger = testing_support::temp_path("ledger.jsonl");
  std::ofstream(ledger) << "{\"shape_id\": 1}\n";
  EXPECT_EQ(failure_of(check_input_file({"shape ledger", ledger + ".nope", {}})),
            "PREFLIGHT_FAILED check=input_valid: shape ledger " + ledger + ".nope does not exist");
  EXPECT_EQ(failure_of(check_input_file({"shape ledger", ::testing::TempDir(), {}})),
            "PREFLIGHT_FAILED check=input_valid: shape ledger " + ::testing::TempDir() + " is a directory");
  const auto validator = [](const std::string& path) {
    throw InputError(path, 1, "shape_id", "expected a string, got number");
  };
  EXPECT_EQ(failure_of(check_input_file({"shape ledger", ledger, validator})),
            "PREFLIGHT_FAILED check=input_valid: shape ledger " + ledger + " is invalid: " + ledger +
                ":1: field 'shape_id': expected a string, got number");
  EXPECT_EQ(failure_of(check_input_file({"shape ledger", ledger, [](const std::string&) {}})), "passed");
}

TEST(Preflight, OutputDirectoryMustBeCreatableAndWritable) {
  const std::string file = testing_support::temp_path("a-regular-file");
  std::ofstream(file) << "x";
  EXPECT_EQ(failure_of(check_output_writable(file, false)),
            "PREFLIGHT_FAILED check=output_writable: " + file + " exists and is not a directory");
  EXPECT_EQ(failure_of(check_output_writable(file + "/sub", false)).rfind(
                "PREFLIGHT_FAILED check=output_writable: cannot create " + file + "/sub: ", 0),
            0u);
  const std::string dir = testing_support::temp_path("out-dir");
  fs::remove_all(dir);
  EXPECT_EQ(failure_of(check_output_writable(dir, true)), "passed");  // created
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::is_empty(dir));  // the write probe is gone
  std::ofstream(dir + "/status.tsv") << "x";
  EXPECT_EQ(failure_of(check_output_writable(dir, true)),
            "PREFLIGHT_FAILED check=output_writable: " + dir + " exists and is not empty (a run directory holds one "
            "run; give a new directory)");
  EXPECT_EQ(failure_of(check_output_writable(dir, false)), "passed");
}

TEST(Preflight, EveryFailureIsReportedNotOnlyTheFirst) {
  try {
    std::ostringstream log;
    run_preflight({check_input_file({"shape ledger", "/nonexistent/l.jsonl", {}}),
                   check_input_file({"baseline matrix", "/nonexistent/m.yaml", {}})},
                  log);
    FAIL();
  } catch (const PreflightError& e) {
    EXPECT_EQ(std::string(e.what()),
              "PREFLIGHT_FAILED check=input_valid: shape ledger /nonexistent/l.jsonl does not exist\n"
              "PREFLIGHT_FAILED check=input_valid: baseline matrix /nonexistent/m.yaml does not exist");
  }
}

}  // namespace
}  // namespace caliber
