#include "compare/input_identity.h"


#include <fmt/format.h>

#include "caliber/caliber_check.h"
#include "compare/importers.h"

namespace caliber::compare {

std::vector<std::string> check_input_identities(const std::string& baseline, const std::string& current,
                                                bool allow_mismatch, std::ostream& out) {
  const InputFormat formats[] = {detect_compare_input_format(baseline), detect_compare_input_format(current)};
  const std::string* inputs[] = {&baseline, &current};
  std::vector<std::string> notes;
  for (int i = 0; i < 2; ++i) {
    if (written_by_caliber(formats[i])) continue;
    notes.push_back(fmt::format("{} is {}, which records no run identity: the caliber check could not run (each "
                                "row's contract was still checked)",
                                *inputs[i], to_string(formats[i])));
  }
  if (notes.empty()) check_runs_comparable(baseline, current, allow_mismatch, out);
  return notes;
}

}  // namespace caliber::compare
