// Loading libpq (history/libpq_library.h).
#include "history/libpq_library.h"

#include <dlfcn.h>

#include <string>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::history {
namespace {

constexpr const char* kLibPq = "libpq.so.5";

template <typename Fn>
void resolve(void* handle, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(::dlsym(handle, name));
  if (!fn) throw UsageError(fmt::format("PostgreSQL history: {} lacks {}", kLibPq, name));
}

LibPq load() {
  void* handle = ::dlopen(kLibPq, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    throw UsageError(fmt::format("PostgreSQL history is not available: {} (Debian package libpq5) cannot be "
                                 "loaded: {}; an SQLite history file needs no library",
                                 kLibPq, why ? why : "unknown error"));
  }
  LibPq pq;
#define CALIBER_RESOLVE(f) resolve(handle, pq.f, #f)
  CALIBER_RESOLVE(PQconnectdb);
  CALIBER_RESOLVE(PQstatus);
  CALIBER_RESOLVE(PQerrorMessage);
  CALIBER_RESOLVE(PQfinish);
  CALIBER_RESOLVE(PQsetNoticeProcessor);
  CALIBER_RESOLVE(PQexec);
  CALIBER_RESOLVE(PQresultStatus);
  CALIBER_RESOLVE(PQresultErrorMessage);
  CALIBER_RESOLVE(PQclear);
  CALIBER_RESOLVE(PQsendQueryParams);
  CALIBER_RESOLVE(PQsetSingleRowMode);
  CALIBER_RESOLVE(PQgetResult);
  CALIBER_RESOLVE(PQnfields);
  CALIBER_RESOLVE(PQgetisnull);
  CALIBER_RESOLVE(PQgetvalue);
  CALIBER_RESOLVE(PQgetlength);
#undef CALIBER_RESOLVE
  return pq;  // the handle stays open for the process's life
}

}  // namespace

const LibPq& libpq() {
  static const LibPq pq = load();
  return pq;
}

}  // namespace caliber::history
