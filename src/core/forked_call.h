// A function run in a forked child with a time limit: code caliber does not trust (a plugin
// library's constructors, its entry and its destroy()) runs there before a run measures anything,
// so that its exit, crash, hang or throw costs a failed check and never the process that checks.
//
// The child is a fork of the caller: call it before the process has opened a device (a CUDA
// context does not survive fork) and while no other thread holds a lock the function needs.
// The child gets its own process group, and the whole group ends at the limit.
#pragma once

#include <functional>
#include <string>

namespace caliber {

struct ForkedCall {
  bool answered = false;  // the function returned in the child; `value` is what it returned
  std::string value;
  // When it did not: how the child ended instead, in words ("exited with code 0 before it
  // returned", "was ended by signal 11 (Segmentation fault)", "did not return within 30 s",
  // "threw: ...").
  std::string failure;
};

// Runs `fn` in a child process and returns its value, or how the child failed. The child's
// stdout goes to stderr (caliber's stdout stays its own). Throws Error when fork or pipe fails.
ForkedCall call_in_child(const std::function<std::string()>& fn, double timeout_s);

}  // namespace caliber
