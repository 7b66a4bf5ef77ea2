// A contract as ordered key=value pairs: the canonical text of the `contracts` caliber field, and
// the unit its differences are reported in ("contracts[kernel_only].schedule: A=graph, B=per_iter").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "caliber/run_identity.h"

namespace caliber {

// (key, value) in a fixed order. Keys that only mean something under one schedule or instrument
// (graph_calls, cupti_reduction) appear only there, as in the results JSON.
std::vector<std::pair<std::string, std::string>> contract_fields(const Contract& contract);

// "kernel_only{quantity=device_time,instrument=event,...}; eager{...}", roles sorted.
std::string describe_contracts(const std::vector<NamedContract>& contracts);

}  // namespace caliber
