// The run identity as JSON (run_identity.json): kept apart from caliber/run_identity.h so that
// the public API (caliber/caliber.h) does not pull in a JSON library.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "caliber/run_identity.h"

namespace caliber {

nlohmann::json to_json(const RunIdentity& identity);
// Strict: every field present, known schema version and kind, enums known. InputError names
// file and field.
RunIdentity run_identity_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace caliber
