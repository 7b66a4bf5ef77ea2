// The cell command: a template the user gives (or the multi-shape runner's default) with
// placeholders for what differs between sides and cells (docs/ab.md, "Cells" and "Sides").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace caliber {

// One side of an A/B. The forms: two builds (binary), two plugin libraries (plugin, or a matrix
// whose entrypoint differs), two values of an environment switch (env). They can be combined.
struct AbSide {
  char name = 'A';
  std::string binary;  // {binary}
  std::string plugin;  // {plugin} = "path/libfoo.so:symbol"; {plugin_path}, {plugin_symbol}
  std::string matrix;  // {matrix}
  std::vector<std::pair<std::string, std::string>> env;  // set in the cell's environment
};

// Values that differ per cell.
struct CellValues {
  std::string op;      // {op}
  std::string out;     // {out}: the cell's directory
  std::string ledger;  // {ledger}
  int round = 0;       // {round}
  std::uint64_t seed = 0;  // {seed}: the A/B's seed (the same in every cell: same inputs)
};

// caliber run (the multi-shape runner) as a cell: every option here is one of `caliber run`'s
// (tests/ab/test_cell_command.cpp parses the expanded command with caliber run's own options). The
// backend is run's default (auto: cuda when a GPU is visible); add --backend host, sampling options
// or --allow-shared-device with --cell-command.
inline constexpr const char* kDefaultCellCommand =
    "{binary} run --op {op} --shape-ledger {ledger} --baseline-matrix {matrix} --seed {seed} --out {out}";

// POSIX shell single-quoting: abc -> 'abc', it's -> 'it'\''s'.
std::string shell_quote(const std::string& value);

// The {names} a template uses, in order of first use. ${VAR} is left to the shell. Throws
// UsageError on an unknown or unterminated placeholder.
std::vector<std::string> cell_placeholders(const std::string& tmpl);

// The command for one cell: every {name} replaced by its shell-quoted value. Throws UsageError
// naming a placeholder that has no value for this side.
std::string expand_cell_command(const std::string& tmpl, const AbSide& side, const CellValues& values);

// Refuses side settings the template would ignore (the sides would not differ as the user
// thinks), a template without {out}, and {ledger} without a ledger. UsageError names the option.
// (A placeholder a side cannot fill is refused when the cells are planned: expand_cell_command.)
void validate_cell_template(const std::string& tmpl, const AbSide& a, const AbSide& b, bool have_ledger);

}  // namespace caliber
