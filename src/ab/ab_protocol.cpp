#include "ab/ab_protocol.h"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "ab/ab_report.h"
#include "caliber/atomic_file.h"
#include "caliber/caliber_check.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#include "core/sha256.h"
#include "core/tee_stream.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string file_or_text_hash(const std::string& path) {
  std::error_code ec;
  if (!path.empty() && fs::is_regular_file(path, ec)) return sha256_file_hex(path);
  return "text:" + path;
}

std::string dir_name(const std::string& op) {
  std::string s = op;
  for (char& c : s) {
    if (c == '/' || c == ' ') c = '_';
  }
  return s;
}

json side_json(const AbSide& s) {
  json env = json::object();
  for (const auto& [k, v] : s.env) env[k] = v;
  return {{"binary", s.binary}, {"plugin", s.plugin}, {"matrix", s.matrix}, {"env", env},
          {"signature", side_signature(s)}};
}

std::string short_digest(const CodeFingerprint& f) { return f.digest().substr(0, 12); }

}  // namespace

std::string side_signature(const AbSide& s) {
  std::string material = "binary " + file_or_text_hash(s.binary) + "\n";
  const auto colon = s.plugin.rfind(':');
  const std::string plugin_path = colon == std::string::npos ? s.plugin : s.plugin.substr(0, colon);
  material += "plugin " + file_or_text_hash(plugin_path) + " " +
              (colon == std::string::npos ? "" : s.plugin.substr(colon + 1)) + "\n";
  material += "matrix " + file_or_text_hash(s.matrix) + "\n";
  std::vector<std::string> env;
  for (const auto& [k, v] : s.env) env.push_back(k + "=" + v);
  std::sort(env.begin(), env.end());
  for (const auto& e : env) material += "env " + e + "\n";
  return sha256_hex(material);
}

std::vector<CellSpec> plan_op_cells(const AbPlan& plan, const std::string& op) {
  std::vector<CellSpec> cells;
  const auto orders = round_orders(plan.order, plan.rounds, plan.seed);
  for (int k = 1; k <= plan.rounds; ++k) {
    for (char side : orders[static_cast<std::size_t>(k - 1)]) {
      const AbSide& s = side == 'A' ? plan.a : plan.b;
      CellSpec c;
      c.round = k;
      c.side = side;
      c.op = op;
      c.dir = (fs::path(plan.out_dir) / dir_name(op) / fmt::format("r{}_{}", k, side)).string();
      CellValues v;
      v.op = op;
      v.out = c.dir;
      v.ledger = plan.shape_ledger;
      v.round = k;
      v.seed = plan.seed;
      c.command = expand_cell_command(plan.cell_command, s, v);
      c.env = s.env;
      c.timeout_s = plan.cell_timeout_s;
      c.kill_after_s = plan.kill_after_s;
      cells.push_back(std::move(c));
    }
  }
  return cells;
}

json ab_plan_json(const AbPlan& plan, bool identical_sides) {
  json orders = json::array();
  for (const auto& o : round_orders(plan.order, plan.rounds, plan.seed)) orders.push_back(std::string(o.begin(), o.end()));
  return {{"kind", "caliber.ab_plan"},
          {"schema_version", 1},
          {"ops", plan.ops},
          {"shape_ledger", plan.shape_ledger},
          {"cell_command", plan.cell_command},
          {"rounds", plan.rounds},
          {"order", std::string(to_string(plan.order))},
          {"round_orders", orders},
          {"seed", plan.seed},
          {"cell_timeout_s", plan.cell_timeout_s},
          {"kill_after_s", plan.kill_after_s},
          {"alpha", plan.alpha},
          {"allow_caliber_mismatch", plan.allow_caliber_mismatch},
          {"allow_no_code_diff", plan.allow_no_code_diff},
          {"sides", {{"A", side_json(plan.a)}, {"B", side_json(plan.b)}}},
          {"identical_sides", identical_sides},
          {"harness", {{"version", CALIBER_VERSION}, {"git_revision", CALIBER_GIT_REVISION}}}};
}

void check_cells_comparable(const CellRun& x, const CellRun& y, bool allow_mismatch, std::ostream& out,
                            const std::string& label_x, const std::string& label_y) {
  const CaliberComparison c = compare_identities(x.identity, y.identity, x.identity_missing, y.identity_missing);
  if (!c.comparable() || !c.hazards.empty()) {
    out << fmt::format("[caliber] {} ({}) vs {} ({}):\n", label_x, x.spec.dir, label_y, y.spec.dir);
  }
  require_same_caliber(c, allow_mismatch, out, label_x, label_y);
}

AbRunResult run_ab(const AbPlan& plan, CellRunner& runner, const CellResultsReader& reader, std::ostream& report,
                   std::ostream& progress) {
  // Every cell of every op is planned before the first one runs.
  std::vector<std::vector<CellSpec>> planned;
  for (const std::string& op : plan.ops) planned.push_back(plan_op_cells(plan, op));
  std::error_code ec;
  fs::create_directories(plan.out_dir, ec);
  const bool identical = side_signature(plan.a) == side_signature(plan.b);
  write_file_atomically((fs::path(plan.out_dir) / "ab_plan.json").string(),
                        [&](std::ostream& o) { o << ab_plan_json(plan, identical).dump(2) << '\n'; });
  StatusTsv status((fs::path(plan.out_dir) / "status.tsv").string());

  std::ostringstream copy;
  TeeStream out(report, copy);
  AbRunResult result;
  json report_json = {{"kind", "caliber.ab_report"}, {"schema_version", 1}, {"identical_sides", identical},
                      {"ops", json::array()}};
  std::ostringstream tsv;
  tsv << ab_report_tsv_header() << '\n';
  const auto write_reports = [&] {
    // The three reports are one output: all of them or none.
    const fs::path dir(plan.out_dir);
    write_files_atomically({{(dir / "ab_report.txt").string(), copy.str()},
                            {(dir / "ab_report.tsv").string(), tsv.str()},
                            {(dir / "ab_report.json").string(), report_json.dump(2) + "\n"}});
  };

  try {
    if (identical) {
      out << "== A and B are identical (same binary, plugin and matrix bytes, same environment): this A/B measures "
             "the noise floor ==\n";
    }
    for (std::size_t i = 0; i < plan.ops.size(); ++i) {
      const std::string& op = plan.ops[i];
      AbInput input;
      input.op = op;
      input.rounds_planned = plan.rounds;
      std::vector<CellRun> done;
      bool first_done[2] = {false, false};  // round 1 of A, of B
      bool stopped = false, skipped = false;
      for (const CellSpec& spec : planned[i]) {
        done.push_back(run_logged_cell(spec, plan.rounds, runner, reader, status, progress, "ab"));
        const CellRun& c = done.back();
        if (static_cast<int>(input.rounds.size()) < spec.round) input.rounds.push_back({spec.round, {}, {}});
        (spec.side == 'A' ? input.rounds.back().a : input.rounds.back().b) = c.outcome;
        if (c.outcome.state != CellState::ok) {
          if (c.outcome.state == CellState::timed_out) {
            out << fmt::format("!!! CELL_TIMEOUT {:g}s op={} round={} side={}\n", plan.cell_timeout_s, op, spec.round,
                               spec.side);
          }
          out << fmt::format("!!! {} round {} side {}: {}; the remaining cells of {} are not run\n", op, spec.round,
                             spec.side, c.outcome.note, op);
          stopped = true;
          break;
        }
        if (spec.round == 1) first_done[spec.side == 'A' ? 0 : 1] = true;
        if (spec.round == 1 && first_done[0] && first_done[1]) {
          // Round 1 is the first two cells. The identities, before a single latency is compared.
          const CellRun& ca = done[0].spec.side == 'A' ? done[0] : done[1];
          const CellRun& cb = done[0].spec.side == 'A' ? done[1] : done[0];
          check_cells_comparable(ca, cb, plan.allow_caliber_mismatch, out, "A", "B");
          if (ca.fingerprint && cb.fingerprint) {
            if (ca.fingerprint->digest() == cb.fingerprint->digest()) {
              if (identical) {
                out << fmt::format(">>> {}: both sides executed identical code, as expected of identical sides\n", op);
              } else {
                out << fmt::format("!!! NO_CODE_DIFF op={}: both sides executed byte-identical code ({}); {} more "
                                   "rounds would measure noise and report it as \"no difference\"\n",
                                   op, short_digest(*ca.fingerprint), plan.rounds - 1);
                if (!plan.allow_no_code_diff) {
                  out << fmt::format("!!! {}: skipped. Check the switch reaches this op; if it changes only run-time "
                                     "behaviour, re-run with --allow-no-code-diff\n", op);
                  skipped = true;
                  break;
                }
              }
            } else {
              out << fmt::format(">>> {}: the sides executed different code (A={} B={})\n", op,
                                 short_digest(*ca.fingerprint), short_digest(*cb.fingerprint));
            }
          } else {
            out << fmt::format("??? {}: {} recorded no code fingerprint: the check that the sides executed "
                               "different code was skipped (this does not mean they differ)\n",
                               op, !ca.fingerprint ? (!cb.fingerprint ? "sides A and B" : "side A") : "side B");
          }
        }
      }
      OpAb op_ab;
      if (skipped) {
        op_ab.op = op;
        op_ab.no_report_reason = "NO_CODE_DIFF after round 1: skipped";
        result.skipped_no_code_diff.push_back(op);
      } else {
        if (!stopped) {
          // Every later cell against round 1 of its own side: nothing drifted mid-campaign.
          for (const CellRun& c : done) {
            const CellRun* ref = nullptr;
            for (const CellRun& r : done) {
              if (r.spec.round == 1 && r.spec.side == c.spec.side) ref = &r;
            }
            if (ref && &c != ref) {
              check_cells_comparable(*ref, c, plan.allow_caliber_mismatch, out, fmt::format("{}.r1", c.spec.side),
                                     fmt::format("{}.r{}", c.spec.side, c.spec.round));
            }
          }
        }
        op_ab = aggregate_ab(input, plan.alpha);
        write_ab_op_text(out, op_ab, identical);
        write_ab_op_tsv_rows(tsv, op_ab);
        if (!op_ab.reported) result.exit_code = 1;
      }
      report_json["ops"].push_back(to_json(op_ab));
      result.ops.push_back(std::move(op_ab));
    }
  } catch (...) {
    write_reports();
    throw;
  }
  write_reports();
  return result;
}

}  // namespace caliber
