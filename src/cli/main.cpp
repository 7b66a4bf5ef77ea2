// caliber: GPU and CPU kernel benchmarks whose every number carries its contract.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "caliber/config.h"
#include "caliber/errors.h"
#include "cli/command.h"

namespace caliber::cli {

std::vector<CommandRegistration>& command_registry() {
  static std::vector<CommandRegistration> registry;
  return registry;
}

}  // namespace caliber::cli

int main(int argc, char** argv) {
  using namespace caliber;
  using namespace caliber::cli;
  // A reader that goes away (caliber ... | head) ends the program quietly: writes fail with EPIPE.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{"caliber: GPU and CPU kernel benchmarks whose every number carries its contract"};
  app.set_version_flag("--version", std::string(CALIBER_VERSION) + " (" + CALIBER_GIT_REVISION + ", " +
                                        CALIBER_BUILD_TYPE + ")");
  app.require_subcommand(1);
  app.fallthrough(false);
  int exit_code = kExitOk;
  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const auto& a, const auto& b) { return a.order < b.order; });
  for (const auto& r : registry) r.setup(app, exit_code);

  const std::string prog = "caliber";
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << prog << ": error: " << e.what() << " (see --help)\n";
    return kExitUsage;
  } catch (const UsageError& e) {
    std::cerr << prog << ": error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const ContractError& e) {
    std::cerr << prog << ": error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const InputError& e) {
    std::cerr << prog << ": error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const PreflightError& e) {
    std::cerr << e.what() << '\n';  // the line is the contract: PREFLIGHT_FAILED check=<name>: ...
    return kExitPreflight;
  } catch (const CaliberMismatchError& e) {
    std::cerr << prog << ": refused: " << e.what() << '\n';
    return kExitCaliberMismatch;
  } catch (const DeviceError& e) {
    std::cerr << prog << ": measurement failed: " << e.what() << '\n';
    return kExitFailed;
  } catch (const IntegrityError& e) {
    std::cerr << prog << ": integrity check failed, no number reported: " << e.what() << '\n';
    return kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << prog << ": failed: " << e.what() << '\n';
    return kExitFailed;
  }
  std::cout.flush();
  return exit_code;
}
