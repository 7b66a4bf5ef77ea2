// The descriptions of the ops caliber ships (ops/*.op.yaml in the source tree, docs/ops.md),
// built into the library by CMake and read by the same reader as an op of your own's
// (ops/op_description.h); the op catalog registers them before any op is looked up.
#pragma once

#include <vector>

namespace caliber::ops {

struct ShippedOpDescription {
  const char* file;  // "rmsnorm.op.yaml"
  const char* text;  // the file's bytes
};

const std::vector<ShippedOpDescription>& shipped_op_descriptions();

}  // namespace caliber::ops
