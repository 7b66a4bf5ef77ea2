// The ceilings file: strict reading, atomic update of one device's entry.
#include "io/device_ceilings_file.h"

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "core/json_fields.h"

namespace caliber {
namespace {

using nlohmann::json;
constexpr const char* kKind = "caliber.device_ceilings";

json to_json(const Ceiling& c) {
  if (!c.available) return json{{"available", false}, {"reason", c.reason.empty() ? "not measured" : c.reason}};
  json j = {{"available", true},  {"rate_per_s", c.rate_per_s},       {"unit", c.unit},
            {"method", c.method}, {"work_per_call", c.work_per_call}};
  j["measurement"] = c.measurement ? to_json(*c.measurement, /*with_samples=*/false) : json(nullptr);
  return j;
}

Ceiling ceiling_from_json(const JsonFields& f) {
  Ceiling c;
  c.available = f.boolean("available");
  if (!c.available) {
    f.refuse_unknown({"available", "reason"});
    c.reason = f.str("reason");
    if (c.reason.empty()) f.fail("reason", "must say why the ceiling is not available");
    return c;
  }
  f.refuse_unknown({"available", "rate_per_s", "unit", "method", "work_per_call", "measurement"});
  c.rate_per_s = f.number("rate_per_s");
  if (!(c.rate_per_s > 0)) f.fail("rate_per_s", "must be > 0");
  c.unit = f.str("unit");
  if (c.unit != "bytes/s" && c.unit != "flop/s") {
    f.fail("unit", fmt::format("unknown unit '{}' (expected bytes/s|flop/s)", c.unit));
  }
  c.method = f.str("method");
  const std::int64_t work = f.integer("work_per_call");
  if (work < 0) f.fail("work_per_call", "must be >= 0");
  c.work_per_call = static_cast<std::uint64_t>(work);
  if (!f.get("measurement").is_null()) {
    c.measurement = result_from_json(f.get("measurement"), f.file(), f.line(), f.field_name("measurement"));
  }
  return c;
}

json to_json(const DeviceCeilings& d) {
  json matmul = json::object();
  for (const auto& [dtype, c] : d.matmul) matmul[dtype] = to_json(c);
  return json{{"device_key", d.device_key},
              {"device", to_json(d.device)},
              {"measured_at", d.measured_at},
              {"harness_version", d.harness_version},
              {"memory_bandwidth", to_json(d.memory_bandwidth)},
              {"cache_bandwidth", to_json(d.cache_bandwidth)},
              {"matmul", matmul}};
}

DeviceCeilings entry_from_json(const JsonFields& f) {
  f.refuse_unknown({"device_key", "device", "measured_at", "harness_version", "memory_bandwidth", "cache_bandwidth",
                     "matmul"});
  DeviceCeilings d;
  d.device_key = f.str("device_key");
  d.device = device_from_json(f.get("device"), f.file(), f.line(), f.field_name("device"));
  if (device_key(d.device) != d.device_key) {
    f.fail("device_key", fmt::format("'{}' does not match the device ({})", d.device_key, device_key(d.device)));
  }
  d.measured_at = f.str("measured_at");
  d.harness_version = f.str("harness_version");
  d.memory_bandwidth = ceiling_from_json(f.object("memory_bandwidth"));
  if (d.memory_bandwidth.available && d.memory_bandwidth.unit != "bytes/s") {
    f.fail("memory_bandwidth.unit", "must be bytes/s");
  }
  if (f.has("cache_bandwidth")) {
    d.cache_bandwidth = ceiling_from_json(f.object("cache_bandwidth"));
    if (d.cache_bandwidth.available && d.cache_bandwidth.unit != "bytes/s") {
      f.fail("cache_bandwidth.unit", "must be bytes/s");
    }
  } else {
    d.cache_bandwidth.reason = "not calibrated (the ceilings file predates the cache-bandwidth ceiling; caliber "
                               "calibrate --force measures it)";
  }
  const JsonFields matmul = f.object("matmul");
  for (const auto& [dtype, value] : matmul.json().items()) {
    Ceiling c = ceiling_from_json(matmul.object(dtype));
    if (c.available && c.unit != "flop/s") matmul.fail(dtype + ".unit", "must be flop/s");
    d.matmul[dtype] = std::move(c);
  }
  return d;
}

std::vector<DeviceCeilings> parse(const std::string& text, const std::string& file) {
  const json doc = parse_json_document(text, file);
  JsonFields f(doc, file, 0, "");
  f.refuse_unknown({"schema_version", "kind", "devices"});
  if (f.integer("schema_version") != kDeviceCeilingsSchemaVersion) {
    f.fail("schema_version", fmt::format("unsupported schema version {} (this caliber reads {})",
                                         f.integer("schema_version"), kDeviceCeilingsSchemaVersion));
  }
  if (f.str("kind") != kKind) f.fail("kind", fmt::format("expected '{}'", kKind));
  const json& devices = f.array("devices");
  std::vector<DeviceCeilings> out;
  std::set<std::string> keys;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::string path = fmt::format("devices[{}]", i);
    out.push_back(entry_from_json(JsonFields(devices[i], file, 0, path)));
    if (!keys.insert(out.back().device_key).second) {
      throw InputError(file, 0, path + ".device_key", "duplicate device_key " + out.back().device_key);
    }
  }
  return out;
}

}  // namespace

std::vector<DeviceCeilings> read_device_ceilings(const std::string& file) {
  return parse(read_text_file(file), file);
}

void store_device_ceilings(const std::string& file, const DeviceCeilings& entry) {
  std::vector<DeviceCeilings> all;
  if (std::filesystem::exists(file)) all = read_device_ceilings(file);
  bool replaced = false;
  for (auto& d : all) {
    if (d.device_key == entry.device_key) {
      d = entry;
      replaced = true;
    }
  }
  if (!replaced) all.push_back(entry);
  json devices = json::array();
  for (const auto& d : all) devices.push_back(to_json(d));
  const json doc = {{"schema_version", kDeviceCeilingsSchemaVersion}, {"kind", kKind}, {"devices", devices}};
  const std::filesystem::path parent = std::filesystem::path(file).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_file_atomically(file, [&](std::ostream& out) { out << doc.dump(2) << '\n'; });
}

std::string default_ceilings_path() {
  if (const char* env = std::getenv("CALIBER_CEILINGS"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/caliber/device_ceilings.json";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.cache/caliber/device_ceilings.json";
  }
  return "device_ceilings.json";
}

std::optional<DeviceCeilings> calibrated_ceilings(const std::optional<std::string>& file, const DeviceInfo& device) {
  const std::string path = file.value_or(default_ceilings_path());
  if (!file && !std::filesystem::exists(path)) return std::nullopt;
  const std::vector<DeviceCeilings> all = read_device_ceilings(path);
  const DeviceCeilings* mine = find_device_ceilings(all, device_key(device));
  if (!mine) return std::nullopt;
  return *mine;
}

}  // namespace caliber
