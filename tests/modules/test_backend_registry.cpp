// The backend registry: which modules this build has, what each must provide, and that no code
// outside a backend's own folders and the registry names a backend's code.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "modules/backend_module.h"
#include "caliber/errors.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

bool has_module(BackendKind kind) {
  for (const BackendModule& m : backend_modules()) {
    if (m.kind == kind) return true;
  }
  return false;
}

TEST(BackendRegistry, HostComesFirstAndEveryModuleAnswersEveryQuestion) {
  ASSERT_FALSE(backend_modules().empty());
  EXPECT_EQ(backend_modules().front().kind, BackendKind::host);
  std::set<BackendKind> seen;
  for (const BackendModule& m : backend_modules()) {
    SCOPED_TRACE(std::string(to_string(m.kind)));
    EXPECT_TRUE(seen.insert(m.kind).second) << "listed twice";
    EXPECT_TRUE(m.device_count);
    EXPECT_TRUE(m.list_devices);
    EXPECT_TRUE(m.open);
    EXPECT_TRUE(m.instrument_unavailable_reason);
    EXPECT_TRUE(m.builtin_provider_names);
    EXPECT_TRUE(m.make_builtin_provider);
    EXPECT_TRUE(m.builtin_kernels);
    EXPECT_TRUE(m.make_builtin_workload);
    EXPECT_TRUE(m.make_copy_ceiling_workload);
    EXPECT_TRUE(m.make_cache_copy_ceiling_workload);
    EXPECT_TRUE(m.make_matmul_ceiling_workload);
    // A backend that records its device code has profiler ranges too (caliber profile).
    if (m.make_device_code_recorder) EXPECT_TRUE(m.in_profiler_range);
    for (const ops::OpType op : ops::all_op_types()) {
      for (const std::string& name : m.builtin_provider_names(op)) {
        EXPECT_NE(m.make_builtin_provider(op, name), nullptr) << to_string(op) << " " << name;
      }
      EXPECT_EQ(m.make_builtin_provider(op, "no_such_provider"), nullptr);
    }
  }
}

TEST(BackendRegistry, AvailabilityListsEveryKnownBackendOnceAndSaysWhyOneIsNotBuilt) {
  const std::vector<BackendAvailability> all = available_backends();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].kind, BackendKind::host);
  EXPECT_TRUE(all[0].compiled);
  EXPECT_EQ(all[0].device_count, 1);
  EXPECT_EQ(all[1].kind, BackendKind::cuda);
  EXPECT_EQ(all[1].compiled, has_module(BackendKind::cuda));
  if (!all[1].compiled) {
    EXPECT_EQ(all[1].reason, "not built: no CUDA compiler at configure time");
    EXPECT_EQ(all[1].device_count, 0);
    EXPECT_THROW(backend_module(BackendKind::cuda), UsageError);
    try {
      open_backend(BackendKind::cuda, 0);
      ADD_FAILURE() << "opened a backend this build does not have";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), "backend cuda is not available: not built: no CUDA compiler at configure time");
    }
    EXPECT_EQ(instrument_unavailable_reason(BackendKind::cuda, Instrument::event),
              "the cuda backend is not built: no CUDA compiler at configure time");
    EXPECT_TRUE(list_devices(BackendKind::cuda).empty());
  }
}

TEST(BackendRegistry, TheHostModuleHasOneDeviceAndTheWallclockOnly) {
  const BackendModule& host = backend_module(BackendKind::host);
  std::string reason;
  EXPECT_EQ(host.device_count(&reason), 1);
  EXPECT_EQ(host.list_devices().size(), 1u);
  EXPECT_EQ(host.instrument_unavailable_reason(Instrument::wallclock), std::nullopt);
  EXPECT_EQ(host.instrument_unavailable_reason(Instrument::cupti),
            "not applicable: the host backend times host work with the wallclock instrument only (got cupti)");
  try {
    open_backend(BackendKind::host, 1);
    ADD_FAILURE() << "opened host device 1";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--device 1: the host backend has one device, 0");
  }
  EXPECT_EQ(host.builtin_provider_names(ops::OpType::gemm), (std::vector<std::string>{"caliber", "naive", "tuned"}));
  EXPECT_EQ(host.make_builtin_provider(ops::OpType::softmax, "tuned"), nullptr);  // tuned is gemm's only
  EXPECT_FALSE(host.make_device_code_recorder);  // host code is fingerprinted from its library files
}

// A backend's code is reached only through its module: outside its own `cuda/` folders
// (src/backends/cuda, src/providers/cuda, ...) and the registry, no source tests whether the cuda
// backend is built or includes one of its headers.
TEST(BackendRegistry, NoCodeOutsideABackendsFoldersAndTheRegistryNamesTheBackend) {
  const fs::path root(CALIBER_SOURCE_DIR);
  const std::regex in_cuda_folder("(^|/)cuda/");
  const std::regex cuda_include(R"re(#include\s+"[a-z_/]*cuda/[^"]+")re");
  std::vector<std::string> offenders;
  for (const char* top : {"src", "include"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      if (!entry.is_regular_file()) continue;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      if (std::regex_search(rel, in_cuda_folder) || rel == "src/modules/backend_registry.cpp") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string s = text.str();
      if (s.find("CALIBER_WITH_CUDA") != std::string::npos) offenders.push_back(rel + ": CALIBER_WITH_CUDA");
      if (std::regex_search(s, cuda_include)) offenders.push_back(rel + ": includes a cuda/ header");
    }
  }
  EXPECT_TRUE(offenders.empty()) << ::testing::PrintToString(offenders);
}

}  // namespace
}  // namespace caliber
