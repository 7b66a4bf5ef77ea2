// caliber_run_identity_json (include/caliber/c_api.h): the run identity of results measured
// through the C API, collected as caliber bench collects its own (src/identity/collect_run_identity.h),
// so that caliber compare reads them like a bench run's.
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "c_api/c_api_support.h"
#include "caliber/backend.h"
#include "caliber/c_api.h"
#include "caliber/contract.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "caliber/run_identity_json.h"
#include "identity/collect_run_identity.h"

namespace caliber::c_api {
namespace {

using nlohmann::json;

const json* field(const json& request, const char* key, json::value_t type, const char* what) {
  if (!request.contains(key) || request.at(key).is_null()) return nullptr;
  const json& v = request.at(key);
  const bool ok = type == json::value_t::number_integer ? v.is_number_integer() : v.type() == type;
  if (!ok) usage(key, fmt::format("expected {} (got {})", what, v.dump()));
  return &v;
}

// A fresh identity: the device as the backend lists it, its clocks and processes now.
RunIdentity collect(const json& request) {
  const json* backend = field(request, "backend", json::value_t::string, "\"host\" or \"cuda\"");
  if (!backend) usage("backend", "is required (\"host\" or \"cuda\")");
  BackendKind kind{};
  try {
    kind = parse_backend(backend->get<std::string>());
  } catch (const UsageError& e) {
    usage("backend", e.what());
  }
  const json* device = field(request, "device", json::value_t::number_integer, "an integer");
  const std::int64_t index = device ? device->get<std::int64_t>() : 0;
  const std::vector<DeviceInfo> devices = list_devices(kind);
  if (index < 0 || index >= static_cast<std::int64_t>(devices.size())) {
    usage("device", fmt::format("{} has no device {} ({} visible)", to_string(kind), index, devices.size()));
  }
  IdentityRequest r;
  r.device = devices[static_cast<std::size_t>(index)];
  if (const json* harness = field(request, "harness", json::value_t::string, "a file path")) {
    r.harness_executable = harness->get<std::string>();
  }
  return collect_run_identity(r, system_device_probe());
}

// The contracts of the results, one per schedule and cache, as caliber bench records its own.
std::vector<NamedContract> contracts_of(const json& results) {
  std::vector<Contract> contracts;
  for (std::size_t i = 0; i < results.size(); ++i) {
    contracts.push_back(result_from_json(results[i], "(results)", 0, fmt::format("[{}]", i)).contract);
  }
  return contracts_by_schedule_and_cache(contracts);
}

std::string identity(const std::string& request_text) {
  json request;
  try {
    request = json::parse(request_text);
  } catch (const json::exception& e) {
    throw RequestError{"usage", std::string("the request is not JSON: ") + e.what(), {}};
  }
  if (!request.is_object()) throw RequestError{"usage", "the request must be a JSON object", {}};
  for (const auto& [key, value] : request.items()) {
    if (key != "backend" && key != "device" && key != "harness" && key != "start" && key != "results" &&
        key != "outputs") {
      usage(key, "unknown request field");
    }
  }
  const json* start = field(request, "start", json::value_t::object, "a run identity");
  RunIdentity id = start ? run_identity_from_json(*start, "(start)") : collect(request);
  if (const json* results = field(request, "results", json::value_t::array, "a list of results")) {
    id.contracts = contracts_of(*results);
  }
  if (const json* outputs = field(request, "outputs", json::value_t::array, "a list of file names")) {
    id.outputs.clear();
    for (const json& o : *outputs) {
      if (!o.is_string()) usage("outputs", fmt::format("expected file names (got {})", o.dump()));
      id.outputs.push_back(o.get<std::string>());
    }
  }
  return to_json(id).dump(2) + "\n";
}

}  // namespace
}  // namespace caliber::c_api

extern "C" int caliber_run_identity_json(const char* request_json, char** identity_json, char** error_json) {
  if (identity_json) *identity_json = nullptr;
  return caliber::c_api::guarded(error_json, [&] {
    caliber::c_api::set_out(identity_json, caliber::c_api::identity(request_json ? request_json : ""));
  });
}
