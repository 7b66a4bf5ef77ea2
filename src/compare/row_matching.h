// Pairs the rows of a baseline file with the rows of a current file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compare/compare_row.h"

namespace caliber::compare {

// A baseline row, a current row, or both.
struct RowPair {
  std::optional<CompareRow> baseline;
  std::optional<CompareRow> current;
};

// Throws InputError (file, the row's line, field "<origin>.name") when two rows of one file have
// the same key(): the comparison would have to pick one of them silently.
void require_unique_rows(const std::vector<CompareRow>& rows, const std::string& file);

// Pairs rows by key() (name, params and measurement variant). A baseline row left unpaired is
// then paired with the only unpaired current row of the same base_key() (name and params) when
// there is exactly one on each side: that is one measurement whose contract changed, and the gate
// reports it as a contract difference, not as a missing row and a new one.
// Order: baseline order, then current rows that have no baseline, in current order.
std::vector<RowPair> match_rows(const std::vector<CompareRow>& baseline,
                                const std::vector<CompareRow>& current);

// Runner trust (--arch): every row of the file must report `arch`. Throws InputError naming the
// file, the first offending row's line and its field before anything is compared.
void check_runner_trust(const std::vector<CompareRow>& rows, const std::string& file,
                        const std::string& arch);

}  // namespace caliber::compare
