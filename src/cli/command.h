// Subcommands register themselves here, so adding one is adding one file to src/cli.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace caliber::cli {

// Exit codes of every command (README "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,            // a measurement failed, or a gate found a regression
  kExitUsage = 2,             // invalid usage, contract or input file; nothing written
  kExitPreflight = 3,         // a named preflight check failed before anything was measured
  kExitCaliberMismatch = 4,   // runs of different caliber refused
};

// Adds a subcommand to `root`. The subcommand's callback stores its exit code in `exit_code`;
// errors are thrown (UsageError, ContractError, InputError -> 2; DeviceError -> 1).
using CommandSetup = std::function<void(CLI::App& root, int& exit_code)>;

struct CommandRegistration {
  int order;  // position in --help
  CommandSetup setup;
};

std::vector<CommandRegistration>& command_registry();

struct RegisterCommand {
  RegisterCommand(int order, CommandSetup setup) {
    command_registry().push_back({order, std::move(setup)});
  }
};

}  // namespace caliber::cli
