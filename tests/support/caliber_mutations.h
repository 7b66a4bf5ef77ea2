// One mutation per caliber field of the sample identity, with the exact line its refusal prints.
// Shared by the library test and the CLI test of the refusal.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "caliber/run_identity.h"

namespace caliber::testing_support {

struct Mutation {
  std::string field;  // the caliber field it changes
  std::function<void(RunIdentity&)> apply;
  std::string line;  // the exact !!! line expected
};

inline const std::vector<Mutation>& caliber_mutations() {
  static const std::vector<Mutation> m = {
      {"backend", [](RunIdentity& i) { i.device.backend = BackendKind::host; }, "!!! [caliber] backend: A=cuda, B=host"},
      {"device.name", [](RunIdentity& i) { i.device.name = "NVIDIA H100"; },
       "!!! [caliber] device.name: A=NVIDIA H200, B=NVIDIA H100"},
      {"device.arch", [](RunIdentity& i) { i.device.arch = "sm_89"; }, "!!! [caliber] device.arch: A=sm_90, B=sm_89"},
      {"device.driver_version", [](RunIdentity& i) { i.device.driver_version = "12.8"; },
       "!!! [caliber] device.driver_version: A=13.0, B=12.8"},
      {"device.runtime_version", [](RunIdentity& i) { i.device.runtime_version = "12.4"; },
       "!!! [caliber] device.runtime_version: A=13.0, B=12.4"},
      {"contracts", [](RunIdentity& i) { i.contracts[0].contract.warmup = 3; },
       "!!! [caliber] contracts[kernel_only].warmup: A=10, B=3"},
      {"harness.version", [](RunIdentity& i) { i.harness.version = "0.2.0"; },
       "!!! [caliber] harness.version: A=0.1.0, B=0.2.0"},
      {"harness.build_type", [](RunIdentity& i) { i.harness.build_type = "Debug"; },
       "!!! [caliber] harness.build_type: A=Release, B=Debug"},
      {"inputs.shape_ledger", [](RunIdentity& i) { i.shape_ledger.reset(); },
       "!!! [caliber] inputs.shape_ledger: A=2222222222222222222222222222222222222222222222222222222222222222, "
       "B=<none>"},
  };
  return m;
}

}  // namespace caliber::testing_support
