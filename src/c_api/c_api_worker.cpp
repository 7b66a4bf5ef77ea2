// The C API of Python providers (include/caliber/c_api.h): registered plugin entries and the
// measuring worker run in the calling process.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "caliber/c_api.h"
#include "providers/registered_entries.h"
#include "runner/worker_main.h"
#include "runner/worker_token.h"

extern "C" {

int caliber_register_provider_entry(const char* file, const char* name, void* entry) {
  if (!file || !name || !entry) return CALIBER_ERROR;
  try {
    caliber::providers::register_provider_entry(file, name, entry);
    return CALIBER_OK;
  } catch (const std::exception&) {
    return CALIBER_ERROR;
  }
}

int caliber_set_worker_token(const char* token) {
  if (!token || !*token) return CALIBER_ERROR;
  caliber::runner::preset_worker_token(token);
  return CALIBER_OK;
}

int caliber_run_worker(int argc, const char* const* argv) {
  try {
    std::vector<std::string> args;
    for (int i = 0; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
    const int code = caliber::runner::worker_main(args);
    std::cout.flush();
    return code;
  } catch (const std::exception& e) {
    std::cerr << "caliber worker: error: " << e.what() << '\n';
    return 1;
  }
}

}  // extern "C"
