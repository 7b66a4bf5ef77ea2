// Which results a run command left in its directory ({out}), as caliber bisect reads them.
#pragma once

#include <string>

namespace caliber::bisect {

// The input to give read_compare_input: `dir` itself when it is a caliber run directory (it holds
// benchmark_results.jsonl), else the one file directly in it whose content is a format caliber
// compare reads. Run-identity files (run_identity.json, *.run_identity.json) are the results'
// sidecars, never results. Throws Error naming `dir` when there is no such file, or several.
std::string find_results_input(const std::string& dir);

}  // namespace caliber::bisect
