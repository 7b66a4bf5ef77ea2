// A YAML "billion laughs": nine levels of nine aliases each, 9^9 (387 million) nodes when
// expanded, in ten short lines. `first_line` is put before it (e.g. a schema_version).
#pragma once

#include <string>

namespace caliber::testing_support {

inline std::string yaml_alias_bomb(const std::string& first_line = "") {
  std::string y = first_line + "x0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    const std::string p = "*a" + std::to_string(i - 1);
    y += "x" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + p + "," + p + "," + p + "," + p + "," + p +
         "," + p + "," + p + "," + p + "," + p + "]\n";
  }
  return y;
}

}  // namespace caliber::testing_support
