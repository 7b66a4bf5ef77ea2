#include "compare/row_matching.h"

#include <map>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::compare {
namespace {

std::string field_of(const CompareRow& row, const char* field) {
  return row.origin.empty() ? std::string(field) : row.origin + "." + field;
}

}  // namespace

void require_unique_rows(const std::vector<CompareRow>& rows, const std::string& file) {
  std::map<std::string, const CompareRow*> seen;
  for (const CompareRow& row : rows) {
    const auto [it, inserted] = seen.emplace(row.key(), &row);
    if (!inserted) {
      const CompareRow& first = *it->second;
      const std::string where = first.line > 0 ? fmt::format("line {}", first.line) : first.origin;
      throw InputError(file, row.line, field_of(row, "name"),
                       fmt::format("duplicate row {} (first at {})", row.label(), where));
    }
  }
}

std::vector<RowPair> match_rows(const std::vector<CompareRow>& baseline,
                                const std::vector<CompareRow>& current) {
  std::map<std::string, std::size_t> current_by_key;
  for (std::size_t i = 0; i < current.size(); ++i) current_by_key.emplace(current[i].key(), i);
  std::vector<bool> current_used(current.size(), false);
  std::vector<std::optional<std::size_t>> partner(baseline.size());
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    if (auto it = current_by_key.find(baseline[i].key()); it != current_by_key.end()) {
      partner[i] = it->second;
      current_used[it->second] = true;
    }
  }
  // Second pass: one unpaired row on each side with the same name and params.
  std::map<std::string, std::vector<std::size_t>> loose_baseline, loose_current;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    if (!partner[i]) loose_baseline[baseline[i].base_key()].push_back(i);
  }
  for (std::size_t i = 0; i < current.size(); ++i) {
    if (!current_used[i]) loose_current[current[i].base_key()].push_back(i);
  }
  for (const auto& [base_key, b] : loose_baseline) {
    const auto it = loose_current.find(base_key);
    if (b.size() == 1 && it != loose_current.end() && it->second.size() == 1) {
      partner[b.front()] = it->second.front();
      current_used[it->second.front()] = true;
    }
  }
  std::vector<RowPair> pairs;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    RowPair p;
    p.baseline = baseline[i];
    if (partner[i]) p.current = current[*partner[i]];
    pairs.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < current.size(); ++i) {
    if (!current_used[i]) pairs.push_back(RowPair{std::nullopt, current[i]});
  }
  return pairs;
}

void check_runner_trust(const std::vector<CompareRow>& rows, const std::string& file,
                        const std::string& arch) {
  for (const CompareRow& row : rows) {
    const std::string field = row.arch_field.empty() ? field_of(row, "arch") : row.arch_field;
    if (row.arch_assumed || row.arch.empty()) {
      throw InputError(file, row.line, field,
                       fmt::format("runner trust: {} records no architecture, --arch {} needs every "
                                   "row to report it (--assume-arch is a declaration, not a report)",
                                   row.label(), arch));
    }
    if (row.arch != arch) {
      throw InputError(file, row.line, field,
                       fmt::format("runner trust: {} reports architecture {}, expected {} (--arch)",
                                   row.label(), row.arch, arch));
    }
  }
}

}  // namespace caliber::compare
