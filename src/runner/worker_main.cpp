// The measuring worker from its command line (runner/worker_main.h).
#include "runner/worker_main.h"

#include <algorithm>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/one_line.h"
#include "runner/run_cli_options.h"
#include "runner/worker.h"

namespace caliber::runner {

RunOptions parse_worker_options(const std::vector<std::string>& args) {
  CLI::App app{"caliber's measuring worker"};
  RunOptions options;
  add_worker_options(&app, options);
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw UsageError(fmt::format("the worker's options: {}", e.what()));
  }
  return options;
}

int worker_main(const std::vector<std::string>& args) {
  // Exit codes as caliber's CLI: 2 usage or input, 1 anything else.
  const auto fail = [](const std::string& what, int code) {
    std::cerr << "caliber worker: error: " << one_line(what) << '\n';
    return code;
  };
  try {
    return run_worker(parse_worker_options(args));
  } catch (const UsageError& e) {
    return fail(e.what(), 2);
  } catch (const InputError& e) {
    return fail(e.what(), 2);
  } catch (const ContractError& e) {
    return fail(e.what(), 2);
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
}

}  // namespace caliber::runner
