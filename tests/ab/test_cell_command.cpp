#include "ab/cell_command.h"

#include <gtest/gtest.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(CellCommand, ShellQuotesEveryValue) {
  EXPECT_EQ(shell_quote("plain"), "'plain'");
  EXPECT_EQ(shell_quote("it's $HOME; rm -rf /"), "'it'\\''s $HOME; rm -rf /'");
}

TEST(CellCommand, ExpandsPlaceholdersPerSideAndCell) {
  AbSide b{'B', "/builds/b/caliber", "/p/lib v2.so:entry", "/m/b.yaml", {{"SWITCH", "1"}}};
  CellValues v{"rmsnorm", "/runs/x/rmsnorm/r3_B", "/l/ledger.jsonl", 3, 42};
  EXPECT_EQ(expand_cell_command("{binary} run --op {op} --shape-ledger {ledger} --baseline-matrix {matrix} --out {out} "
                                "--seed {seed} # {side}{round} {plugin_path} {plugin_symbol} {plugin}",
                                b, v),
            "'/builds/b/caliber' run --op 'rmsnorm' --shape-ledger '/l/ledger.jsonl' --baseline-matrix '/m/b.yaml' "
            "--out '/runs/x/rmsnorm/r3_B' --seed '42' # 'B''3' '/p/lib v2.so' 'entry' '/p/lib v2.so:entry'");
  // ${VAR} belongs to the shell.
  EXPECT_EQ(expand_cell_command("x --iters ${ITERS:-40} --out {out}", b, v),
            "x --iters ${ITERS:-40} --out '/runs/x/rmsnorm/r3_B'");
}

TEST(CellCommand, RefusesUnknownEmptyAndUnusedPlaceholders) {
  AbSide a{'A', "", "", "", {}}, b{'B', "", "", "", {}};
  CellValues v{"op", "/o", "", 1, 1};
  EXPECT_EQ(usage_error([&] { cell_placeholders("{binary} --out {outdir}"); }),
            "--cell-command: unknown placeholder {outdir} (known: {binary}, {plugin}, {plugin_path}, {plugin_symbol}, "
            "{matrix}, {ledger}, {op}, {out}, {round}, {side}, {seed})");
  EXPECT_EQ(usage_error([&] { cell_placeholders("run {out"); }), "--cell-command: unterminated '{' at column 5");
  EXPECT_EQ(usage_error([&] { expand_cell_command("{binary} --out {out}", a, v); }),
            "--cell-command uses {binary} but side A has no value for it");
  EXPECT_EQ(usage_error([&] { validate_cell_template("{binary} --json x.json", a, b, false); }),
            "--cell-command must use {out}: each cell writes its results to its own directory");
  AbSide with_plugin{'B', "", "/lib.so:f", "", {}};
  EXPECT_EQ(usage_error([&] { validate_cell_template("run --out {out}", a, with_plugin, false); }),
            "--b-plugin is given but --cell-command has no {plugin}: the sides would not differ in it");
  AbSide with_binary{'A', "/x", "", "", {}};
  EXPECT_EQ(usage_error([&] { validate_cell_template("run --out {out}", with_binary, b, false); }),
            "--a-binary is given but --cell-command has no {binary}: the sides would not differ in it");
  EXPECT_EQ(usage_error([&] { validate_cell_template("run --ledger {ledger} --out {out}", a, b, false); }),
            "--cell-command uses {ledger}: give --shape-ledger");
  EXPECT_EQ(usage_error([&] { validate_cell_template(kDefaultCellCommand, with_binary, with_binary, true); }), "no error");
}

}  // namespace
}  // namespace caliber
