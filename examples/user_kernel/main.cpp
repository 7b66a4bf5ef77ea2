// Measures saxpy on the default device under its default contract and prints the result table.
#include <iostream>

#include <caliber/result_table.h>

#include "user_kernel/saxpy.h"

int main() {
  try {
    auto backend = caliber::open_backend(caliber::default_backend_kind());
    caliber::Contract contract = caliber::default_contract(backend->kind());
    const caliber::Result r = example::measure_saxpy(*backend, 1 << 24, contract);
    caliber::write_results_table(std::cout, {r});
    return 0;
  } catch (const caliber::Error& e) {
    std::cerr << "example_measure_saxpy: " << e.what() << '\n';
    return 1;
  }
}
