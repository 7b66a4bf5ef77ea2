// What every function of the C API (include/caliber/c_api.h) shares: strings the caller frees,
// and exceptions turned into error_json, so that no C++ exception crosses the ABI.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace caliber::c_api {

// An error with the request fields it is about; becomes error_json.
struct RequestError {
  std::string kind;  // "usage" | "contract" | "integrity" | "device" | "callable" | "internal"
  std::string message;
  std::vector<std::string> fields;
};

// A function of the caller returned a failure: its caller knows why.
struct CallableFailed {
  std::string message;
};

// A usage error about one request field.
[[noreturn]] void usage(const std::string& field, const std::string& message);

// `s` in memory the caller releases with caliber_free_string (malloc); NULL when out of memory.
char* copy_string(const std::string& s);

// *out = a copy of `s`, when out is not NULL.
void set_out(char** out, const std::string& s);

// Runs `body`; every exception becomes *error_json ({"kind", "message", "fields"}) and
// CALIBER_ERROR, else CALIBER_OK.
int guarded(char** error_json, const std::function<void()>& body);

}  // namespace caliber::c_api
