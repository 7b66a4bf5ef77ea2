#include "c_api/c_api_support.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "caliber/c_api.h"
#include "caliber/errors.h"

namespace caliber::c_api {
namespace {

std::string error_text(const RequestError& e) {
  return nlohmann::json{{"kind", e.kind}, {"message", e.message}, {"fields", e.fields}}.dump();
}

}  // namespace

void usage(const std::string& field, const std::string& message) {
  throw RequestError{"usage", fmt::format("{}: {}", field, message), {field}};
}

char* copy_string(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

void set_out(char** out, const std::string& s) {
  if (out) *out = copy_string(s);
}

int guarded(char** error_json, const std::function<void()>& body) {
  if (error_json) *error_json = nullptr;
  try {
    body();
    return CALIBER_OK;
  } catch (const RequestError& e) {
    set_out(error_json, error_text(e));
  } catch (const CallableFailed& e) {
    set_out(error_json, error_text({"callable", e.message, {}}));
  } catch (const ContractError& e) {
    set_out(error_json, error_text({"contract", e.what(), {}}));
  } catch (const UsageError& e) {
    set_out(error_json, error_text({"usage", e.what(), {}}));
  } catch (const IntegrityError& e) {
    set_out(error_json, error_text({"integrity", fmt::format("{}: {}", e.check(), e.what()), {}}));
  } catch (const InputError& e) {
    set_out(error_json, error_text({"usage", e.what(), {}}));
  } catch (const DeviceError& e) {
    set_out(error_json, error_text({"device", e.what(), {}}));
  } catch (const std::bad_alloc&) {
    set_out(error_json, error_text({"device", "out of host memory", {}}));
  } catch (const std::exception& e) {
    set_out(error_json, error_text({"internal", e.what(), {}}));
  } catch (...) {
    set_out(error_json, error_text({"internal", "unknown exception", {}}));
  }
  return CALIBER_ERROR;
}

}  // namespace caliber::c_api
