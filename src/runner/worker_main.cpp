// The measuring worker from its command line (runner/worker_main.h).
#include "runner/worker_main.h"

#include <algorithm>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "caliber/errors.h"
#include "core/one_line.h"
#include "runner/run_cli_options.h"
#include "runner/worker.h"

namespace caliber::runner {

int worker_main(const std::vector<std::string>& args) {
  CLI::App app{"caliber's measuring worker"};
  RunOptions options;
  add_worker_options(&app, options);
  // Exit codes as caliber's CLI: 2 usage or input, 1 anything else.
  const auto fail = [](const std::string& what, int code) {
    std::cerr << "caliber worker: error: " << one_line(what) << '\n';
    return code;
  };
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
    app.parse(reversed);
    return run_worker(options);
  } catch (const CLI::ParseError& e) {
    return fail(e.what(), 2);
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
