// A comma-separated option value ("--op rmsnorm,gemm"): its items in order; an empty item is a
// UsageError naming the option and the whole value.
#pragma once

#include <string>
#include <vector>

namespace caliber {

std::vector<std::string> split_option_list(const std::string& text, const std::string& option);

}  // namespace caliber
