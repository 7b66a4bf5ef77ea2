// libpq, PostgreSQL's client library, loaded on first use with dlopen: only a postgresql://
// history needs it, so caliber runs where it is not installed (a GPU machine with no Debian
// packages) and says, when a server history is asked for, that libpq is not available and why.
#pragma once

#include <libpq-fe.h>

namespace caliber::history {

struct LibPq {
  decltype(&::PQconnectdb) PQconnectdb = nullptr;
  decltype(&::PQstatus) PQstatus = nullptr;
  decltype(&::PQerrorMessage) PQerrorMessage = nullptr;
  decltype(&::PQfinish) PQfinish = nullptr;
  decltype(&::PQsetNoticeProcessor) PQsetNoticeProcessor = nullptr;
  decltype(&::PQexec) PQexec = nullptr;
  decltype(&::PQresultStatus) PQresultStatus = nullptr;
  decltype(&::PQresultErrorMessage) PQresultErrorMessage = nullptr;
  decltype(&::PQclear) PQclear = nullptr;
  decltype(&::PQsendQueryParams) PQsendQueryParams = nullptr;
  decltype(&::PQsetSingleRowMode) PQsetSingleRowMode = nullptr;
  decltype(&::PQgetResult) PQgetResult = nullptr;
  decltype(&::PQnfields) PQnfields = nullptr;
  decltype(&::PQgetisnull) PQgetisnull = nullptr;
  decltype(&::PQgetvalue) PQgetvalue = nullptr;
  decltype(&::PQgetlength) PQgetlength = nullptr;
};

// The loaded library (libpq.so.5), once per process. Throws UsageError saying that PostgreSQL
// histories need libpq and what dlopen said, when it cannot be loaded or lacks a function.
const LibPq& libpq();

}  // namespace caliber::history
