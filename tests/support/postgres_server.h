// A real PostgreSQL server for the history tests: Debian's postgresql package, an unprivileged
// cluster in a temporary directory, reachable only on a Unix socket in that directory. Started
// once per test process on first use, stopped when the process exits. Tests skip (and show as
// skipped) when the server binaries are not installed; scripts/setup.sh installs them, so CI runs
// them.
#pragma once

#include <glob.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "support/run_cli.h"

namespace caliber::testing_support {

class PostgresServer {
 public:
  // The server, started on first call; null with *why set when it cannot run here.
  static PostgresServer* instance(std::string* why) {
    static std::string failure;
    static std::unique_ptr<PostgresServer> server = start(failure);
    if (!server && why) *why = failure;
    return server.get();
  }
  ~PostgresServer() {
    run_as_owner(bin_ + "/pg_ctl -D " + dir_ + "/data -m immediate -w stop >/dev/null 2>&1");
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // A URL to a fresh, empty database of its own.
  std::string fresh_database(const std::string& name) {
    const std::string db = name + "_" + std::to_string(::getpid()) + "_" + std::to_string(++databases_);
    run_as_owner(bin_ + "/dropdb -h " + dir_ + " -U caliber --if-exists " + db + " >/dev/null 2>&1");
    const CliRun r = run_cli_command(owner_prefix() + bin_ + "/createdb -h " + dir_ + " -U caliber " + db);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return url(db);
  }
  std::string url(const std::string& db) const { return "postgresql:///" + db + "?host=" + dir_ + "&user=caliber"; }

 private:
  static std::string server_bin() {
    glob_t g{};
    std::string bin;
    if (::glob("/usr/lib/postgresql/*/bin/initdb", 0, nullptr, &g) == 0 && g.gl_pathc > 0) {
      bin = std::filesystem::path(g.gl_pathv[g.gl_pathc - 1]).parent_path().string();  // the newest
    }
    globfree(&g);
    return bin;
  }

  // initdb and the server refuse to run as root: as root they run as `nobody`.
  static std::string owner_prefix() { return ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""; }
  static int run_as_owner(const std::string& cmd) { return run_cli_command(owner_prefix() + cmd).exit_code; }

  static std::unique_ptr<PostgresServer> start(std::string& why) {
    auto s = std::unique_ptr<PostgresServer>(new PostgresServer);
    s->bin_ = server_bin();
    if (s->bin_.empty()) {
      why = "PostgreSQL server binaries not installed (/usr/lib/postgresql/*/bin; Debian package postgresql)";
      return nullptr;
    }
    s->dir_ = "/tmp/caliber-pg-" + std::to_string(::getpid());
    std::filesystem::remove_all(s->dir_);
    std::filesystem::create_directories(s->dir_);
    if (::geteuid() == 0 && ::chown(s->dir_.c_str(), 65534, 65534) != 0) {
      why = "cannot hand " + s->dir_ + " to nobody";
      return nullptr;
    }
    const CliRun init = run_cli_command(owner_prefix() + s->bin_ + "/initdb -D " + s->dir_ + "/data -U caliber " +
                                        "--auth=trust --no-sync -E UTF8 --locale=C.UTF-8 >/dev/null");
    if (init.exit_code != 0) {
      why = "initdb failed: " + init.err;
      return nullptr;
    }
    const CliRun up = run_cli_command(owner_prefix() + s->bin_ + "/pg_ctl -D " + s->dir_ + "/data -l " + s->dir_ +
                                      "/log -w -o \"-k " + s->dir_ + " -c listen_addresses='' -c fsync=off\" start" +
                                      " >/dev/null");
    if (up.exit_code != 0) {
      why = "the server did not start: " + up.err;
      return nullptr;
    }
    return s;
  }

  PostgresServer() = default;
  std::string bin_, dir_;
  int databases_ = 0;
};

// In a test body: the server, or GTEST_SKIP with why it cannot run.
#define CALIBER_REQUIRE_POSTGRES(server)                                        \
  std::string postgres_why_;                                                    \
  auto* server = ::caliber::testing_support::PostgresServer::instance(&postgres_why_); \
  if (!server) GTEST_SKIP() << postgres_why_

}  // namespace caliber::testing_support
