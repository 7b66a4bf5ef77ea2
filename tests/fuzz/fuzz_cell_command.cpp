// libFuzzer target: the cell-command template of caliber ab and caliber profile
// (ab/cell_command.h). Input: the template. Every placeholder it accepts must expand, and the
// expansion must hold each value only shell-quoted.
#include <cstdlib>
#include <string>

#include "ab/cell_command.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return caliber::fuzz::parse_text(data, size, [](const std::string& tmpl) {
    caliber::AbSide a{'A', "/opt/a b/caliber", "/lib/p.so:sym", "m'x.yaml", {{"K", "v"}}};
    caliber::AbSide b{'B', "/opt/b/caliber", "", "m.yaml", {}};
    caliber::CellValues v{"rmsnorm", "/tmp/out dir", "ledger;rm -rf.jsonl", 3, 42};
    const auto names = caliber::cell_placeholders(tmpl);
    caliber::validate_cell_template(tmpl, a, b, true);
    const std::string cmd = caliber::expand_cell_command(tmpl, a, v);
    // A value with a quote or a space never appears unquoted: only its quoted form may be there.
    for (const std::string& raw : {std::string("ledger;rm -rf.jsonl"), std::string("/opt/a b/caliber")}) {
      const std::string quoted = caliber::shell_quote(raw);
      for (std::size_t at = cmd.find(raw); at != std::string::npos; at = cmd.find(raw, at + 1)) {
        const bool inside_quotes = at > 0 && cmd.compare(at - 1, quoted.size(), quoted) == 0;
        if (!inside_quotes && tmpl.find(raw) == std::string::npos) std::abort();
      }
    }
    (void)names;
  });
}
