// The history store on both databases: a run added twice is stored once, points join a series
// only like for like, a failed or killed add leaves nothing, two writers at once both land, and
// the schema migrates (and refuses a newer one).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "history/history_schema.h"
#include "history/history_store.h"
#include "support/history_records.h"

namespace caliber::history {
namespace {

using testing_support::fresh_history;
using testing_support::literal_date;
using testing_support::literal_run;
using testing_support::LiteralPoint;

// Forwards to a real connection, and fails (or kills the process) at the first points insert.
class FailingConnection final : public SqlConnection {
 public:
  FailingConnection(std::unique_ptr<SqlConnection> inner, bool kill) : inner_(std::move(inner)), kill_(kill) {}
  SqlDialect dialect() const override { return inner_->dialect(); }
  const std::string& location() const override { return inner_->location(); }
  void execute(std::string_view sql) override { inner_->execute(sql); }
  void for_each_row(std::string_view sql, const std::vector<SqlValue>& params,
                    const std::function<void(const SqlRow&)>& row) override {
    if (sql.starts_with("INSERT INTO points")) {
      if (kill_) ::kill(::getpid(), SIGKILL);
      throw std::runtime_error("injected failure");
    }
    inner_->for_each_row(sql, params, row);
  }
  void begin_write() override { inner_->begin_write(); }
  void commit() override { inner_->commit(); }
  void rollback() noexcept override { inner_->rollback(); }

 private:
  std::unique_ptr<SqlConnection> inner_;
  bool kill_;
};

class HistoryStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string skip;
    location_ = fresh_history(GetParam(), "store", &skip);
    if (location_.empty()) GTEST_SKIP() << skip;
  }
  std::size_t count(const std::string& table) {
    auto db = open_sql_connection(location_);
    return std::stoul(*db->query("SELECT COUNT(*) FROM " + table).at(0)[0]);
  }
  std::string location_;
};

TEST_P(HistoryStoreTest, ARunAddedTwiceIsStoredOnce) {
  HistoryStore store(location_);
  const RunRecord run = literal_run("k1", literal_date(0), "c1", {{"gemm", 10.0}, {"gemm", 20.0, "s2"}});
  const AddResult first = store.add(run);
  EXPECT_TRUE(first.added);
  EXPECT_EQ(first.points, 2u);
  EXPECT_EQ(first.new_series, 2u);
  const AddResult again = store.add(run);
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.run, first.run);
  EXPECT_EQ(store.run_count(), 1u);
  EXPECT_EQ(count("points"), 2u);
}

TEST_P(HistoryStoreTest, PointsJoinASeriesOnlyLikeForLike) {
  HistoryStore store(location_);
  store.add(literal_run("k1", literal_date(0), "c1", {{"gemm", 10.0}}));
  store.add(literal_run("k2", literal_date(1), "c2", {{"gemm", 11.0}}));
  // Another schedule, another run identity: each starts a series of its own.
  store.add(literal_run("k3", literal_date(2), "c3", {{"gemm", 12.0, "s1", "per_iter"}}));
  store.add(literal_run("k4", literal_date(3), "c4", {{"gemm", 13.0}}, R"({"device.driver_version":"570.9"})"));
  const History h = store.read();
  ASSERT_EQ(h.series.size(), 3u);
  EXPECT_EQ(h.series[0].points.size(), 2u);
  EXPECT_EQ(h.series[1].points.size(), 1u);
  EXPECT_EQ(h.series[2].points.size(), 1u);
  EXPECT_EQ(h.run_of(h.series[0].points[1]).commit, "c2");
  EXPECT_DOUBLE_EQ(*h.series[2].points[0].value_us, 13.0);
}

TEST_P(HistoryStoreTest, PointsAreInRunDateOrderWhateverTheOrderTheyWereAdded) {
  HistoryStore store(location_);
  store.add(literal_run("late", literal_date(5), "c5", {{"gemm", 5.0}}));
  store.add(literal_run("early", literal_date(1), "c1", {{"gemm", 1.0}}));
  store.add(literal_run("mid", literal_date(3), "c3", {{"gemm", 3.0}}));
  const History h = store.read();
  ASSERT_EQ(h.series.at(0).points.size(), 3u);
  EXPECT_EQ(h.run_of(h.series[0].points[0]).commit, "c1");
  EXPECT_EQ(h.run_of(h.series[0].points[2]).commit, "c5");
  SeriesFilter last_two;
  last_two.last = 2;
  EXPECT_EQ(store.read(last_two).series.at(0).points.size(), 2u);
}

TEST_P(HistoryStoreTest, AnAddThatFailsMidwayLeavesNothing) {
  HistoryStore(location_).add(literal_run("k0", literal_date(0), "c0", {{"gemm", 1.0}}));
  HistoryStore failing(std::make_unique<FailingConnection>(open_sql_connection(location_), false));
  EXPECT_THROW(failing.add(literal_run("k1", literal_date(1), "c1", {{"gemm", 2.0}, {"conv", 3.0}})),
               std::runtime_error);
  EXPECT_EQ(count("runs"), 1u);
  EXPECT_EQ(count("series"), 1u);  // the new series of the failed add is gone with it
  EXPECT_EQ(count("points"), 1u);
}

TEST_P(HistoryStoreTest, AKilledAddLeavesNothingAndTheHistoryStaysUsable) {
  HistoryStore(location_).add(literal_run("k0", literal_date(0), "c0", {{"gemm", 1.0}}));
  const pid_t child = ::fork();
  if (child == 0) {
    HistoryStore dying(std::make_unique<FailingConnection>(open_sql_connection(location_), true));
    dying.add(literal_run("k1", literal_date(1), "c1", {{"gemm", 2.0}, {"conv", 3.0}}));
    ::_exit(0);  // not reached: killed at the points insert
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(count("runs"), 1u);
  EXPECT_EQ(count("series"), 1u);
  HistoryStore store(location_);
  EXPECT_TRUE(store.add(literal_run("k1", literal_date(1), "c1", {{"gemm", 2.0}})).added);
  EXPECT_EQ(store.run_count(), 2u);
}

TEST_P(HistoryStoreTest, TwoWritersAtOnceBothLand) {
  HistoryStore(location_).run_count();  // the schema exists before the writers race
  auto writer = [this](const std::string& who) {
    HistoryStore store(location_);
    for (int i = 0; i < 25; ++i) {
      std::vector<LiteralPoint> points;
      for (int s = 0; s < 40; ++s) points.push_back({"gemm", 1.0 + i, "s" + std::to_string(s)});
      store.add(literal_run(who + std::to_string(i), literal_date(i), who, points));
    }
  };
  std::thread a(writer, "a"), b(writer, "b");
  a.join();
  b.join();
  EXPECT_EQ(count("runs"), 50u);
  EXPECT_EQ(count("series"), 40u);  // both writers' points joined the same 40 series
  EXPECT_EQ(count("points"), 2000u);
}

TEST_P(HistoryStoreTest, MigrationsApplyOnceInOrderAndANewerSchemaIsRefused) {
  auto db = open_sql_connection(location_);
  std::vector<Migration> migrations = {{1, "one", "CREATE TABLE t (a BIGINT)"}};
  EXPECT_EQ(migrate_history(*db, migrations), 1);
  db->query("INSERT INTO t (a) VALUES (?)", {std::int64_t{7}});
  migrations.push_back({2, "two", "ALTER TABLE t ADD COLUMN b TEXT"});
  EXPECT_EQ(migrate_history(*db, migrations), 2);
  EXPECT_EQ(migrate_history(*db, migrations), 2);  // applied once
  EXPECT_EQ(*db->query("SELECT a FROM t").at(0)[0], "7");
  EXPECT_EQ(history_schema_version(*db), 2);
  migrations.pop_back();
  try {
    migrate_history(*db, migrations);
    FAIL() << "a schema newer than the migrations was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 2 is newer than this caliber's (1)"), std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Databases, HistoryStoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST(HistoryStoreSqlite, AFileThatIsNotADatabaseIsRefusedNamingIt) {
  const std::string file = testing_support::fresh_dir("history_notdb") + "/notes.txt";
  testing_support::write_text(file, std::string(4096, 'x'));
  try {
    HistoryStore store(file);
    FAIL() << "opened a text file as a history";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a database"), std::string::npos) << e.what();
  }
}

TEST(HistoryStorePostgres, AnUnreachableServerIsAOneLineErrorWithoutThePassword) {
  try {
    HistoryStore store("postgresql://who:secret@/nodb?host=/nonexistent-dir&connect_timeout=2");
    FAIL() << "connected to nothing";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot connect to the history database"), std::string::npos) << what;
    EXPECT_EQ(what.find("secret"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace caliber::history
