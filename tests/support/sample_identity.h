// A literal, fully populated run identity for the identity and caliber-check tests.
#pragma once

#include "caliber/run_identity.h"
#include "support/sample_results.h"

namespace caliber::testing_support {

inline RunIdentity sample_identity() {
  RunIdentity id;
  id.run_id = "20261129T120000Z-0000abcd";
  id.created_at = "2026-11-29T12:00:00Z";
  id.hostname = "h200-box";
  id.command = {"caliber", "run", "--op", "rmsnorm"};
  id.outputs = {"benchmark_results.jsonl", "benchmark_results.csv"};
  id.device = sample_result().device;  // NVIDIA H200, sm_90, driver and runtime 13.0
  Contract kernel_only = default_contract(BackendKind::cuda);
  kernel_only.schedule = Schedule::graph;
  kernel_only.cache = CachePolicy::warm;
  Contract eager = default_contract(BackendKind::cuda);
  id.contracts = {{"kernel_only", kernel_only}, {"eager", eager}};
  id.clocks_at_start = {true, "nvml", "", 1980, 3201};
  id.device_processes_at_start = {true, "nvml", "", {}};
  id.harness = {"0.1.0", "54b6e0439c09", "Release", "GNU 12.2.0",
                "b5e436ab6e8f1763b02eb19faa393097cc6e4b657a000a2684d1148013eb7999"};
  id.providers = {{"candidate", "/opt/plugins/libcandidate.so",
                   "1111111111111111111111111111111111111111111111111111111111111111"}};
  id.shape_ledger = HashedFile{"shape_ledger", "/work/shape_ledger.jsonl",
                               "2222222222222222222222222222222222222222222222222222222222222222"};
  id.baseline_matrix = HashedFile{"baseline_matrix", "/work/baseline_matrix.yaml",
                                  "3333333333333333333333333333333333333333333333333333333333333333"};
  return id;
}

}  // namespace caliber::testing_support
