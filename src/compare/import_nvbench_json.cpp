// nvbench JSON -> comparable rows.
//
// Format: nvbench's json_printer, JSON format version 1.x (meta.version.json; documented in
// nvbench's docs/json_output.md). One row per benchmark state:
//   name    = benchmarks[i].name
//   params  = the state's axis_values ({name, type, value}; int64/float64 values are strings)
//             plus "device" (the device id, so multi-device runs stay distinct)
//   arch    = "sm_" + devices[device].sm_version / 10 (caliber's spelling: sm_90)
//   value   = summary "nv/cold/time/gpu/mean" (seconds) in microseconds: nvbench's cold
//             measurement (L2 flush, blocking kernel, CUDA events around each call, sync),
//             recorded as instrument event, schedule isolated, cache cold, statistic mean
//   samples = the --jsonbin sidecar named by summary "nv/json/bin:nv/cold/sample_times"
//             (`filename`, `size` float32 little-endian seconds), resolved relative to the JSON
//             file's directory, then as written
//   status  = skipped (with skip_reason) when is_skipped
// The stopping rule (min_samples, min_time, max_noise, timeout of the state) is the iteration
// field, so runs with different nvbench settings are refused as different contracts. Batch
// (hot) and CPU-only timings are not imported: like nvbench_compare.py, the gate reads the cold
// GPU time.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "compare/importers.h"
#include "core/input_file.h"
#include "core/json_fields.h"
#include "core/json_line_index.h"

namespace caliber::compare {
namespace {

using nlohmann::json;

constexpr const char* kColdMeanTag = "nv/cold/time/gpu/mean";
constexpr const char* kColdSizeTag = "nv/cold/sample_size";
constexpr const char* kColdSamplesTag = "nv/json/bin:nv/cold/sample_times";

// nvbench writes int64/float64 values as strings ("0.0010034"); older writers used numbers.
double nv_number(const JsonFields& f, const std::string& key) {
  const json& v = f.get(key);
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) f.fail(key, fmt::format("expected a number or a numeric string, got {}", v.type_name()));
  const auto x = parse_decimal(v.get<std::string>());
  if (!x) f.fail(key, fmt::format("expected a number, got '{}'", v.get<std::string>()));
  return *x;
}

// An int64 value (axis values, sizes, counts): a whole number that fits, written as a number or
// a numeric string. "1e30" or "2.5" would not survive a cast to int64.
std::int64_t nv_integer(const JsonFields& f, const std::string& key) {
  const double v = nv_number(f, key);
  // 2^63 is exactly representable; every double below it that is whole fits int64.
  if (!(std::trunc(v) == v && v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {
    f.fail(key, fmt::format("expected a whole number within int64, got {}", f.get(key).dump()));
  }
  return static_cast<std::int64_t>(v);
}

// The named values of a summary's "data" array: {name -> entry}.
std::map<std::string, JsonFields> summary_data(const JsonFields& summary) {
  std::map<std::string, JsonFields> out;
  if (!summary.has("data")) return out;
  const json& data = summary.array("data");
  for (std::size_t i = 0; i < data.size(); ++i) {
    JsonFields d(data[i], summary.file(), 0, summary.field_name(fmt::format("data[{}]", i)));
    out.emplace(d.str("name"), d);
  }
  return out;
}

std::vector<double> read_sample_sidecar(const JsonFields& entry_filename, const std::string& filename,
                                        std::int64_t size, const std::string& json_file) {
  namespace fs = std::filesystem;
  fs::path path = filename;
  std::error_code ec;
  if (path.is_relative()) {
    const fs::path beside = fs::path(json_file).parent_path() / path;
    if (fs::exists(beside, ec)) path = beside;
  }
  std::string bytes;
  try {
    bytes = read_input_bytes(path.string(), kMaxBinaryInputBytes);
  } catch (const InputError& e) {
    entry_filename.fail("value", fmt::format("sample file '{}' cannot be read: {}", path.string(), e.reason()));
  }
  // Four bytes per sample: the size is checked against the file before anything is allocated.
  const std::uint64_t have = bytes.size() / 4;
  if (bytes.size() % 4 != 0 || have != static_cast<std::uint64_t>(size)) {
    entry_filename.fail("value", fmt::format("sample file '{}' holds {} bytes, not {} float32 values ({} bytes)",
                                             path.string(), bytes.size(), size,
                                             static_cast<std::uint64_t>(size) * 4));
  }
  std::vector<double> samples_us;
  samples_us.reserve(static_cast<std::size_t>(size));
  for (std::int64_t i = 0; i < size; ++i) {
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.data()) + 4 * i;
    const std::uint32_t bits = static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8) |
                               (static_cast<std::uint32_t>(b[2]) << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
    float seconds;
    std::memcpy(&seconds, &bits, 4);
    if (!std::isfinite(seconds) || seconds < 0) {
      entry_filename.fail("value", fmt::format("sample file '{}': sample {} is {}", path.string(), i, seconds));
    }
    samples_us.push_back(static_cast<double>(seconds) * 1e6);
  }
  return samples_us;
}

std::string stopping_rule(const JsonFields& state) {
  std::string out = "nvbench";
  const char* sep = ":";
  for (const char* key : {"min_samples", "min_time", "max_noise", "timeout"}) {
    if (!state.has(key) || state.get(key).is_null()) continue;
    out += fmt::format("{}{}={}", sep, key, state.get(key).dump());
    sep = ",";
  }
  return out;
}

// Only nvbench's JSON format 1.x is read (its "meta.version.json").
void check_format_version(const JsonFields& root) {
  if (!root.has("meta")) {
    root.fail("meta", "missing: nvbench JSON before format version 1.0 is not supported "
                      "(re-run the benchmark with a current nvbench)");
  }
  const JsonFields json_version = root.object("meta").object("version").object("json");
  const std::int64_t major = json_version.integer("major");
  if (major != 1) {
    json_version.fail("major", fmt::format("unsupported nvbench JSON format version {} (this caliber "
                                           "reads 1.x)", major));
  }
}

struct NvDevice {
  std::string arch, name;
  std::string field;  // where the architecture came from
};

// The "devices" array, by id.
std::map<std::int64_t, NvDevice> nv_devices(const JsonFields& root, const std::string& file) {
  std::map<std::int64_t, NvDevice> devices;
  const json& dev_list = root.array("devices");
  for (std::size_t i = 0; i < dev_list.size(); ++i) {
    const JsonFields d(dev_list[i], file, 0, fmt::format("devices[{}]", i));
    const std::int64_t sm = d.integer("sm_version");
    devices[d.integer("id")] = NvDevice{fmt::format("sm_{}", sm / 10), d.str("name"), d.field_name("sm_version")};
  }
  return devices;
}

// A state's "axis_values" as the row's parameters.
void read_axis_values(const JsonFields& st, const std::string& file, CompareRow& row) {
  if (!st.has("axis_values") || st.get("axis_values").is_null()) return;
  const json& axes = st.array("axis_values");
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const JsonFields ax(axes[a], file, 0, st.field_name(fmt::format("axis_values[{}]", a)));
    const std::string axis = ax.str("name");
    const std::string type = ax.str("type");
    if (type == "int64") {
      row.params[axis] = nv_integer(ax, "value");
    } else if (type == "float64") {
      row.params[axis] = nv_number(ax, "value");
    } else if (type == "string" || type == "type") {
      row.params[axis] = ax.str("value");
    } else {
      ax.fail("type", fmt::format("unknown axis value type '{}' (expected int64|float64|string|type)", type));
    }
  }
}

// The cold measurement's summaries: its mean (seconds) and sample count, and its samples from the
// sidecar file nvbench wrote, when it did.
void read_cold_summaries(const JsonFields& st, const std::string& file, CompareRow& row) {
  if (!st.has("summaries") || st.get("summaries").is_null()) return;
  const json& summaries = st.array("summaries");
  std::optional<std::pair<std::string, std::int64_t>> sidecar;
  std::optional<JsonFields> sidecar_entry;
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    const JsonFields sum(summaries[i], file, 0, st.field_name(fmt::format("summaries[{}]", i)));
    const std::string tag = sum.str("tag");
    if (tag != kColdMeanTag && tag != kColdSizeTag && tag != kColdSamplesTag) continue;
    const auto data = summary_data(sum);
    if (tag == kColdSamplesTag) {
      // No filename: nvbench could not write the sidecar; the samples are unavailable.
      if (!data.count("filename")) continue;
      if (!data.count("size")) sum.fail("data", "sample file entry without \"size\"");
      const std::int64_t size = nv_integer(data.at("size"), "value");
      if (size < 0) data.at("size").fail("value", "must be >= 0");
      sidecar = std::make_pair(data.at("filename").str("value"), size);
      sidecar_entry.emplace(data.at("filename"));
      continue;
    }
    if (!data.count("value")) sum.fail("data", "no \"value\" entry");
    const double v = nv_number(data.at("value"), "value");
    if (tag == kColdMeanTag) {
      if (!std::isfinite(v * 1e6) || v < 0) {
        data.at("value").fail("value", fmt::format("not a duration: {}", v));
      }
      row.value_us = v * 1e6;  // seconds -> microseconds
    } else {
      row.n = nv_integer(data.at("value"), "value");
      if (row.n < 0) data.at("value").fail("value", "must be >= 0");
    }
  }
  if (sidecar) row.samples_us = read_sample_sidecar(*sidecar_entry, sidecar->first, sidecar->second, file);
}

// One state of a benchmark as a row: its device, parameters, contract (nvbench's cold
// measurement: events around isolated calls with the cache flushed, the mean) and value.
CompareRow state_row(const JsonFields& st, const std::string& name, const std::string& origin, long line,
                     const std::map<std::int64_t, NvDevice>& devices, const std::string& file) {
  CompareRow row;
  row.name = name;
  row.origin = origin;
  row.line = line;
  const std::int64_t device = st.integer("device");
  const auto dev = devices.find(device);
  if (dev == devices.end()) st.fail("device", fmt::format("no device with id {} in \"devices\"", device));
  row.arch = dev->second.arch;
  row.arch_field = dev->second.field;
  row.device_name = dev->second.name;
  row.params["device"] = device;
  read_axis_values(st, file, row);
  ContractFields& k = row.contract;
  k["backend"] = "cuda";
  k["quantity"] = "device_time";
  k["instrument"] = "event";
  k["schedule"] = "isolated";
  k["cache"] = "cold";
  k["statistic"] = "mean";
  k["iterations"] = stopping_rule(st);
  if (st.boolean("is_skipped")) {
    row.status = RowStatus::skipped;
    row.status_detail = st.opt_str("skip_reason").value_or("");
  }
  read_cold_summaries(st, file, row);
  return row;
}

}  // namespace

std::vector<CompareRow> import_nvbench_json(const json& doc, const std::string& text, const std::string& file) {
  const JsonLineIndex index(text);
  return with_json_lines(text, file, [&] {
    const JsonFields root(doc, file, 0, "");
    check_format_version(root);
    const std::map<std::int64_t, NvDevice> devices = nv_devices(root, file);
    std::vector<CompareRow> rows;
    const json& benches = root.array("benchmarks");
    for (std::size_t b = 0; b < benches.size(); ++b) {
      const JsonFields bench(benches[b], file, 0, fmt::format("benchmarks[{}]", b));
      const std::string name = bench.str("name");
      const json& states = bench.array("states");
      for (std::size_t s = 0; s < states.size(); ++s) {
        const JsonFields st(states[s], file, 0, bench.field_name(fmt::format("states[{}]", s)));
        const std::string origin = fmt::format("benchmarks[{}].states[{}]", b, s);
        rows.push_back(state_row(st, name, origin, index.line_of(origin), devices, file));
      }
    }
    return rows;
  });
}

}  // namespace caliber::compare
