// The run's cell_in_flight.json: what it holds, read back exactly; absent or unreadable is no
// answer (the batch then falls back to the shard's next cell), never an error.
#include "runner/cell_in_flight.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace caliber::runner {
namespace {

namespace fs = std::filesystem;

std::string scratch_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/caliber_in_flight_" + name + "_" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

CellInFlight literal_cell() {
  CellInFlight c;
  c.run_id = "20261203T120000Z-1a2b3c";
  c.pid = 4242;
  c.shape_id = "sha1:00112233445566778899aabbccddeeff00112233";
  c.provider = "cublas";
  c.started_at = "2026-12-03T12:00:01Z";
  c.started_unix_ms = 1796299201250.5;
  return c;
}

TEST(CellInFlight, WrittenAndReadBackExactly) {
  const std::string dir = scratch_dir("round_trip");
  write_cell_in_flight(dir, literal_cell());
  std::ifstream in(cell_in_flight_path(dir));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text,
            "{\"kind\":\"caliber.cell_in_flight\",\"pid\":4242,\"provider\":\"cublas\",\"run_id\":"
            "\"20261203T120000Z-1a2b3c\",\"schema_version\":1,\"shape_id\":"
            "\"sha1:00112233445566778899aabbccddeeff00112233\",\"started_at\":\"2026-12-03T12:00:01Z\","
            "\"started_unix_ms\":1796299201250.5}\n");
  const std::optional<CellInFlight> back = read_cell_in_flight(dir);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->run_id, "20261203T120000Z-1a2b3c");
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->shape_id, "sha1:00112233445566778899aabbccddeeff00112233");
  EXPECT_EQ(back->provider, "cublas");
  EXPECT_EQ(back->started_at, "2026-12-03T12:00:01Z");
  EXPECT_EQ(back->started_unix_ms, 1796299201250.5);
  clear_cell_in_flight(dir);
  EXPECT_FALSE(fs::exists(cell_in_flight_path(dir)));
  clear_cell_in_flight(dir);  // absent: nothing to do
}

TEST(CellInFlight, AbsentOrUnreadableIsNoAnswer) {
  const std::string dir = scratch_dir("unreadable");
  std::string why;
  EXPECT_FALSE(read_cell_in_flight(dir, &why));
  EXPECT_EQ(why, "no cell_in_flight.json in " + dir);
  std::ofstream(cell_in_flight_path(dir)) << "{\"schema_version\":1,\"kind\":\"caliber.cell_in_flight\"";
  EXPECT_FALSE(read_cell_in_flight(dir, &why));
  EXPECT_NE(why.find(cell_in_flight_path(dir)), std::string::npos) << why;
  std::ofstream(cell_in_flight_path(dir)) << "{\"schema_version\":1,\"kind\":\"caliber.cell_in_flight\",\"run_id\":"
                                             "\"r\",\"pid\":0,\"shape_id\":\"s\",\"provider\":\"p\",\"started_at\":"
                                             "\"2026-12-03T12:00:01Z\",\"started_unix_ms\":1}\n";
  EXPECT_FALSE(read_cell_in_flight(dir, &why));
  EXPECT_NE(why.find("pid"), std::string::npos) << why;
  std::ofstream(cell_in_flight_path(dir)) << "[1, 2]\n";
  EXPECT_FALSE(read_cell_in_flight(dir, &why));
  EXPECT_NE(why.find("expected a JSON object"), std::string::npos) << why;
}

}  // namespace
}  // namespace caliber::runner
