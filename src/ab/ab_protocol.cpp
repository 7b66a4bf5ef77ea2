#include "ab/ab_protocol.h"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <map>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "ab/ab_report.h"
#include "ab/ab_telemetry_trace.h"
#include "ab/config_replay_check.h"
#include "core/created_directories.h"
#include "core/atomic_file.h"
#include "core/entropy_seed.h"
#include "caliber/caliber_check.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#include "core/sha256.h"
#include "core/json_fields.h"
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

// A cell that finished before an interruption: its recorded exit, replayed so that run_cell reads
// the directory it left exactly as it did then.
class RecordedCellRunner final : public CellRunner {
 public:
  RecordedCellRunner(int exit_code, double elapsed_s) : exit_code_(exit_code), elapsed_s_(elapsed_s) {}
  SubprocessResult run(const CellSpec&, const std::string&) override {
    SubprocessResult r;
    r.exit_code = exit_code_;
    r.elapsed_s = elapsed_s_;
    return r;
  }

 private:
  int exit_code_;
  double elapsed_s_;
};

using CellId = std::tuple<std::string, int, char>;  // op, round, side

// status.tsv of an interrupted A/B: its finished cells with their exit code and time.
std::map<CellId, std::pair<int, double>> finished_cells(const std::string& status_file) {
  std::map<CellId, std::pair<int, double>> out;
  std::istringstream in(read_text_file(status_file));
  std::string line;
  std::getline(in, line);  // header
  long number = 1;
  while (std::getline(in, line)) {
    ++number;
    std::vector<std::string> f;
    std::size_t start = 0;
    while (true) {
      const auto tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (f.size() < 5 || f[1].size() != 1) throw InputError(status_file, number, "round", "not a status.tsv line");
    try {
      out[{f[2], std::stoi(f[0]), f[1][0]}] = {std::stoi(f[3]), std::stod(f[4])};
    } catch (const std::exception&) {
      throw InputError(status_file, number, "rc", "not a number");
    }
  }
  return out;
}

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
          {"practical_thresholds", {{"gain_pct", plan.practical.gain_pct}, {"loss_pct", plan.practical.loss_pct}}},
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

std::uint64_t ab_seed(std::uint64_t pinned, const std::string& out_dir, bool resume) {
  if (pinned != 0) return pinned;
  const std::string plan_file = (fs::path(out_dir) / "ab_plan.json").string();
  if (resume && fs::exists(plan_file)) {
    const nlohmann::json recorded = parse_json_document(read_text_file(plan_file), plan_file);
    if (recorded.contains("seed") && recorded.at("seed").is_number_unsigned()) return recorded.at("seed").get<std::uint64_t>();
  }
  return entropy_seed();
}

namespace {

using FinishedCells = std::map<CellId, std::pair<int, double>>;

// ab_plan.json: written for a new A/B. With --resume, the recorded plan must be this one (same
// sides by content, cells, rounds, order, seed), and the cells its status.tsv lists are finished.
FinishedCells record_or_match_plan(const AbPlan& plan, bool identical) {
  const std::string plan_file = (fs::path(plan.out_dir) / "ab_plan.json").string();
  const std::string status_file = (fs::path(plan.out_dir) / "status.tsv").string();
  if (!(plan.resume && fs::exists(plan_file))) {
    write_file_atomically(plan_file, [&](std::ostream& o) { o << ab_plan_json(plan, identical).dump(2) << '\n'; });
    return {};
  }
  const nlohmann::json recorded = parse_json_document(read_text_file(plan_file), plan_file);
  const nlohmann::json now = ab_plan_json(plan, identical);
  for (auto it = now.begin(); it != now.end(); ++it) {
    if (!recorded.contains(it.key()) || recorded.at(it.key()) != it.value()) {
      throw UsageError(fmt::format("--resume: {} is another A/B ({} differs); resume it with its own options",
                                   plan_file, it.key()));
    }
  }
  if (fs::exists(status_file)) return finished_cells(status_file);
  return {};
}

// What every op of one A/B run shares.
struct AbContext {
  const AbPlan& plan;
  CellRunner& runner;
  const CellResultsReader& reader;
  StatusTsv& status;
  AbTelemetryTrace& trace;
  const FinishedCells& finished;
  bool identical;       // the sides are the same thing: the A/B measures the noise floor
  std::ostream& out;    // the report
  std::ostream& progress;
};

// One op's cells as they ran, and what stopped them.
struct OpCells {
  AbInput input;
  std::vector<CellRun> done;
  bool first_done[2] = {false, false};  // round 1 of A, of B
  bool stopped = false, skipped = false;
  std::string record_vs_record_reason;  // set when a cell did not replay A.r1's configs
  std::string replay_dir;  // A.r1's directory, once it recorded a config: every other cell replays it
};

// Runs the cell, or reads back what it left when it finished before an interruption (--resume).
CellRun run_or_read_back_cell(const AbContext& ctx, const CellSpec& spec) {
  if (const auto f = ctx.finished.find({spec.op, spec.round, spec.side}); f != ctx.finished.end()) {
    RecordedCellRunner replay(f->second.first, f->second.second);
    CellRun run = run_cell(spec, replay, ctx.reader);
    ctx.progress << fmt::format("[ab] {} round {}/{} side {}: finished before the interruption (rc {})\n", spec.op,
                                spec.round, ctx.plan.rounds, spec.side, f->second.first);
    return run;
  }
  if (ctx.plan.resume) fs::remove_all(spec.dir);  // what an interrupted cell left
  const double start_ms = ctx.trace.now_ms();
  CellRun run = run_logged_cell(spec, ctx.plan.rounds, ctx.runner, ctx.reader, ctx.status, ctx.progress, "ab");
  ctx.trace.cell(spec, start_ms, ctx.trace.now_ms());
  return run;
}

// A cell that did not finish ok stops its op (the op then has no report).
bool stopped_by_cell(const AbContext& ctx, const CellSpec& spec, const CellRun& c) {
  if (c.outcome.state == CellState::ok) return false;
  if (c.outcome.state == CellState::timed_out) {
    ctx.out << fmt::format("!!! CELL_TIMEOUT {:g}s op={} round={} side={}\n", ctx.plan.cell_timeout_s, spec.op,
                           spec.round, spec.side);
  }
  ctx.out << fmt::format("!!! {} round {} side {}: {}; the remaining cells of {} are not run\n", spec.op, spec.round,
                         spec.side, c.outcome.note, spec.op);
  return true;
}

// A.r1 names the configs every later cell replays (when it recorded any); a later cell that did
// not replay them stops the op: two choices would be compared, not the change under test.
bool broke_config_replay(const AbContext& ctx, OpCells& s, const CellSpec& spec, const CellRun& c) {
  if (spec.round == 1 && spec.side == 'A') {
    if (recorded_any_config(c.outcome.results)) s.replay_dir = fs::absolute(spec.dir).string();
    return false;
  }
  if (s.replay_dir.empty()) return false;
  const CellRun& a1 = s.done.front();  // round 1 runs A first (ab/round_order.h)
  const std::vector<std::string> unreplayed = record_vs_record(a1.outcome.results, c.outcome.results);
  if (unreplayed.empty()) return false;
  for (const std::string& u : unreplayed) {
    ctx.out << fmt::format("!!! RECORD_VS_RECORD op={} round={} side={}: {}\n", spec.op, spec.round, spec.side, u);
  }
  s.record_vs_record_reason = fmt::format(
      "RECORD_VS_RECORD: round {} side {} did not replay the configs A's round 1 recorded ({} row(s)): "
      "two choices would be compared, not the change under test",
      spec.round, spec.side, unreplayed.size());
  ctx.out << fmt::format("!!! {}: {}; the remaining cells of {} are not run\n", spec.op, s.record_vs_record_reason,
                         spec.op);
  return true;
}

// Whether round 1's sides executed different code (their code fingerprints). Returns true when the
// op is to be skipped: byte-identical code on sides that differ, without --allow-no-code-diff.
bool skip_for_identical_code(const AbContext& ctx, const std::string& op, const CellRun& ca, const CellRun& cb) {
  if (!ca.fingerprint || !cb.fingerprint) {
    ctx.out << fmt::format("??? {}: {} recorded no code fingerprint: the check that the sides executed "
                           "different code was skipped (this does not mean they differ)\n",
                           op, !ca.fingerprint ? (!cb.fingerprint ? "sides A and B" : "side A") : "side B");
    return false;
  }
  std::string not_comparable;
  const CodeComparison code = compare_code(*ca.fingerprint, *cb.fingerprint, &not_comparable);
  if (code == CodeComparison::not_comparable) {
    ctx.out << fmt::format("??? {}: code fingerprints not comparable ({}): the check that the sides executed "
                           "different code was skipped; this is not \"identical\"\n",
                           op, not_comparable);
    return false;
  }
  if (code != CodeComparison::identical) {
    ctx.out << fmt::format(">>> {}: the sides executed different code (A={} B={})\n", op,
                           short_digest(*ca.fingerprint), short_digest(*cb.fingerprint));
    return false;
  }
  if (ctx.identical) {
    ctx.out << fmt::format(">>> {}: both sides executed identical code, as expected of identical sides\n", op);
    return false;
  }
  ctx.out << fmt::format("!!! NO_CODE_DIFF op={}: both sides executed byte-identical code ({}); {} more "
                         "rounds would measure noise and report it as \"no difference\"\n",
                         op, short_digest(*ca.fingerprint), ctx.plan.rounds - 1);
  if (ctx.plan.allow_no_code_diff) return false;
  ctx.out << fmt::format("!!! {}: skipped. Check the switch reaches this op; if it changes only run-time "
                         "behaviour, re-run with --allow-no-code-diff\n", op);
  return true;
}

// Round 1 is the first two cells: the identities, before a single latency is compared, then the
// code check. Returns true when the op is skipped.
bool round_one_skips_op(const AbContext& ctx, const std::string& op, const std::vector<CellRun>& done) {
  const CellRun& ca = done[0].spec.side == 'A' ? done[0] : done[1];
  const CellRun& cb = done[0].spec.side == 'A' ? done[1] : done[0];
  check_cells_comparable(ca, cb, ctx.plan.allow_caliber_mismatch, ctx.out, "A", "B");
  return skip_for_identical_code(ctx, op, ca, cb);
}

// Runs one op's cells in their planned order, until they end or one stops the op.
OpCells run_op_cells(const AbContext& ctx, const std::string& op, const std::vector<CellSpec>& planned) {
  OpCells s;
  s.input.op = op;
  s.input.rounds_planned = ctx.plan.rounds;
  for (const CellSpec& planned_spec : planned) {
    CellSpec spec = planned_spec;
    if (!s.replay_dir.empty()) spec.env.emplace_back("CALIBER_REPLAY_CONFIGS", s.replay_dir);
    s.done.push_back(run_or_read_back_cell(ctx, spec));
    const CellRun& c = s.done.back();
    if (static_cast<int>(s.input.rounds.size()) < spec.round) s.input.rounds.push_back({spec.round, {}, {}});
    (spec.side == 'A' ? s.input.rounds.back().a : s.input.rounds.back().b) = c.outcome;
    if (stopped_by_cell(ctx, spec, c)) {
      s.stopped = true;
      break;
    }
    if (broke_config_replay(ctx, s, spec, c)) break;
    if (spec.round == 1) s.first_done[spec.side == 'A' ? 0 : 1] = true;
    if (spec.round == 1 && s.first_done[0] && s.first_done[1] && round_one_skips_op(ctx, op, s.done)) {
      s.skipped = true;
      break;
    }
  }
  return s;
}

// Every later cell against round 1 of its own side: nothing drifted mid-campaign.
void check_no_drift(const AbContext& ctx, const std::vector<CellRun>& done) {
  for (const CellRun& c : done) {
    const CellRun* ref = nullptr;
    for (const CellRun& r : done) {
      if (r.spec.round == 1 && r.spec.side == c.spec.side) ref = &r;
    }
    if (ref && &c != ref) {
      check_cells_comparable(*ref, c, ctx.plan.allow_caliber_mismatch, ctx.out, fmt::format("{}.r1", c.spec.side),
                             fmt::format("{}.r{}", c.spec.side, c.spec.round));
    }
  }
}

// The op's report (text to ctx.out, rows to tsv), or why it has none; result's exit code and
// skipped ops follow.
OpAb report_op(const AbContext& ctx, const std::string& op, const OpCells& s, std::ostream& tsv,
               AbRunResult& result) {
  OpAb op_ab;
  if (s.skipped) {
    op_ab.op = op;
    op_ab.no_report_reason = "NO_CODE_DIFF after round 1: skipped";
    result.skipped_no_code_diff.push_back(op);
    return op_ab;
  }
  if (!s.record_vs_record_reason.empty()) {
    op_ab.op = op;
    op_ab.no_report_reason = s.record_vs_record_reason;
    result.exit_code = 1;
    return op_ab;
  }
  if (!s.stopped) check_no_drift(ctx, s.done);
  op_ab = aggregate_ab(s.input, ctx.plan.alpha, ctx.plan.practical);
  write_ab_op_text(ctx.out, op_ab, ctx.identical);
  write_ab_op_tsv_rows(tsv, op_ab);
  if (!op_ab.reported) result.exit_code = 1;
  return op_ab;
}

}  // namespace

AbRunResult run_ab(const AbPlan& plan, CellRunner& runner, const CellResultsReader& reader, std::ostream& report,
                   std::ostream& progress) {
  // Every cell of every op is planned before the first one runs.
  std::vector<std::vector<CellSpec>> planned;
  for (const std::string& op : plan.ops) planned.push_back(plan_op_cells(plan, op));
  std::error_code ec;
  create_output_directories(plan.out_dir, ec);
  const bool identical = side_signature(plan.a) == side_signature(plan.b);
  const FinishedCells finished = record_or_match_plan(plan, identical);
  const std::string status_file = (fs::path(plan.out_dir) / "status.tsv").string();
  StatusTsv status(status_file, /*append=*/plan.resume && fs::exists(status_file));
  AbTelemetryTrace trace(plan);

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
  const AbContext ctx{plan, runner, reader, status, trace, finished, identical, out, progress};
  try {
    if (identical) {
      out << "== A and B are identical (same binary, plugin and matrix bytes, same environment): this A/B measures "
             "the noise floor ==\n";
    }
    for (std::size_t i = 0; i < plan.ops.size(); ++i) {
      const OpCells cells = run_op_cells(ctx, plan.ops[i], planned[i]);
      OpAb op_ab = report_op(ctx, plan.ops[i], cells, tsv, result);
      report_json["ops"].push_back(to_json(op_ab));
      result.ops.push_back(std::move(op_ab));
    }
  } catch (...) {
    write_reports();
    trace.write();
    throw;
  }
  write_reports();
  trace.write();
  return result;
}

}  // namespace caliber
