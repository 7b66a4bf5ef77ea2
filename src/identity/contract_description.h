// Contracts as ordered key=value pairs (every field of core/contract_fields.h that applies, in its
// order): the canonical text of the `contracts` caliber field; its differences are reported per
// field ("contracts[kernel_only].schedule: A=graph, B=per_iter").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "caliber/run_identity.h"

namespace caliber {

// "kernel_only{backend=cuda,quantity=device_time,instrument=event,...}; eager{...}", roles sorted.
std::string describe_contracts(const std::vector<NamedContract>& contracts);

}  // namespace caliber
