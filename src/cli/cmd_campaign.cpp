// caliber campaign verify|reaccount: re-checks a frozen campaign's receipts and seal, and
// re-derives a sealed campaign's tables under rules that only demote (docs/campaigns.md).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "campaign/reaccount.h"
#include "campaign/receipts.h"
#include "cli/command.h"

namespace caliber::cli {
namespace {

const RegisterCommand registration{42, [](CLI::App& root, int& exit_code) {
  auto* cmd = root.add_subcommand("campaign", "Verify a campaign's receipts and seal, or re-account a sealed campaign "
                                              "(docs/campaigns.md)");
  cmd->require_subcommand(1);

  auto dir = std::make_shared<std::string>();
  auto* verify = cmd->add_subcommand("verify", "Check the manifest, every receipt against its row, and the seal");
  verify->add_option("DIR", *dir, "The campaign directory (caliber batch --out)")->required();
  verify->callback([dir, &exit_code] {
    const campaign::Verification v = campaign::verify_campaign(*dir);
    std::size_t failures = 0;
    for (const std::string& p : v.problems) {
      std::cout << "!!! " << p << '\n';
      failures += p.rfind("warning:", 0) == 0 ? 0 : 1;
    }
    std::cout << fmt::format("verify: {} receipt(s) checked, {}, {} problem(s)\n", v.receipts_checked,
                             v.sealed ? "sealed" : "not sealed", failures);
    exit_code = failures == 0 ? kExitOk : kExitFailed;
  });

  auto o = std::make_shared<campaign::ReaccountOptions>();
  auto* re = cmd->add_subcommand("reaccount", "Re-derive a sealed campaign's tables into a new directory; rules only "
                                              "demote (exit 1 when a row was demoted)");
  re->add_option("DIR", o->campaign_dir, "The sealed campaign directory")->required();
  re->add_option("--out", o->out, "A new directory outside the campaign")->required();
  re->add_option("--ceilings", o->ceilings, "Calibrated device ceilings (caliber calibrate) refining the theoretical ones of the physical rule");
  re->add_flag("--require-verified", o->require_verified, "Demote ok rows whose integrity verdict is not verified");
  re->callback([o, &exit_code] { exit_code = campaign::reaccount_campaign(*o, std::cout); });
}};

}  // namespace
}  // namespace caliber::cli
