// Message building for .cu files: nvcc's C++20 front end cannot compile fmt's consteval format
// strings, so CUDA translation units concatenate with a stream instead.
#pragma once

#include <sstream>
#include <string>

namespace caliber::cuda {

template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

}  // namespace caliber::cuda
