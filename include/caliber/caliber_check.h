// The caliber check: which identity fields must match for two runs to be compared, and the
// refusal every comparing command (compare, report --against, ab, screen) runs before it reads a
// single latency. docs/identity.md explains every field and why it is in its class.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliber/run_identity.h"

namespace caliber {

enum class FieldClass {
  caliber,      // must match: a difference changes what the numbers mean
  hazard,       // may differ, but a difference makes a matched caliber less solid: warned about
  informative,  // recorded for the reader; never compared
};
std::string_view to_string(FieldClass c);

struct IdentityField {
  std::string_view name;  // "device.arch", "contracts", ...
  FieldClass field_class;
  std::string_view why;   // what a difference does to the numbers (docs and `caliber identity`)
  // The field's canonical text ("" when the run does not have it).
  std::string (*value)(const RunIdentity&);
  // Hazards only: a warning when the two values make the comparison less solid, else "".
  std::string (*hazard)(const RunIdentity& a, const RunIdentity& b) = nullptr;
};

// THE definition of the identity's fields and their classes, in display order. Everything that
// needs "the caliber columns" (screen.tsv, caliber identity --tsv) derives them from here.
const std::vector<IdentityField>& identity_fields();
std::vector<std::string> caliber_field_names();
std::vector<std::string> caliber_field_values(const RunIdentity& identity);

// One caliber field that differs. For `contracts` the difference is reported per contract field
// ("contracts[kernel_only].schedule").
struct CaliberDifference {
  std::string field;
  std::string a;  // "<missing: reason>" when the identity itself is missing
  std::string b;
};

struct CaliberComparison {
  std::vector<CaliberDifference> differences;  // caliber fields that differ (or missing identities)
  std::vector<std::string> hazards;            // warnings that do not make the runs incomparable
  bool comparable() const { return differences.empty(); }
};

// Compares two identities. A missing identity (nullopt) is a difference named
// "run_identity.json" with the reason given.
CaliberComparison compare_identities(const std::optional<RunIdentity>& a, const std::optional<RunIdentity>& b,
                                     const std::string& why_a_missing = "missing",
                                     const std::string& why_b_missing = "missing");

// Prints every hazard ("warning [caliber] ...") and every difference
// ("!!! [caliber] <field>: A=<x>, B=<y>", with the given labels in place of A and B) to `out`.
void print_caliber_differences(const CaliberComparison& comparison, std::ostream& out,
                               const std::string& label_a = "A", const std::string& label_b = "B");

// Prints every hazard ("warning [caliber] ...") and every difference
// ("!!! [caliber] <field>: A=<x>, B=<y>", with the given labels in place of A and B) to `out`.
// Refuses with CaliberMismatchError (CLI exit 4) when a caliber field differs, unless
// allow_mismatch, in which case it prints that it proceeds anyway and returns.
void require_same_caliber(const CaliberComparison& comparison, bool allow_mismatch, std::ostream& out,
                          const std::string& label_a = "A", const std::string& label_b = "B");

// The whole check for two runs (directories or results files): finds both identities
// (run_identity_path_for), compares, prints, refuses. The hook of every comparing command.
CaliberComparison check_runs_comparable(const std::string& run_a, const std::string& run_b,
                                        bool allow_mismatch, std::ostream& out);

}  // namespace caliber
