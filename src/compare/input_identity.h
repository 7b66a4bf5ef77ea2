// The caliber check of `caliber compare`: the run identities of the two inputs are compared
// before a single latency is read (docs/gate.md, "Run identity first"; docs/identity.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace caliber::compare {

// Inputs written by caliber (bench JSON/CSV, run results) carry a run identity: both identities
// are compared with check_runs_comparable, which prints `!!! [caliber] <field>: A=<x>, B=<y>` per
// difference (a missing identity is a difference) to `out` and throws CaliberMismatchError
// (exit 4) unless allow_mismatch. An nvbench or google-benchmark input records no identity: the
// check cannot run, and the returned notes say so (the report carries them); the rows' contracts
// are still checked one by one. Input errors (a file that cannot be read or recognized) are
// InputError, before anything is compared.
std::vector<std::string> check_input_identities(const std::string& baseline, const std::string& current,
                                                bool allow_mismatch, std::ostream& out);

}  // namespace caliber::compare
