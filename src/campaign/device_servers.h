// The device servers of a campaign (runner/device_server.h; docs/batch.md, "One process per
// device"): one per device, started before a shard's attempt when none runs, so that the shards
// of a device are measured by one process that opened the device once. A server that ended (it
// retires after a run that left the device unusable or threads behind) is started again for the
// next attempt; after an attempt that did not end well (a timeout, a crash, a kill) the server is
// stopped, as it may be stuck in the cell that attempt was measuring.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/subprocess.h"

namespace caliber::campaign {

class DeviceServers {
 public:
  // `log_dir`: where each server's log goes (device_server_<N>.log, appended to).
  DeviceServers(std::string executable, std::string backend, std::string log_dir);
  ~DeviceServers();  // stops every server and removes their sockets
  DeviceServers(const DeviceServers&) = delete;
  DeviceServers& operator=(const DeviceServers&) = delete;

  // The socket of `device`'s server, started when none runs ("" when it could not be started:
  // the shard's run then starts its own worker).
  std::string ensure(int device);
  void stop(int device);
  // SIGTERM to every server, without waiting for them to exit (the destructor reaps them): the
  // devices' contexts are torn down while the campaign merges and seals.
  void release_all();
  int started() const { return started_; }  // servers started so far

 private:
  std::string executable_, backend_, log_dir_, socket_dir_;
  std::map<int, std::unique_ptr<ChildProcess>> servers_;
  int started_ = 0;
};

}  // namespace caliber::campaign
