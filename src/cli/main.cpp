// caliber: GPU and CPU kernel benchmarks whose every number carries its contract.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "caliber/config.h"
#include "caliber/errors.h"
#include "cli/command.h"
#include "cli/number_options.h"
#include "core/created_directories.h"
#include "core/input_file.h"
#include "core/one_line.h"

namespace caliber::cli {

std::vector<CommandRegistration>& command_registry() {
  static std::vector<CommandRegistration> registry;
  return registry;
}

namespace {

// The first argument, when it is meant as a command and is not one: CLI11 would say "A
// subcommand is required", which reads as if none was given.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string name = argv[1];
  std::string known;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->check_name(name)) return std::nullopt;
    if (!sub->get_group().empty()) known += (known.empty() ? "" : ", ") + sub->get_name();
  }
  return fmt::format("unknown command '{}' (commands: {})", name, known);
}

// Every argument must be text: options end up in messages and JSON files, which hold UTF-8 only.
std::optional<std::string> argument_not_text(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (first_invalid_text_byte(argv[i])) {
      return fmt::format("argument {} ('{}') is not valid UTF-8 text", i, argv[i]);
    }
  }
  return std::nullopt;
}

// The commands, in their registered order, with their options' strict number parsing.
void set_up_app(CLI::App& app, int& exit_code) {
  app.set_version_flag("--version", std::string(CALIBER_VERSION) + " (" + CALIBER_GIT_REVISION + ", " +
                                        CALIBER_BUILD_TYPE + ")");
  app.require_subcommand(1);
  app.fallthrough(false);
  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const auto& a, const auto& b) { return a.order < b.order; });
  for (const auto& r : registry) r.setup(app, exit_code);
  require_strict_numbers(app);
}

// Every message is one line naming what was wrong; text from the input is escaped in it.
void print_error(const std::string& what, const char* label = "error") {
  std::cerr << "caliber: " << label << ": " << one_line(what) << '\n';
}

// Parses the arguments and runs the command they name. Nothing when it ran to its end (its exit
// code is the command's); else the exit code of the help or version it printed, or of the error.
std::optional<int> parse_and_run(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(std::string(e.what()) + " (see --help)");
    return kExitUsage;
  } catch (const UsageError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const ContractError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const InputError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const PreflightError& e) {
    // The lines are the contract: PREFLIGHT_FAILED check=<name>: <detail>, one per failure.
    for (const auto& f : e.failures()) std::cerr << "PREFLIGHT_FAILED check=" << f.check << ": " << one_line(f.detail) << '\n';
    return kExitPreflight;
  } catch (const CaliberMismatchError& e) {
    print_error(e.what(), "refused");
    return kExitCaliberMismatch;
  } catch (const DeviceError& e) {
    print_error(e.what(), "measurement failed");
    return kExitFailed;
  } catch (const IntegrityError& e) {
    std::cerr << "caliber: integrity check failed, no number reported: " << e.what() << '\n';
    return kExitFailed;
  } catch (const std::exception& e) {
    print_error(e.what(), "failed");
    return kExitFailed;
  }
  return std::nullopt;
}

}  // namespace
}  // namespace caliber::cli

int main(int argc, char** argv) {
  using namespace caliber;
  using namespace caliber::cli;
  // A reader that goes away (caliber ... | head) ends the program quietly: writes fail with EPIPE.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{"caliber: GPU and CPU kernel benchmarks whose every number carries its contract"};
  int exit_code = kExitOk;
  set_up_app(app, exit_code);
  if (const auto why = argument_not_text(argc, argv)) {
    print_error(*why);
    return kExitUsage;
  }
  if (const auto why = unknown_command(app, argc, argv)) {
    print_error(*why + " (see --help)");
    return kExitUsage;
  }
  if (const std::optional<int> code = parse_and_run(app, argc, argv)) {
    if (*code != kExitOk) remove_empty_created_directories();
    return *code;
  }
  std::cout.flush();
  if (exit_code != kExitOk) remove_empty_created_directories();
  return exit_code;
}
