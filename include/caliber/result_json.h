// Results as JSON: the machine-readable form, with a schema_version and the full contract.
// The schema ships in schemas/results.schema.json.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliber/result.h"

namespace caliber {

// 2: every result carries its integrity record. Version 1 documents are still read; their results
// are unverified (written before caliber recorded what it verified).
inline constexpr int kResultsSchemaVersion = 2;

// Params keep their kinds: integers stay integers, numbers are written in the shortest form that
// reads back to the same double.
nlohmann::json to_json(const Params& params);
nlohmann::json to_json(const ParamValue& value);
nlohmann::json to_json(const Contract& contract);
nlohmann::json to_json(const DeviceInfo& device);
nlohmann::json to_json(const Summary& summary);
nlohmann::json to_json(const TelemetrySummary& telemetry);
nlohmann::json to_json(const TelemetrySample& reading);
nlohmann::json to_json(const KernelStat& kernel);
nlohmann::json to_json(const Integrity& integrity);
nlohmann::json to_json(const Result& result, bool with_samples = true);

// Strict readers. `file` and `path` (e.g. "results[2]") name the place in errors; line is the
// line of the record for line-oriented files (JSONL), 0 when unknown. Missing fields, wrong
// types and unknown enum names throw InputError.
Contract contract_from_json(const nlohmann::json& j, const std::string& file, long line,
                            const std::string& path);
// A JSON object of integers, numbers, texts and booleans (InputError for anything else).
Params params_from_json(const nlohmann::json& j, const std::string& file, long line,
                        const std::string& path);
DeviceInfo device_from_json(const nlohmann::json& j, const std::string& file, long line,
                            const std::string& path);
Result result_from_json(const nlohmann::json& j, const std::string& file, long line,
                        const std::string& path);
// The verdict written with the checks must be the one they make (InputError otherwise).
Integrity integrity_from_json(const nlohmann::json& j, const std::string& file, long line,
                              const std::string& path);

// The results document: {"schema_version", "kind", "generator", "complete", "results": [...]}.
// complete=false marks a file rewritten during a run that has not finished.
void write_results_json(std::ostream& out, const std::vector<Result>& results, bool complete = true,
                        bool with_samples = true);

// Reads a results document written by write_results_json. Throws InputError.
std::vector<Result> read_results_json(const std::string& file);
// The same from the document's text; `file` names it in errors.
std::vector<Result> parse_results_json(const std::string& text, const std::string& file);

}  // namespace caliber
